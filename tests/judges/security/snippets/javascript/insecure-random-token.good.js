const crypto = require('crypto');
function newSession() {
  const token = crypto.randomBytes(32).toString('hex');
  const jitter = Math.random() * 100;
  return { token, jitter };
}
module.exports = { newSession };
