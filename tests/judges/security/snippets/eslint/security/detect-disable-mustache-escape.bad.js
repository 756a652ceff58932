const Mustache = require("mustache");

Mustache.escapeMarkup = false;

module.exports = (template, view) => Mustache.render(template, view);
