// Deliberately vulnerable snippet for a Semgrep rule test.
const fs = require("fs");
const path = require("path");
const express = require("express");

const app = express();
const BASE = "/srv/files";

app.get("/read/:name", (req, res) => {
  const target = path.join(BASE, req.params.name);
  res.send(fs.readFileSync(target, "utf8"));
});

app.get("/download", (req, res) => {
  res.sendFile(path.resolve(BASE, req.query.file));
});

app.post("/delete", async (req, res) => {
  await fs.promises.unlink(BASE + "/" + req.body.name);
  res.end();
});
