// ESLint formatter of the security judge: compact JSON of the messages the engine reads (rule
// reports and parse errors), bounded whatever the submission holds: at most MAX_PER_FILE messages
// per file and MAX_TOTAL in all, each message's text cut to MAX_TEXT characters; the rest are only
// counted (`dropped`). Parsed by src/bouts/judges/security/_eslint.py.
"use strict";

const path = require("node:path");

const MAX_PER_FILE = 500;
const MAX_TOTAL = 10000;
const MAX_TEXT = 300;

module.exports = function boutsFormatter(results, context) {
  const cwd = (context && context.cwd) || process.cwd();
  const files = [];
  let total = 0;
  let dropped = 0;
  for (const result of results) {
    const messages = [];
    for (const m of result.messages) {
      if (!m.fatal && !m.ruleId) continue; // directive notices, not findings
      if (messages.length >= MAX_PER_FILE || total >= MAX_TOTAL) {
        dropped += 1;
        continue;
      }
      const line = m.line || 1;
      messages.push({
        rule: m.ruleId || null,
        line,
        endLine: m.endLine || line,
        fatal: Boolean(m.fatal),
        message: String(m.message).slice(0, MAX_TEXT),
      });
      total += 1;
    }
    if (messages.length) {
      files.push({ path: path.relative(cwd, result.filePath).split(path.sep).join("/"), messages });
    }
  }
  return JSON.stringify({ schema: "bouts.eslint/1", files, dropped });
};
