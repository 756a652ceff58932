function handler(err, req, res, next) {
  console.error(err.stack);
  res.status(500).send('internal error');
}
module.exports = { handler };
