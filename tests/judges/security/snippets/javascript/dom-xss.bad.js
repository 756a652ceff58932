function show(el, comment) {
  el.innerHTML = comment.text;
  document.write(comment.author);
}
module.exports = { show };
