// Safe counterpart: the request's path is reduced to a file name or checked to stay inside BASE.
const fs = require("fs");
const path = require("path");
const express = require("express");

const app = express();
const BASE = "/srv/files";

app.get("/read/:name", (req, res) => {
  const target = path.join(BASE, path.basename(req.params.name));
  res.send(fs.readFileSync(target, "utf8"));
});

app.get("/download", (req, res) => {
  const target = path.resolve(BASE, req.query.file);
  if (!target.startsWith(BASE + path.sep)) {
    res.status(404).end();
    return;
  }
  res.sendFile(target);
});

app.get("/config", (req, res) => {
  res.send(fs.readFileSync(path.join(__dirname, "config.json"), "utf8"));
});
