function calculate(expr) {
  return eval(expr);
}

module.exports = { calculate };
