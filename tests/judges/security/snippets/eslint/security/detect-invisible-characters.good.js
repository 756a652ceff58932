function check(req) {
  const { timeout } = req.query;
  return Number(timeout);
}

module.exports = { check };
