// Runs in vitest's worker before each test file (so before any submission code there): snapshots
// the machinery a forger would replace, installs bouts_expect, announces each test to the
// supervisor's watchdog (stderr heartbeats: timing only, never a verdict), and hands each
// test's fingerprint and bouts_expect digests to the reporter through the test's meta.
import { afterEach, beforeEach, expect } from 'vitest';
import { writeSync } from 'node:fs';
import { expectations, install } from './canonical.mjs';
import { fileObserver, installObserver } from './observe.mjs';
import { baseline, builtins, ownFunctions, processMachinery } from './watch.mjs';

// The rewritten test file's observations (observe.mjs) go to the supervisor on this worker's
// stderr (vitest relays it), each line after a marker and stamped with the nonce the main process
// provided; the nonce is read and deleted here, before the test file (and so the submission) is
// imported in this worker: never through vitest's own messages about results.
let begin = () => {};
{
  const state = globalThis.__vitest_worker__;
  const context = state?.providedContext;
  let nonce = typeof context?.boutsNonce === 'string' ? context.boutsNonce : '';
  if (context !== undefined) delete context.boutsNonce;
  if (state?.ctx?.providedContext !== undefined) delete state.ctx.providedContext.boutsNonce;
  const observing = process.env.BOUTS_JS_OBSERVE;
  delete process.env.BOUTS_JS_OBSERVE;
  if (nonce !== '' && (observing === '0' || observing === '1')) {
    const obs = fileObserver(2, nonce, observing === '1', undefined, '\u001eBOUTS-OBS ');
    installObserver(globalThis, obs.api);
    begin = obs.begin;
  }
  nonce = '';
}

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
  begin(fullName(ctx.task));
  write(2, `\u001eBOUTS-START ${stringify(fullName(ctx.task))}\n`);
});

afterEach((ctx) => {
  ctx.task.meta.bouts = { digests: recorder.take(), changed: check(watched()) };
});
