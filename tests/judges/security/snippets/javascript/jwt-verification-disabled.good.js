const jwt = require('jsonwebtoken');
function authenticate(token, key) {
  return jwt.verify(token, key, { algorithms: ['HS256'] });
}
function headerOf(token) {
  return jwt.decode(token, { complete: true }).header;
}
module.exports = { authenticate, headerOf };
