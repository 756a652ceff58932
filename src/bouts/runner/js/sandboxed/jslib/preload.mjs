// Loaded with --import before the test file, so before any submission code exists here.
//
// 1. Reads this process's nonce from a pipe the supervisor wrote and closes it: submission code
//    that later writes to the result fd does not know the nonce.
// 2. Snapshots the identity of the machinery a forger would replace (assert, node:test, exit,
//    JSON, Object.is, ...); the reporter compares at the end of each test.
// 3. Installs `bouts_expect` (canonical.mjs): the digests of one test process are its test's.
// 4. Arms the reporter with all of it, then forgets it (nothing here is exported).
import assert from 'node:assert';
import * as nodeTest from 'node:test';
import { expectations, install } from './canonical.mjs';
import { readChannel } from './channel.mjs';
import { arm } from './reporter.mjs';
import { installObserver, observer } from './observe.mjs';

let { fd: resultFd, nonce } = readChannel(); // let: the nonce is forgotten once armed
const observing = process.env.BOUTS_JS_OBSERVE;
delete process.env.BOUTS_JS_OBSERVE;
// The rewritten test files' observations (observe.mjs): written as they happen, stamped with the
// nonce, encoded with builtins captured here, before any submission code exists in the process.
if (observing === '0' || observing === '1') installObserver(globalThis, observer(resultFd, nonce, observing === '1'));

function watched() {
  const out = [];
  const add = (name, value) => out.push([name, value]);
  for (const [label, mod] of [['assert', assert], ['assert.strict', assert.strict]]) {
    add(label, mod);
    for (const key of Object.getOwnPropertyNames(mod)) {
      if (typeof mod[key] === 'function') add(`${label}.${key}`, mod[key]);
    }
  }
  for (const key of ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach']) {
    if (key in nodeTest) add(`node:test.${key}`, nodeTest[key]);
  }
  add('process.exit', process.exit);
  add('process.reallyExit', process.reallyExit);
  add('process.emit', process.emit);
  add('process.emitWarning', process.emitWarning);
  add('JSON.stringify', JSON.stringify);
  add('Object.is', Object.is);
  add('Object.keys', Object.keys);
  add('Error.captureStackTrace', Error.captureStackTrace);
  add('Promise.prototype.then', Promise.prototype.then);
  add('Function.prototype.call', Function.prototype.call);
  add('Function.prototype.apply', Function.prototype.apply);
  add('Reflect.apply', Reflect.apply);
  add('Array.prototype.join', Array.prototype.join);
  add('String.prototype.split', String.prototype.split);
  return out;
}

const baseline = watched();
const names = baseline.map(([name]) => name);
const values = baseline.map(([, value]) => value);
const is = Object.is;

function check() {
  // Read with the builtins captured above: a submission that replaced them does not steer this.
  const now = watched();
  const changed = [];
  for (let i = 0; i < values.length; i += 1) {
    if (i >= now.length || !is(now[i][1], values[i])) changed.push(names[i]);
  }
  if (now.length !== values.length) changed.push('the set of assert functions changed');
  return changed;
}

const recorder = expectations([globalThis]);
install(globalThis, recorder.bouts_expect);
const note = arm(nonce, resultFd, check, recorder.peek);
nonce = '';

// A rejection nobody handled — also one that surfaces after its test already passed — is a
// stability warning (SPEC §1). node:test keeps its own handler; this one only observes.
process.on('unhandledRejection', (reason) => {
  const what = reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason);
  note(`UnhandledPromiseRejection: ${what.split('\n')[0]}`);
});
