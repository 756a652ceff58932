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
import { expectations } from './canonical.mjs';
import { readChannel } from './channel.mjs';
import { arm } from './reporter.mjs';
import { observer } from './observe.mjs';

let { fd: resultFd, nonce } = readChannel(); // let: the nonce is forgotten once armed
// The running test's name: node filters by --test-name-pattern, parsed before any JavaScript ran;
// what the process can read of it afterwards is taken away here, before any submission code:
// process.execArgv's entry, /proc/self/cmdline (overwritten through process.title) and the
// diagnostic report's copy of the command line (process.report).
// Every other flag of the runner's goes too: the process reads as a plain `node file` run
// (production has no preload, reporter or heap flags to sniff).
{
  process.execArgv.splice(0, process.execArgv.length);
  process.title = 'node';
  delete process.report;
}
const observing = process.env.BOUTS_JS_OBSERVE;
delete process.env.BOUTS_JS_OBSERVE;
// The rewritten test files' observations (observe.mjs): written as they happen, stamped with the
// nonce, encoded with builtins captured here, before any submission code exists in the process.
// Read through a tripwire (below): solution code that looks for them is told apart from the tests.
const sniffed = [];
const observations = observing === '0' || observing === '1' ? observer(resultFd, nonce, observing === '1') : undefined;

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
  for (let i = 0; i < sniffed.length; i += 1) note(sniffed[i]);
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

// ---- Grader-context tripwires ------------------------------------------------------------------
// What the graded process has that a plain run of the code lacks — the runner's globals, its
// environment variables — is read through accessors that look at who reads: the tests and the
// runner may; solution code that does is test-environment detection, reported with the test's
// fingerprint (a pass from such a process is voided on the host). Who reads is V8's structured call
// site, read with functions captured here (a later Error.prepareStackTrace or CallSite patch of the
// submission's changes nothing these read).
const ErrorCtor = Error;
const apply = Reflect.apply;
const captureStack = Error.captureStackTrace;
const reflectGet = Reflect.get;
const reflectHas = Reflect.has;
const defineProp = Object.defineProperty;
const strStarts = String.prototype.startsWith;
const strIncludes = String.prototype.includes;
const stringOf = String;
const regexTest = RegExp.prototype.test;
const structured = (_, sites) => sites;
const CALLSITE = (() => {
  const holder = {};
  const saved = ErrorCtor.prepareStackTrace;
  ErrorCtor.prepareStackTrace = structured;
  captureStack(holder);
  const sites = holder.stack;
  ErrorCtor.prepareStackTrace = saved;
  const proto = Object.getPrototypeOf(sites[0]);
  return { fileName: proto.getFileName, line: proto.getLineNumber, isEval: proto.isEval };
})();
const TESTS_URL = 'file://' + process.cwd() + '/tests/';
const TESTS_PATH = process.cwd() + '/tests/';
const LIB_DIR = new URL('.', import.meta.url).href;
const LIB_PATH = new URL('.', import.meta.url).pathname;

/** Where the code that called `fn` lives, when it is solution code (else ''): not node's own, not
 * the tests, not the runner, not the challenge's dependencies. */
function solutionCaller(fn) {
  const holder = {};
  let sites;
  const saved = ErrorCtor.prepareStackTrace;
  try {
    ErrorCtor.prepareStackTrace = structured;
    captureStack(holder, fn);
    sites = holder.stack;
    ErrorCtor.prepareStackTrace = saved;
  } catch {
    return 'a process whose stack traces were locked (Error.prepareStackTrace)';
  }
  if (sites === undefined || sites === null || typeof sites.length !== 'number' || sites.length === 0) return '';
  const site = sites[0];
  const file = apply(CALLSITE.fileName, site, []);
  const line = apply(CALLSITE.line, site, []);
  if (typeof file !== 'string' || file === '' || apply(CALLSITE.isEval, site, [])) return `code built at run time (line ${line})`;
  if (apply(strStarts, file, ['node:']) || apply(strStarts, file, [TESTS_URL]) || apply(strStarts, file, [TESTS_PATH])
      || apply(strStarts, file, [LIB_DIR]) || apply(strStarts, file, [LIB_PATH]) || apply(strIncludes, file, ['/node_modules/'])) {
    return '';
  }
  return `${file}:${line}`;
}

function sniff(what, fn) {
  const where = solutionCaller(fn);
  if (where !== '' && sniffed.length < 20) sniffed[sniffed.length] = `test-environment detection: solution code reads ${what} (${where})`;
}

/** The runner's global `name` as a read-only accessor that notes solution code reading it. */
function tripwire(global, name, value) {
  const get = function get() { sniff(`the runner's global ${name}`, get); return value; };
  defineProp(global, name, { get, set: undefined, configurable: false, enumerable: false });
}

// Not NODE_ENV or NO_COLOR: this process has no NODE_ENV (as a plain run), and honest code reads
// both (`NODE_ENV !== 'production'`); reading them says nothing of the grader.
const GRADER_ENV = /^(BOUTS_|NODE_TEST|JEST_|VITEST|OPENSSL_CONF$|UV_THREADPOOL_SIZE$|GOMAXPROCS$|MALLOC_ARENA_MAX$)/;

/** `process.env` behind a Proxy that notes solution code reading a variable the runner sets or a
 * test runner would (reads by node itself, the tests and the runner pass). */
function envTripwire() {
  const real = process.env;
  const named = (key) => typeof key === 'string' && apply(regexTest, GRADER_ENV, [key]);
  const onGet = function get(target, key) {
    if (named(key)) sniff(`the environment variable ${stringOf(key)}`, onGet);
    return reflectGet(target, key);
  };
  const onHas = function has(target, key) {
    if (named(key)) sniff(`the environment variable ${stringOf(key)}`, onHas);
    return reflectHas(target, key);
  };
  process.env = new Proxy(real, { get: onGet, has: onHas });
}

const recorder = expectations([globalThis]);
tripwire(globalThis, 'bouts_expect', recorder.bouts_expect);
if (observations !== undefined) tripwire(globalThis, '__bouts', observations);
envTripwire();
const note = arm(nonce, resultFd, check, recorder.peek);
nonce = '';

// A rejection nobody handled — also one that surfaces after its test already passed — is a
// stability warning (SPEC §1). node:test keeps its own handler; this one only observes.
process.on('unhandledRejection', (reason) => {
  const what = reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason);
  note(`UnhandledPromiseRejection: ${what.split('\n')[0]}`);
});
