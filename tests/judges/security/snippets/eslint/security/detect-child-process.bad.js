const { exec } = require("child_process");

function archive(name) {
  return exec("tar czf backup.tgz " + name);
}

module.exports = { archive };
