function loadPlugin(name) {
  return require("./plugins/" + name);
}

module.exports = { loadPlugin };
