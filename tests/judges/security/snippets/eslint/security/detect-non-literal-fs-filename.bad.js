const fs = require("fs");

function download(req, res) {
  fs.readFile(req.query.file, (err, data) => res.send(data));
}

module.exports = { download };
