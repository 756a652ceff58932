const cp = require('child_process');
function archive(name) {
  cp.exec(`tar czf /tmp/out.tgz ${name}`);
  return cp.execSync('ls ' + name);
}
module.exports = { archive };
