function area(w) {
  return w * w;
}
module.exports = { area };
