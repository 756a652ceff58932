function authorise(req, expected) {
  const token = req.headers["x-api-token"];
  if (token === expected) {
    return true;
  }
  return false;
}

module.exports = { authorise };
