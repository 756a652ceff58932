const crypto = require("crypto");

function resetCode() {
  return crypto.pseudoRandomBytes(16).toString("hex");
}

module.exports = { resetCode };
