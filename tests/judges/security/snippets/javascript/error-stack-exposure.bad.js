function handler(err, req, res, next) {
  res.status(500).send(err.stack);
}
module.exports = { handler };
