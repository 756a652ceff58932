const express = require("express");

const app = express();
app.use(express.csrf());
app.use(express.methodOverride());

module.exports = app;
