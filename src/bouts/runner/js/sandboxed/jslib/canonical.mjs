// bouts_expect for JavaScript tests: values compared by a canonical text built by exact type
// checks, and recorded as sha256 digests the host compares with the reference solution's.
//
// Why exact types (as in the Python runner, docs/sandbox.md): an object whose comparison always
// answers "equal" — a Proxy, a getter that changes its answer, a class with a lying valueOf —
// is not plain data and cannot be compared. Why digests: `bouts_expect(actual)` without an
// expected value records only the digest, so the expected value of a hidden test is nowhere in
// the sandbox; a forged report cannot name the right digests without computing the right answers.
import { createHash } from 'node:crypto';
import { types } from 'node:util';

// Captured when the runner loads this module, before any submission code exists in the process.
const isProxy = types.isProxy;
const { getPrototypeOf, getOwnPropertyDescriptor, is, hasOwn } = Object;
const setHas = Set.prototype.has;
const has = (set, value) => apply(setHas, set, [value]);
const { ownKeys, apply } = Reflect;
const isArray = Array.isArray;
const sort = Array.prototype.sort;
const join = Array.prototype.join;
const stringify = JSON.stringify;
const hash = (text) => createHash('sha256').update(text, 'utf8').digest('hex');
const mapEntries = Map.prototype.entries;
const setValues = Set.prototype.values;

const MAX_DEPTH = 100;

/** The prototypes that make a value plain data, for each realm (jest runs tests in a vm context). */
function prototypesOf(realms) {
  const out = { object: new Set([null]), array: new Set(), map: new Set(), set: new Set() };
  for (const g of realms) {
    out.object.add(g.Object.prototype);
    out.array.add(g.Array.prototype);
    out.map.add(g.Map.prototype);
    out.set.add(g.Set.prototype);
  }
  return out;
}

function refuse(what) {
  throw new TypeError(`bouts_expect: cannot compare ${what}: return plain data`);
}

function canonical(value, protos, depth) {
  if (depth > MAX_DEPTH) throw new TypeError('bouts_expect: value nested too deeply to compare');
  if (value === null) return 'null';
  switch (typeof value) {
    case 'undefined': return 'undefined';
    case 'boolean': return value ? 'true' : 'false';
    // Raw NaN/Infinity (outside JSON) cannot collide with the strings "NaN"/"Infinity".
    case 'number': return is(value, -0) ? '-0' : `${value}`;
    case 'bigint': return `${value}n`;
    case 'string': return stringify(value);
    case 'object': break;
    default: refuse(`a ${typeof value}`);
  }
  if (isProxy(value)) refuse('a Proxy');
  const proto = getPrototypeOf(value);
  const parts = [];
  if (isArray(value) && has(protos.array, proto)) {
    for (let i = 0; i < value.length; i += 1) {
      const d = getOwnPropertyDescriptor(value, i);
      if (d !== undefined && !hasOwn(d, 'value')) refuse('an array with a getter');
      parts[parts.length] = canonical(d === undefined ? undefined : d.value, protos, depth + 1);
    }
    return `[${apply(join, parts, [','])}]`;
  }
  if (has(protos.map, proto)) {
    for (const [k, v] of apply(mapEntries, value, [])) {
      parts[parts.length] = `${canonical(k, protos, depth + 1)}=>${canonical(v, protos, depth + 1)}`;
    }
    return `Map{${apply(join, apply(sort, parts, []), [','])}}`;
  }
  if (has(protos.set, proto)) {
    for (const v of apply(setValues, value, [])) parts[parts.length] = canonical(v, protos, depth + 1);
    return `Set{${apply(join, apply(sort, parts, []), [','])}}`;
  }
  if (!has(protos.object, proto)) refuse(`an instance of ${value?.constructor?.name ?? 'a class'}`);
  const keys = ownKeys(value);
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i];
    if (typeof key !== 'string') refuse('an object with symbol keys');
    const d = getOwnPropertyDescriptor(value, key);
    if (!hasOwn(d, 'value')) refuse(`an object with a getter ('${key}')`);
    if (d.enumerable) parts[parts.length] = `${stringify(key)}:${canonical(d.value, protos, depth + 1)}`;
  }
  return `{${apply(join, apply(sort, parts, []), [','])}}`;
}

/**
 * A recorder of one test process: `bouts_expect(actual[, expected])` and the digests it recorded.
 * `realms` are the global objects whose builtin prototypes count as plain data.
 */
export function expectations(realms = [globalThis]) {
  const protos = prototypesOf(realms);
  let digests = [];
  function bouts_expect(actual, ...expected) {
    const text = canonical(actual, protos, 0);
    digests[digests.length] = hash(text);
    if (expected.length > 0) {
      const want = canonical(expected[0], protos, 0);
      if (text !== want) {
        const err = new Error(`bouts_expect: got ${text.slice(0, 200)}, expected ${want.slice(0, 200)}`);
        err.name = 'AssertionError';
        throw err;
      }
    }
  }
  return {
    bouts_expect,
    /** The digests recorded since the last call (and forget them). */
    take() {
      const out = digests;
      digests = [];
      return out;
    },
    /** The digests recorded so far (kept). */
    peek() {
      return digests.slice();
    },
  };
}

/** Install `bouts_expect` on a global object, read-only: a test calls the runner's, never a replacement. */
export function install(global, fn) {
  Object.defineProperty(global, 'bouts_expect', { value: fn, writable: false, configurable: false, enumerable: false });
}

export const _canonical = (value, realms = [globalThis]) => canonical(value, prototypesOf(realms), 0);
