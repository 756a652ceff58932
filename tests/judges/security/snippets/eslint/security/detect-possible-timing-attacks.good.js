const crypto = require("crypto");

function authorise(req, expected) {
  const token = req.headers["x-api-token"];
  if (token === undefined) {
    return false;
  }
  if (typeof token !== "string") {
    return false;
  }
  const a = Buffer.from(token);
  const b = Buffer.from(expected);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

module.exports = { authorise };
