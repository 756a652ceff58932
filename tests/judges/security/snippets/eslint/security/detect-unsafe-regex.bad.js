const EMAIL = /^([a-zA-Z0-9]+)*@example\.com$/;

function isCompanyEmail(value) {
  return EMAIL.test(value);
}

module.exports = { isCompanyEmail };
