const express = require('express');
const app = express();
app.get('/', (req, res) => res.send('hi'));
module.exports = app;
