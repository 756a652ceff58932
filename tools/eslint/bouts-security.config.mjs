// The security judge's ESLint configuration (docs/security.md). Grader-owned: ESLint is run with
// `--config <this file>`, so no configuration the submission ships is ever read. It names parsers,
// plugins and linter options only; which rules are on comes from the engine on the command line
// (`--rule`, built from ESLINT_RULES in src/bouts/judges/security/_eslint.py, the one table that
// also gives each rule its CWE). ESLint reads the code; nothing here runs it.
import security from "eslint-plugin-security";
import noUnsanitized from "eslint-plugin-no-unsanitized";
import tsParser from "@typescript-eslint/parser";

/** A copy of `rule` whose reports go through `keep(descriptor)` first. */
function filtered(rule, keep) {
  return {
    ...rule,
    create(context) {
      const report = (descriptor) => {
        if (keep(descriptor)) context.report(descriptor);
      };
      return rule.create(Object.create(context, { report: { value: report } }));
    },
  };
}

/** null, undefined, "", a number or boolean, `typeof x`, `!x`: a presence or type check, not a secret compared. */
function trivial(node) {
  if (node == null) return false;
  if (node.type === "Literal") return node.value === null || node.value === "" || typeof node.value !== "string";
  if (node.type === "Identifier") return node.name === "undefined";
  return node.type === "UnaryExpression";
}

const rules = {
  ...security.rules,
  // `require("child_process")` alone is not a weakness; a non-literal exec() is.
  "detect-child-process": filtered(
    security.rules["detect-child-process"],
    (d) => !String(d.message).startsWith("Found require("),
  ),
  // `if (token === undefined)` compares no secret; `if (token === given)` does.
  "detect-possible-timing-attacks": filtered(
    security.rules["detect-possible-timing-attacks"],
    (d) => !(d.node && d.node.test && (trivial(d.node.test.left) || trivial(d.node.test.right))),
  ),
};

const plugins = { security: { ...security, rules }, "no-unsanitized": noUnsanitized };
// Node's CommonJS globals: `path.join(__dirname, "x")` is a fixed path in a .js file too.
const globals = { __dirname: "readonly", __filename: "readonly", require: "readonly", module: "writable", exports: "writable" };

export default [
  { linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: "off", reportUnusedInlineConfigs: "off" } },
  {
    files: ["**/*.js", "**/*.mjs", "**/*.cjs", "**/*.jsx"],
    plugins,
    languageOptions: { ecmaVersion: "latest", sourceType: "module", globals, parserOptions: { ecmaFeatures: { jsx: true } } },
  },
  { files: ["**/*.cjs"], languageOptions: { sourceType: "commonjs" } },
  {
    files: ["**/*.ts", "**/*.tsx", "**/*.mts", "**/*.cts"],
    plugins,
    languageOptions: { parser: tsParser, sourceType: "module", globals },
  },
];
