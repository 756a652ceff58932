// The in-process half of the result channel (untrusted: it shares a process with submission code).
//
// node:test feeds its events to this reporter; it writes one JSON line per test to the private
// result fd the trusted supervisor handed to this process, stamped with the per-process nonce the
// preload read before any submission code existed. Everything it writes is checked again by the
// supervisor (is this the test it was asked to run?) and by the host (nonce, canaries,
// fingerprint). See docs/javascript.md, "Threat model".
import { writeSync } from 'node:fs';
import { firstLine, serialise } from './channel.mjs';

let armed = null; // {nonce, fd, check}: set once by the preload, never exported
let used = false; // the generator runs once: a submission that calls it first breaks the real one

const write = writeSync;

/**
 * Called once by preload.mjs, before the test file (and so the submission) is imported. Returns
 * the function the preload uses to report process-level warnings (unhandled rejections).
 */
export function arm(nonce, fd, check, digests) {
  if (armed !== null) throw new Error('bouts reporter already armed');
  armed = { nonce, fd, check, digests };
  return (text) => send({ type: 'warning', text: String(text).slice(0, 300) });
}

function send(record) {
  if (armed === null) return;
  const line = serialise(record, armed.nonce) + '\n';
  write(armed.fd, line);
}

// node:test failure types → the engine's outcomes. Only a clean pass passes.
const FAILURE = {
  testCodeFailure: 'failed',
  subtestsFailed: 'failed',
  hookFailure: 'error',
  cancelledByParent: 'error',
  testTimeoutFailure: 'timeout',
  uncaughtException: 'failed',
  unhandledRejection: 'failed',
};

function verdict(ev) {
  const data = ev.data;
  if (ev.type === 'test:pass') {
    if (data.skip !== undefined && data.skip !== false) return ['failed', `skipped: ${data.skip === true ? '' : data.skip}`];
    if (data.todo !== undefined && data.todo !== false) return ['failed', 'todo'];
    return ['passed', ''];
  }
  const error = data.details?.error;
  const type = error?.failureType ?? 'testCodeFailure';
  const cause = error?.cause ?? error;
  const name = cause?.name ?? cause?.constructor?.name ?? 'Error';
  return [FAILURE[type] ?? 'failed', firstLine(cause?.message ?? cause), type, String(name).slice(0, 100)];
}

export default async function* boutsReporter(source) {
  if (used) throw new Error('bouts reporter already running');
  used = true;
  const stack = [];
  for await (const ev of source) {
    const data = ev.data ?? {};
    if (ev.type === 'test:start') stack[data.nesting] = data.name;
    if (ev.type !== 'test:pass' && ev.type !== 'test:fail') continue;
    stack[data.nesting] = data.name;
    if (data.details?.type === 'suite') continue; // a describe(): its tests report for themselves
    const path = stack.slice(0, data.nesting + 1).join(' > ');
    const [outcome, detail, failureType, errorName] = verdict(ev);
    // The fingerprint is taken when the test ends: a pass from a process whose assert or test
    // machinery was replaced is voided by the host.
    const changed = armed === null ? ['reporter not armed'] : armed.check();
    // One test runs per process: every bouts_expect digest of the process is this test's.
    const observations = armed === null ? [] : armed.digests();
    send({
      type: 'result', id: path, outcome, detail, failure: failureType ?? '', error_name: errorName ?? '',
      duration_s: (data.details?.duration_ms ?? 0) / 1000, changed, observations,
    });
  }
  send({ type: 'end' });
}
