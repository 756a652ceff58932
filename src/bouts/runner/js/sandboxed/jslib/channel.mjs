// The in-process end of the result channel for the vitest and jest entries (node:test uses
// preload.mjs + reporter.mjs). The entry opens it first thing, before any framework or
// submission code is loaded: it reads this process's nonce from the pipe the trusted supervisor
// wrote, closes that pipe and forgets the descriptor numbers. Lines without the nonce are
// counted as forged by the supervisor. One more holder may `take()` the sender (jest's test
// environment, loaded by jest from this same module instance); a second `take()` is itself
// reported as tampering.
import { readFileSync, closeSync, writeSync } from 'node:fs';

const write = writeSync;
const stringify = JSON.stringify;
let state = null;
let taken = false;

function send(record) {
  if (state === null || state.nonce === '') return;
  write(state.fd, `${stringify({ ...record, nonce: state.nonce })}\n`);
}

/** This process's result fd and nonce, read once from the pipe the supervisor wrote (then closed
 * and the variable naming the descriptors deleted). No channel: an empty nonce, so no records,
 * and the supervisor reports the file as crashed. Shared with preload.mjs (node:test). */
export function readChannel() {
  const [fd, nonceFd] = String(process.env.BOUTS_JS_FDS ?? '').split(',').map(Number);
  delete process.env.BOUTS_JS_FDS;
  let nonce = '';
  try {
    nonce = readFileSync(nonceFd, 'utf8').trim();
    closeSync(nonceFd);
  } catch {
    nonce = '';
  }
  return { fd, nonce };
}

/** Read the nonce and return the sender. Called once, by the entry. */
export function open() {
  if (state !== null) throw new Error('bouts channel already open');
  state = readChannel();
  return send;
}

/** The sender, once, for the framework-side half of the runner. */
export function take() {
  if (taken) {
    send({ type: 'violation', detail: 'forged: the result channel was asked for a second time' });
    throw new Error('bouts channel already taken');
  }
  taken = true;
  return send;
}

/** The first non-blank line of a message, cut to 1000 characters (for a test's failure detail). */
export function firstLine(text) {
  return String(text ?? '').split('\n').find((l) => l.trim() !== '')?.slice(0, 1000) ?? '';
}
