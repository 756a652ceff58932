// The in-process end of the result channel for the vitest and jest entries (node:test uses
// preload.mjs + reporter.mjs). The entry opens it first thing, before any framework or
// submission code is loaded: it reads this process's nonce from the pipe the trusted supervisor
// wrote, closes that pipe and forgets the descriptor numbers. Lines without the nonce are
// counted as forged by the supervisor. One more holder may `take()` the sender (jest's test
// environment, loaded by jest from this same module instance); a second `take()` is itself
// reported as tampering.
import { readFileSync, closeSync, writeSync } from 'node:fs';
import { fileObserver } from './observe.mjs';

const write = writeSync;
const quote = JSON.stringify; // only on primitive strings: nothing is looked up
const ownKeys = Reflect.ownKeys;
const getOwn = Object.getOwnPropertyDescriptor;
const hasOwn = Object.hasOwn;
const isArray = Array.isArray;
let state = null;
let taken = false;
let observed = false;

/** A flat record (strings, numbers, booleans, arrays of those) as JSON, built from builtins captured
 * when this module loaded: no toJSON, getter, spread or prototype of the process is consulted (an
 * inherited `Object.prototype.toJSON` would otherwise rewrite a record while it is serialised). */
export function serialise(record, nonce) {
  let out = '"nonce":' + quote(nonce);
  const keys = ownKeys(record);
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i];
    const d = typeof key === 'string' ? getOwn(record, key) : undefined;
    if (d === undefined || !hasOwn(d, 'value')) continue;
    if (key !== 'nonce') out += ',' + quote(key) + ':' + scalar(d.value, 0);
  }
  return '{' + out + '}';
}

function scalar(value, depth) {
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number') return value === value && value !== Infinity && value !== -Infinity ? '' + value : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (isArray(value) && depth === 0) {
    let out = '';
    const n = getOwn(value, 'length').value;
    for (let i = 0; i < n && i < 10000; i += 1) {
      const d = getOwn(value, '' + i);
      out += (i === 0 ? '' : ',') + (d !== undefined && hasOwn(d, 'value') ? scalar(d.value, 1) : 'null');
    }
    return '[' + out + ']';
  }
  return 'null';
}

function send(record) {
  if (state === null || state.nonce === '') return;
  write(state.fd, serialise(record, state.nonce) + '\n');
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

/** jest: the observer of the rewritten test files (observe.mjs) on this process's channel, once,
 * with `realm` the test realm's global (its builtins count as plain data). */
export function takeObserver(check, realm) {
  if (observed || state === null) throw new Error('bouts observer unavailable');
  observed = true;
  return fileObserver(state.fd, state.nonce, check, realm);
}

/** vitest: this process's nonce, for the test worker it forks (vitest's `provide`: the worker's
 * setup reads it and deletes it before the test file loads). Only vitest's main process, which runs
 * no submission code, calls this. */
export function workerNonce() {
  return state === null ? '' : state.nonce;
}

/** The first non-blank line of a message, cut to 1000 characters (for a test's failure detail). */
export function firstLine(text) {
  return String(text ?? '').split('\n').find((l) => l.trim() !== '')?.slice(0, 1000) ?? '';
}
