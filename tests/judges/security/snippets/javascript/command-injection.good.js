const cp = require('child_process');
function archive(name) {
  cp.execFile('tar', ['czf', '/tmp/out.tgz', name]);
  const pattern = /x+/;
  pattern.exec(name);
  return cp.exec('ls -la');
}
module.exports = { archive };
