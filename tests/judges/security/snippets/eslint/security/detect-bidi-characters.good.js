// Greetings in right-to-left scripts are fine without control characters.
const GREETINGS = { ar: "مرحبا", he: "שלום" };

function isAdmin(user) {
  return user.level === "admin";
}

module.exports = { isAdmin, GREETINGS };
