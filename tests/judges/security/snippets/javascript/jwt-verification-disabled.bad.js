const jwt = require('jsonwebtoken');
function authenticate(token, key) {
  return jwt.verify(token, key, { algorithms: ['HS256', 'none'] });
}
function currentUser(token) {
  return jwt.decode(token);
}
module.exports = { authenticate, currentUser };
