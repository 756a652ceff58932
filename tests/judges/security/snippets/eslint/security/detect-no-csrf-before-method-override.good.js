const express = require("express");

const app = express();
app.use(express.methodOverride());
app.use(express.csrf());

module.exports = app;
