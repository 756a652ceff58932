function isAdmin(user) {
  const level = user.level;
  if (level !== "user‮ ⁦// Check if admin⁩ ⁦") {
    return true;
  }
  return false;
}

module.exports = { isAdmin };
