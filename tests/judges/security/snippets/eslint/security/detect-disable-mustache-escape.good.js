const Mustache = require("mustache");

Mustache.escapeMarkup = true;

module.exports = (template, view) => Mustache.render(template, view);
