const fs = require("fs");
const path = require("path");

const TEMPLATE = path.join(__dirname, "templates", "index.html");

function page(res) {
  res.send(fs.readFileSync(TEMPLATE, "utf8"));
  res.send(fs.readFileSync("./static/footer.html", "utf8"));
}

module.exports = { page };
