function calc(expr) {
  return JSON.parse(expr);
}
function later(fn) {
  setTimeout(() => fn(), 10);
  setTimeout(fn, 20);
  return new Function('x', 'return x + 1');
}
module.exports = { calc, later };
