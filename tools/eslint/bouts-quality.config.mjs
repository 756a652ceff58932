// The quality-lint judge's ESLint configuration (docs/quality-judges.md). Grader-owned: ESLint is
// run with `--config <this file> --no-config-lookup --no-inline-config`, so no configuration the
// submission ships, and no `eslint-disable` comment in it, is ever read. It names parsers, globals and
// linter options only; which core rules are on (and their options) comes from the engine on the
// command line (`--rule`, built from RULES in src/bouts/judges/quality/_js_lint.py, the one table
// that also maps each rule to a dimension and a weight). No plugin is loaded. ESLint reads the
// code; nothing here runs it.
import tsParser from "@typescript-eslint/parser";

// What Node 20, browsers and the common test runners define, so that `no-undef` reports names the
// code never declared (a typo, a missing import), not the platform's own. ES built-ins (Map,
// Promise, globalThis...) come from `ecmaVersion`.
const names = {
  readonly: [
    // Node
    "process", "console", "Buffer", "setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate",
    "clearImmediate", "queueMicrotask", "structuredClone", "URL", "URLSearchParams", "TextEncoder", "TextDecoder",
    "AbortController", "AbortSignal", "fetch", "Request", "Response", "Headers", "FormData", "Blob", "File",
    "performance", "crypto", "global", "EventTarget", "Event", "atob", "btoa", "WebAssembly", "BroadcastChannel",
    "MessageChannel", "MessagePort", "ReadableStream", "WritableStream", "TransformStream", "DOMException",
    "__dirname", "__filename", "require",
    // browsers
    "window", "document", "navigator", "location", "history", "localStorage", "sessionStorage", "self",
    "HTMLElement", "Element", "Node", "NodeList", "CustomEvent", "KeyboardEvent", "MouseEvent",
    "requestAnimationFrame", "cancelAnimationFrame", "alert", "confirm", "prompt", "XMLHttpRequest", "WebSocket",
    "MutationObserver", "IntersectionObserver", "ResizeObserver", "getComputedStyle", "Image", "indexedDB",
    // test runners (jest, vitest, mocha, node:test globals)
    "describe", "it", "test", "expect", "beforeEach", "afterEach", "beforeAll", "afterAll", "before", "after",
    "jest", "vi",
  ],
  writable: ["module", "exports"],
};
const globals = Object.fromEntries([
  ...names.readonly.map((n) => [n, "readonly"]),
  ...names.writable.map((n) => [n, "writable"]),
]);

export default [
  { linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: "off", reportUnusedInlineConfigs: "off" } },
  {
    files: ["**/*.js", "**/*.mjs", "**/*.cjs", "**/*.jsx"],
    languageOptions: { ecmaVersion: "latest", sourceType: "module", globals, parserOptions: { ecmaFeatures: { jsx: true } } },
  },
  { files: ["**/*.cjs"], languageOptions: { sourceType: "commonjs" } },
  {
    files: ["**/*.ts", "**/*.tsx", "**/*.mts", "**/*.cts"],
    languageOptions: { parser: tsParser, sourceType: "module", globals },
  },
];
