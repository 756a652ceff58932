// Runtime of the generated JavaScript adversarial tests, embedded verbatim at the top of every
// generated file (after the node:test imports). It runs INSIDE the sandbox, next to the
// submission's code, never in the engine's process; it imports only node's own modules. The
// graceful-failure rule it applies is written down in docs/adversarial.md ("JavaScript").

import { readFileSync as __readFileSync } from 'node:fs';
import * as __path from 'node:path';
import { fileURLToPath as __fileURLToPath, pathToFileURL as __pathToFileURL } from 'node:url';

// The generated file lives at <root>/tests/generated/test_*.mjs; <root> holds the submission.
const ROOT = __path.resolve(__path.dirname(__fileURLToPath(import.meta.url)), '..', '..');
const TESTS = __path.join(ROOT, 'tests');

/** mulberry32: a small seeded PRNG (deterministic, no dependency). */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Empty, boundary, unicode, missing and wrong-typed values, tried before the random sample. */
function boundary(textOnly) {
  const text = ['', ' ', '0', '-1', 'NaN', '__proto__', 'constructor', 'toString', '\u0000', 'é', '\u{1F642}',
    '\u202e\u202e\u202e', 'Ω'.repeat(10000), '../../etc/passwd'];
  if (textOnly) return text;
  return [undefined, null, NaN, Infinity, -Infinity, -1, 0, -0, 1, 2 ** 31 - 1, 2 ** 53, -(2 ** 53), 1e308, 0.5,
    ...text, true, false, [], {}, [1, 2, 3], { length: -1 }, ['a'], { a: 1 }];
}

const ALPHABET = [...'aZ09 ._-/:@\\\'"%\u0000\téΩß\u202e\u{1F642}'];

function randomValue(rand, textOnly) {
  const str = () => {
    const n = Math.floor(rand() * 41);
    let s = '';
    for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(rand() * ALPHABET.length)];
    return s;
  };
  if (textOnly) return str();
  const int = () => Math.floor((rand() - 0.5) * 2 ** Math.floor(rand() * 54));
  switch (Math.floor(rand() * 9)) {
    case 0: return rand() < 0.5 ? null : undefined;
    case 1: return rand() < 0.5;
    case 2: case 3: return int();
    case 4: return (rand() - 0.5) * 10 ** Math.floor(rand() * 20);
    case 5: case 6: return str();
    case 7: return Array.from({ length: Math.floor(rand() * 4) }, int);
    default: return rand() < 0.5 ? { a: int() } : { b: str() };
  }
}

function show(value) {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…(${value.length})` : value);
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value).slice(0, 60);
  } catch {
    return String(value).slice(0, 60);
  }
}

function inSubmission(file) {
  const p = __path.resolve(file);
  return p.startsWith(ROOT + __path.sep) && !p.startsWith(TESTS + __path.sep)
    && !p.includes(`${__path.sep}node_modules${__path.sep}`);
}

const __lines = new Map();
function sourceLine(file, line) {
  if (!__lines.has(file)) {
    let lines = [];
    try {
      lines = __readFileSync(file, 'utf8').split('\n');
    } catch {
      // unreadable: no line can be a throw statement
    }
    __lines.set(file, lines);
  }
  return __lines.get(file)[line - 1] ?? '';
}

const FRAME = /^\s*at (?:(.*?) \()?((?:file:\/\/)?[^()\s]+?):(\d+):(\d+)\)?$/;

/** The stack's frames as [function name, file, line, column], or [name, null] for a native one. */
function frames(err) {
  const saved = Object.getOwnPropertyDescriptor(Error, 'prepareStackTrace');
  let stack = '';
  try {
    if (!saved || saved.configurable || saved.writable) Error.prepareStackTrace = undefined; // V8's own format
    stack = String(err.stack ?? '');
  } catch {
    stack = '';
  } finally {
    if (saved) Object.defineProperty(Error, 'prepareStackTrace', saved);
    else delete Error.prepareStackTrace;
  }
  return stack.split('\n').filter((l) => /^\s+at /.test(l)).map((l) => {
    const m = FRAME.exec(l);
    if (!m) return [l.trim().slice(3).split(' ')[0], null, 0, 0];
    const file = m[2].startsWith('file://') ? __fileURLToPath(m[2]) : m[2];
    return [m[1] ?? '', file, Number(m[3]), Number(m[4])];
  });
}

/** null when `err` is a deliberate validation error of the submission, else why it is not.
 *
 * Deliberate: an Error object whose stack's top frame (after the constructor frames of the
 * error's own class) is in the submission's code, at a `new X(...)` that a `throw` statement on
 * the same line throws. An error raised by the engine inside an operation (reading a property of
 * undefined, calling a non-function, an invalid array length, String.repeat with a bad count,
 * stack overflow) has a native top frame or one that is not a throw. */
function ungraceful(err) {
  if (!(err instanceof Error) && Object.prototype.toString.call(err) !== '[object Error]') {
    return `threw a non-Error value (${show(err)})`;
  }
  const name = String(err.name ?? 'Error');
  const message = String(err.message ?? '').slice(0, 200);
  const owners = new Set();
  for (let c = err.constructor; typeof c === 'function' && owners.size < 20; c = Object.getPrototypeOf(c)) {
    if (c.name) owners.add(`new ${c.name}`);
  }
  const all = frames(err);
  let i = 0;
  while (i < all.length && owners.has(all[i][0]) && all[i][1] && inSubmission(all[i][1])) i += 1;
  const top = all[i];
  if (!top) return `${name}: ${message} with no stack frame`;
  const [fn, file, line, column] = top;
  if (!file) return `${name}: ${message} raised by the engine inside ${fn || 'a native function'}`;
  if (!inSubmission(file)) return `${name}: ${message} raised outside the submission's code (${file}:${line})`;
  const where = `${__path.relative(ROOT, file)}:${line}`;
  const before = sourceLine(file, line).slice(0, Math.max(0, column - 1));
  if (!/\bthrow\s*$/.test(before)) {
    return `${name}: ${message} raised from inside an operation at ${where}, not by a throw statement`;
  }
  return null;
}

const __modules = new Map();
async function load(file) {
  if (!__modules.has(file)) __modules.set(file, await import(__pathToFileURL(__path.join(ROOT, file)).href));
  return __modules.get(file);
}

function exported(mod, name) {
  if (name === 'default') return mod.default;
  if (name in mod) return mod[name];
  const d = mod.default;
  return d !== null && (typeof d === 'object' || typeof d === 'function') ? d[name] : undefined;
}

/** The callable of `spec`: a function, a method of a fresh `new C(...ctor)`, or a method of the
 * object a fresh `F(...ctor)` returns. A failing construction fails the test (it is called with
 * the visible tests' own arguments, or plain ones). */
async function build(spec) {
  const mod = await load(spec.file);
  const entry = spec.entry;
  const factory = entry.match(/^([^.]+)\(\)\.(.+)$/);
  const method = entry.match(/^([^.]+)\.(.+)$/);
  if (factory || method) {
    const [, owner, name] = factory || method;
    const make = exported(mod, owner);
    if (typeof make !== 'function') throw new Error(`${owner} is not exported by ${spec.file}`);
    const obj = factory ? await make(...spec.ctor) : new make(...spec.ctor);
    const fn = obj?.[name];
    if (typeof fn !== 'function') throw new Error(`${entry}: ${name} is not a method of the built object`);
    return (...args) => fn.apply(obj, args);
  }
  const fn = exported(mod, entry);
  if (typeof fn !== 'function') throw new Error(`${entry} is not exported by ${spec.file}`);
  return fn;
}

/** Call the entry with `value` at position `spec.index` (other arguments from `spec.args`),
 * boundary values first then `spec.samples` seeded random ones, each on a freshly built object:
 * a result or a deliberate error passes, anything else fails the test. */
async function probe(spec) {
  const rand = prng(spec.seed);
  const values = boundary(spec.textOnly);
  for (let i = 0; i < spec.samples; i++) values.push(randomValue(rand, spec.textOnly));
  for (const value of values) {
    const args = [...spec.args];
    args[spec.index] = value;
    const fn = await build(spec);
    try {
      await fn(...args);
    } catch (err) {
      const why = ungraceful(err);
      if (why !== null) {
        throw new Error(`${why}; called ${spec.entry}(${args.map(show).join(', ')})`);
      }
    }
  }
}
