// Loaded with --import before the test file, so before any submission code exists here.
//
// 1. Reads this process's nonce from a pipe the supervisor wrote and closes it: submission code
//    that later writes to the result fd does not know the nonce.
// 2. Snapshots the identity of the machinery a forger would replace (assert, node:test, exit,
//    JSON, Object.is, ...) and every own property of the built-in prototypes the machinery relies
//    on; the reporter compares at the end of each test (a pass from a changed process is voided).
// 3. Installs `bouts_expect` (canonical.mjs): the digests of one test process are its test's.
// 4. Arms the reporter with all of it, then forgets it (nothing here is exported).
// 5. Takes the running test's name out of what the process can read (execArgv, cmdline, report).
import assert from 'node:assert';
import * as nodeTest from 'node:test';
import { EventEmitter } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { expectations, install } from './canonical.mjs';
import { readChannel } from './channel.mjs';
import { arm } from './reporter.mjs';
import { installObserver, observer } from './observe.mjs';

let { fd: resultFd, nonce } = readChannel(); // let: the nonce is forgotten once armed
// The running test's name: node filters by --test-name-pattern, parsed before any JavaScript ran;
// what the process can read of it afterwards is taken away here, before any submission code:
// process.execArgv's entry, /proc/self/cmdline (overwritten through process.title) and the
// diagnostic report's copy of the command line (process.report).
{
  const argv = process.execArgv;
  for (let i = argv.length - 1; i >= 0; i -= 1) {
    if (typeof argv[i] === 'string' && argv[i].startsWith('--test-name-pattern=')) argv.splice(i, 1);
  }
  process.title = 'node';
  delete process.report;
}
const observing = process.env.BOUTS_JS_OBSERVE;
delete process.env.BOUTS_JS_OBSERVE;
// The rewritten test files' observations (observe.mjs): written as they happen, stamped with the
// nonce, encoded with builtins captured here, before any submission code exists in the process.
if (observing === '0' || observing === '1') installObserver(globalThis, observer(resultFd, nonce, observing === '1'));

// Captured before any submission code: the fingerprint is read with these, never with what the
// process holds when a test ends.
const ownKeys = Reflect.ownKeys;
const getOwn = Object.getOwnPropertyDescriptor;
const hasOwn = Object.hasOwn;
const is = Object.is;
const toName = String;
// The built-in prototypes the test machinery relies on (node:test's stream and events, errors,
// JSON, promises): an accessor on Error.prototype, a wrapper on Readable.prototype.push, an
// inherited toJSON on Object.prototype each change one of their own properties.
const PROTOTYPES = [
  ['Object.prototype', Object.prototype], ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype], ['Error.prototype', Error.prototype],
  ['Promise.prototype', Promise.prototype], ['String.prototype', String.prototype],
  ['Number.prototype', Number.prototype], ['Boolean.prototype', Boolean.prototype],
  ['Symbol.prototype', Symbol.prototype], ['Map.prototype', Map.prototype], ['Set.prototype', Set.prototype],
  ['RegExp.prototype', RegExp.prototype], ['Readable.prototype', Readable.prototype],
  ['Writable.prototype', Writable.prototype], ['EventEmitter.prototype', EventEmitter.prototype],
];

const MODULES = [['assert', assert], ['assert.strict', assert.strict]];
const TEST_API = ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'];

function watched() {
  const out = Object.create(null); // name -> identity; a null prototype: nothing inherited is read
  const add = (name, value) => { out[name] = value; };
  // Index loops only: an iterator (Array.prototype[Symbol.iterator]) is the process's to replace.
  for (let m = 0; m < MODULES.length; m += 1) {
    const label = MODULES[m][0];
    const mod = MODULES[m][1];
    add(label, mod);
    const keys = ownKeys(mod);
    for (let i = 0; i < keys.length; i += 1) {
      const d = getOwn(mod, keys[i]);
      if (d !== undefined && hasOwn(d, 'value') && typeof d.value === 'function') add(`${label}.${toName(keys[i])}`, d.value);
    }
  }
  for (let p = 0; p < PROTOTYPES.length; p += 1) {
    const label = PROTOTYPES[p][0];
    const proto = PROTOTYPES[p][1];
    const keys = ownKeys(proto);
    for (let i = 0; i < keys.length; i += 1) {
      const d = getOwn(proto, keys[i]);
      if (d === undefined) continue;
      const name = `${label}.${toName(keys[i])}`;
      if (hasOwn(d, 'value')) add(name, d.value);
      else { add(`${name} (get)`, d.get); add(`${name} (set)`, d.set); }
    }
  }
  for (let i = 0; i < TEST_API.length; i += 1) {
    if (TEST_API[i] in nodeTest) add(`node:test.${TEST_API[i]}`, nodeTest[TEST_API[i]]);
  }
  add('process.exit', process.exit);
  add('process.reallyExit', process.reallyExit);
  add('process.emit', process.emit);
  add('process.emitWarning', process.emitWarning);
  add('JSON.stringify', JSON.stringify);
  add('Object.is', Object.is);
  add('Object.keys', Object.keys);
  add('Error.captureStackTrace', Error.captureStackTrace);
  add('Reflect.apply', Reflect.apply);
  return out;
}

const baseline = watched();

function check() {
  // Read with the builtins captured above: a submission that replaced them does not steer this.
  const now = watched();
  const changed = [];
  const note = (name) => { if (changed.length < 40) changed[changed.length] = name; };
  const before = ownKeys(baseline);
  for (let i = 0; i < before.length; i += 1) {
    const name = before[i];
    if (!hasOwn(now, name) || !is(now[name], baseline[name])) note(name);
  }
  const after = ownKeys(now);
  for (let i = 0; i < after.length; i += 1) {
    if (!hasOwn(baseline, after[i])) note(`${after[i]} (added)`);
  }
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
