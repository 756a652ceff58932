// Runs in vitest's worker before each test file (so before any submission code there): snapshots
// the machinery a forger would replace, installs bouts_expect, announces each test to the
// supervisor's watchdog (stderr heartbeats: timing only, never a verdict), and hands each
// test's fingerprint and bouts_expect digests to the reporter through the test's meta.
import { afterEach, beforeEach, expect } from 'vitest';
import { writeSync } from 'node:fs';
import { expectations, install } from './canonical.mjs';
import { baseline, builtins, ownFunctions, processMachinery } from './watch.mjs';

const stringify = JSON.stringify;
const write = writeSync;
const assertion = Object.getPrototypeOf(expect(0));
const watched = () => [
  ...builtins(globalThis), ...processMachinery(process), ...ownFunctions(assertion, 'expect()'),
  ['expect', expect], ['expect.extend', expect.extend], ['globalThis.expect', globalThis.expect],
];
const check = baseline(watched());
const recorder = expectations([globalThis]);
install(globalThis, recorder.bouts_expect);

function fullName(task) {
  const parts = [];
  for (let t = task; t && !('filepath' in t); t = t.suite) parts.unshift(t.name);
  return parts.join(' > ');
}

beforeEach((ctx) => {
  recorder.take();
  write(2, `\u001eBOUTS-START ${stringify(fullName(ctx.task))}\n`);
});

afterEach((ctx) => {
  ctx.task.meta.bouts = { digests: recorder.take(), changed: check(watched()) };
});
