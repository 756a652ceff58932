// The test process's half of externalised assertions (docs/javascript.md, "Decided on the host").
//
// The host rewrote every assertion of the test files into an observation: `__bouts.v(k, () => [A])`
// hands this module the submission's values, never an expected value or a comparison; the host
// decides. This module only encodes what it is handed and writes it, one line per observation, to
// the private result fd, stamped with the process's nonce.
//
// Everything here is captured when the preload imports this module, before any submission code
// exists in the process, and the encoder reaches values only through those captures: own property
// descriptors (never a getter, never `toJSON`, `valueOf`, `Symbol.toPrimitive` or an inherited
// property), primitive concatenation and `JSON.stringify` of primitive strings (which looks nothing
// up). A submission that rewrites `Object.prototype`, `Array.prototype`, `Error.prototype`, streams
// or `JSON` changes nothing this module reads.
import { writeSync } from 'node:fs';
import assert from 'node:assert';
import { types } from 'node:util';

const write = writeSync;
const quote = JSON.stringify; // only ever called on a primitive string: no toJSON lookup
const apply = Reflect.apply;
const ownKeys = Reflect.ownKeys;
const getProto = Object.getPrototypeOf;
const getOwn = Object.getOwnPropertyDescriptor;
const hasOwn = Object.hasOwn;
const objectIs = Object.is;
const isArray = Array.isArray;
const freeze = Object.freeze;
const defineProperty = Object.defineProperty;
const { isProxy, isMap, isSet, isDate, isNativeError, isBoxedPrimitive, isPromise } = types;
const mapForEach = Map.prototype.forEach;
const setForEach = Set.prototype.forEach;
const setHas = Set.prototype.has;
const setAdd = Set.prototype.add;
const SetCtor = Set;
const dateTime = Date.prototype.getTime;
const PromiseCtor = Promise;
const symbolDescription = getOwn(Symbol.prototype, 'description').get;
// The plain-data prototypes: this realm's, and (jest) the test realm's, added by `observer` before
// any submission code exists there. Index loops over arrays only this module holds.
const OBJECT_PROTOS = [Object.prototype];
const ARRAY_PROTOS = [Array.prototype];
function member(list, p) {
  for (let i = 0; i < list.length; i += 1) if (list[i] === p) return true;
  return false;
}
// The builtin error classes by prototype identity: a submission's own `class RangeError` is not one.
const BUILTIN_ERRORS = [];
for (const E of [Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError, AggregateError]) {
  BUILTIN_ERRORS[BUILTIN_ERRORS.length] = [E.prototype, E.name];
}
// The assertion functions as node built them, for the reference's golden run (which keeps the
// original assertions): a submission cannot reach the reference's process, but capturing costs nothing.
const ASSERT = {};
for (const key of ownKeys(assert)) {
  const d = getOwn(assert, key);
  if (typeof key === 'string' && d !== undefined && hasOwn(d, 'value') && typeof d.value === 'function') {
    ASSERT[key] = d.value;
  }
}
const MAX_DEPTH = 64;
const MAX_ITEMS = 100000;
const MAX_OBS = 50000;

function numberText(n) {
  if (n !== n) return '{"$n":"NaN"}';
  if (n === Infinity) return '{"$n":"Infinity"}';
  if (n === -Infinity) return '{"$n":"-Infinity"}';
  if (objectIs(n, -0)) return '{"$n":"-0"}';
  return '' + n;
}

/** The constructor names along `value`'s prototype chain, read from own data properties only. */
function chain(value) {
  let names = '';
  let builtin = '';
  let p = getProto(value);
  for (let i = 0; p !== null && i < 32; i += 1) {
    for (let j = 0; j < BUILTIN_ERRORS.length; j += 1) {
      if (BUILTIN_ERRORS[j][0] === p) builtin += (builtin === '' ? '' : ',') + quote(BUILTIN_ERRORS[j][1]);
    }
    const c = getOwn(p, 'constructor');
    let name = '?';
    if (c !== undefined && hasOwn(c, 'value') && typeof c.value === 'function' && !isProxy(c.value)) {
      const n = getOwn(c.value, 'name');
      if (n !== undefined && hasOwn(n, 'value') && typeof n.value === 'string') name = n.value;
    }
    names += (names === '' ? '' : ',') + quote(name);
    p = getProto(p);
  }
  return '"names":[' + names + '],"builtin":[' + builtin + ']';
}

/** Own enumerable string-keyed data properties as `"k":enc,...` (a getter is `$get`, never called). */
function ownEntries(value, state, depth) {
  const keys = ownKeys(value);
  let out = '';
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i];
    if (typeof key !== 'string') continue;
    const d = getOwn(value, key);
    if (d === undefined || d.enumerable !== true) continue;
    const text = hasOwn(d, 'value') ? encode(d.value, state, depth + 1) : '{"$get":1}';
    out += (out === '' ? '' : ',') + quote(key) + ':' + text;
  }
  return out;
}

function encode(value, state, depth) {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'undefined': return '{"$u":1}';
    case 'boolean': return value ? 'true' : 'false';
    case 'number': return numberText(value);
    case 'bigint': return '{"$big":' + quote('' + value) + '}';
    case 'string': return quote(value);
    case 'symbol': {
      const desc = apply(symbolDescription, value, []);
      return '{"$sym":' + (typeof desc === 'string' ? quote(desc) : 'null') + '}';
    }
    case 'function': return '{"$fn":1}';
    default: break;
  }
  if (depth > MAX_DEPTH || state.items > MAX_ITEMS) return '{"$cut":1}';
  state.items += 1;
  if (isProxy(value)) return '{"$proxy":1}';
  if (apply(setHas, state.seen, [value])) return '{"$cycle":1}';
  apply(setAdd, state.seen, [value]);
  const proto = getProto(value);
  if (isArray(value) && member(ARRAY_PROTOS, proto)) {
    let out = '';
    const n = getOwn(value, 'length').value;
    for (let i = 0; i < n && i < MAX_ITEMS; i += 1) {
      const d = getOwn(value, '' + i);
      const text = d === undefined ? '{"$hole":1}' : hasOwn(d, 'value') ? encode(d.value, state, depth + 1) : '{"$get":1}';
      out += (i === 0 ? '' : ',') + text;
    }
    return '[' + out + ']';
  }
  if (proto === null || member(OBJECT_PROTOS, proto)) {
    return '{"$o":{' + ownEntries(value, state, depth) + '}' + (proto === null ? ',"$null":1' : '') + '}';
  }
  if (isMap(value)) {
    let out = '';
    apply(mapForEach, value, [(v, k) => {
      out += (out === '' ? '' : ',') + '[' + encode(k, state, depth + 1) + ',' + encode(v, state, depth + 1) + ']';
    }]);
    return '{"$map":[' + out + '],' + chain(value) + '}';
  }
  if (isSet(value)) {
    let out = '';
    apply(setForEach, value, [(v) => { out += (out === '' ? '' : ',') + encode(v, state, depth + 1); }]);
    return '{"$set":[' + out + '],' + chain(value) + '}';
  }
  if (isDate(value)) return '{"$date":' + numberText(apply(dateTime, value, [])) + ',' + chain(value) + '}';
  if (isPromise(value)) return '{"$promise":1}';
  if (isBoxedPrimitive(value)) return '{"$boxed":1,' + chain(value) + '}';
  const own = ownEntries(value, state, depth);
  if (isNativeError(value)) {
    const m = getOwn(value, 'message');
    const message = m !== undefined && hasOwn(m, 'value') && typeof m.value === 'string' ? quote(m.value) : 'null';
    return '{"$err":{' + own + '},"message":' + message + ',' + chain(value) + '}';
  }
  return '{"$inst":{' + own + '},' + chain(value) + '}';
}

/** The JSON text of a value's encoding (exported for the tests). */
export function encodeValue(value) {
  return encode(value, { seen: new SetCtor(), items: 0 }, 0);
}

/**
 * The observation functions the rewritten test files call, bound to this process's result fd and
 * nonce. `check` (the reference's golden run, a run without a reference) also runs each original
 * assertion with node's own functions: a failure is recorded as the site's `raise`.
 */
export function observer(fd, nonce, check, realm, prefix = '') {
  if (realm !== undefined) {
    // jest's test realm (a vm context): its builtins, read now, before the test file loads there.
    OBJECT_PROTOS[OBJECT_PROTOS.length] = realm.Object.prototype;
    ARRAY_PROTOS[ARRAY_PROTOS.length] = realm.Array.prototype;
    for (const name of ['Error', 'TypeError', 'RangeError', 'SyntaxError', 'ReferenceError', 'EvalError', 'URIError', 'AggregateError']) {
      BUILTIN_ERRORS[BUILTIN_ERRORS.length] = [realm[name].prototype, name];
    }
  }
  return freeze(observerParts(fd, nonce, check, prefix).api);
}

/** vitest/jest: the observer and, apart from it (never on the global), `begin(name)`: the test that
 * the observations after it belong to (one process runs a whole file). `prefix`: vitest's worker
 * writes its lines on stderr (which vitest relays), each after this marker. */
export function fileObserver(fd, nonce, check, realm, prefix = '') {
  const api = observer(fd, nonce, check, realm, prefix);
  const stamp = ',"nonce":' + quote(nonce) + '}\n';
  const begin = (name) => {
    write(fd, prefix + '{"type":"obs","begin":' + quote(typeof name === 'string' ? name : '') + stamp);
  };
  return { api, begin };
}

function observerParts(fd, nonce, check, prefix) {
  let count = 0;
  const stamp = ',"nonce":' + quote(nonce) + '}\n';
  function emit(site, field, text) {
    count += 1;
    if (count > MAX_OBS) {
      if (count === MAX_OBS + 1) write(fd, prefix + '{"type":"obs","site":-1,"overflow":1' + stamp);
      return;
    }
    write(fd, prefix + '{"type":"obs","site":' + numberText(site) + ',"' + field + '":' + text + stamp);
  }
  function raised(site, err) {
    emit(site, 'raise', encodeValue(err));
  }
  /** The encoding of `values` (the operands the thunk returned), or of those at `picked` only. */
  function operands(values, picked) {
    if (picked === undefined) return encodeValue(values);
    const state = { seen: new SetCtor(), items: 0 };
    let out = '';
    for (let i = 0; i < picked.length; i += 1) out += (i === 0 ? '' : ',') + encode(values[picked[i]], state, 1);
    return '[' + out + ']';
  }
  /** A checked site: `thunk` returns the operands, evaluated once. Graded runs: only the observed
   * ones. Checked runs: all of them (message included), `picked` the observed ones' positions, and
   * the original assertion `method` runs on them with node's own function; its failure is recorded. */
  function v(site, thunk, method, picked) {
    let values;
    try {
      values = thunk();
    } catch (err) {
      raised(site, err);
      throw err;
    }
    emit(site, 'v', operands(values, picked));
    if (check && method !== undefined) assertWith(site, method, values);
  }
  function assertWith(site, method, values) {
    try {
      // okcmp: `assert.ok(l op r)` observed as [l, r, l op r]; the assertion is on the comparison.
      if (method === 'okcmp') apply(ASSERT.ok, undefined, [values[2]]);
      else apply(ASSERT[method], undefined, values);
    } catch (err) {
      raised(site, err);
      throw err;
    }
  }
  /** The same, for operands that hold an `await`: `thunk` is async. */
  async function va(site, thunk, method, picked) {
    let values;
    try {
      values = await thunk();
    } catch (err) {
      raised(site, err);
      throw err;
    }
    emit(site, 'v', operands(values, picked));
    if (check && method !== undefined) assertWith(site, method, values);
  }
  /** `assert.throws(fn, ...)`: what `fn` raised (or that it returned). */
  function t(site, fn, rest) {
    let thrown = false;
    let error;
    try {
      fn();
    } catch (err) {
      thrown = true;
      error = err;
    }
    emit(site, thrown ? 'threw' : 'returned', thrown ? encodeValue(error) : '1');
    if (!check) return;
    const more = rest(); // an array literal of the test's: own elements, read by index (no iterator)
    assertWith(site, 'throws', [() => { if (thrown) throw error; }, more[0], more[1]]);
  }
  /** `await assert.rejects(p, ...)`: how the promise (or the promise the function returns) settled. */
  async function r(site, target, rest) {
    let thrown = false;
    let error;
    try {
      await (typeof target === 'function' ? target() : target);
    } catch (err) {
      thrown = true;
      error = err;
    }
    emit(site, thrown ? 'threw' : 'returned', thrown ? encodeValue(error) : '1');
    if (!check) return;
    try {
      const more = rest();
      await apply(ASSERT.rejects, undefined, [() => (thrown ? PromiseCtor.reject(error) : PromiseCtor.resolve()), more[0], more[1]]);
    } catch (err) {
      raised(site, err);
      throw err;
    }
  }
  /** A plain call in a test's body: holds unless it raised. */
  function p(site, thunk) {
    try {
      return thunk();
    } catch (err) {
      raised(site, err);
      throw err;
    }
  }
  /** An awaited plain call. */
  async function pa(site, thunk) {
    try {
      return await thunk();
    } catch (err) {
      raised(site, err);
      throw err;
    }
  }
  /** The test's body reached its end. */
  function e(site) {
    emit(site, 'end', '1');
  }
  /** An `expect(...)` matcher (checked runs): the operands observed (`picked`), then the original
   * matcher run on them by `checker` (vitest's or jest's, built by the host's rewrite). */
  function x(site, thunk, picked, checker) {
    let values;
    try {
      values = thunk();
    } catch (err) {
      raised(site, err);
      throw err;
    }
    emit(site, 'v', operands(values, picked));
    try {
      return checker(values);
    } catch (err) {
      raised(site, err);
      throw err;
    }
  }
  async function xa(site, thunk, picked, checker) {
    let values;
    try {
      values = await thunk();
    } catch (err) {
      raised(site, err);
      throw err;
    }
    emit(site, 'v', operands(values, picked));
    try {
      return await checker(values);
    } catch (err) {
      raised(site, err);
      throw err;
    }
  }
  /** `expect(fn).toThrow(...)` (checked runs): how `fn` ended, then the matcher on a replay of it. */
  function tx(site, fn, checker) {
    let thrown = false;
    let error;
    try {
      fn();
    } catch (err) {
      thrown = true;
      error = err;
    }
    emit(site, thrown ? 'threw' : 'returned', thrown ? encodeValue(error) : '1');
    try {
      return checker(() => { if (thrown) throw error; });
    } catch (err) {
      raised(site, err);
      throw err;
    }
  }
  /** `expect(p).rejects...` (checked runs): how the promise settled, then the matcher on a copy. */
  async function rx(site, target, checker) {
    let thrown = false;
    let error;
    let value;
    try {
      value = await (typeof target === 'function' ? target() : target);
    } catch (err) {
      thrown = true;
      error = err;
    }
    emit(site, thrown ? 'threw' : 'returned', thrown ? encodeValue(error) : '1');
    try {
      return await checker(thrown ? PromiseCtor.reject(error) : PromiseCtor.resolve(value));
    } catch (err) {
      raised(site, err);
      throw err;
    }
  }
  return { api: { v, va, t, r, p, pa, e, x, xa, tx, rx } };
}

/** Install the observer as the read-only global the rewritten tests call. */
export function installObserver(global, obs) {
  defineProperty(global, '__bouts', { value: obs, writable: false, configurable: false, enumerable: false });
}
