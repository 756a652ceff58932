const PLUGINS = { csv: require("./plugins/csv"), json: require("./plugins/json") };

function loadPlugin(name) {
  return PLUGINS[name];
}

module.exports = { loadPlugin };
