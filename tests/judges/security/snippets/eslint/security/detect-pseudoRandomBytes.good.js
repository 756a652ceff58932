const crypto = require("crypto");

function resetCode() {
  return crypto.randomBytes(16).toString("hex");
}

module.exports = { resetCode };
