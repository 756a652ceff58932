function show(el, comment) {
  el.textContent = comment.text;
  el.innerHTML = '<b>static</b>';
}
module.exports = { show };
