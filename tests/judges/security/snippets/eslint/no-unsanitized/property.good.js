function showComment(el, comment) {
  el.textContent = comment.body;
  el.innerHTML = "<em>edited</em>";
}

export { showComment };
