function showComment(el, comment) {
  el.innerHTML = comment.body;
}

export { showComment };
