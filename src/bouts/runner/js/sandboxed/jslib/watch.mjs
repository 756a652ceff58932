// The identity of the machinery a forger would replace, snapshotted before any submission code
// exists in the process and compared when each test ends (a changed entry on a passed test voids
// the run). Detection, not prevention: see docs/javascript.md, "Threat model".
const is = Object.is;

/** [name, value] pairs of builtins of one realm (a global object) that verdicts depend on. */
export function builtins(g, label = '') {
  const out = [];
  const add = (name, value) => out.push([label + name, value]);
  add('Object.is', g.Object.is);
  add('Object.keys', g.Object.keys);
  add('Object.defineProperty', g.Object.defineProperty);
  add('JSON.stringify', g.JSON.stringify);
  add('Error.captureStackTrace', g.Error.captureStackTrace);
  add('Promise.prototype.then', g.Promise.prototype.then);
  add('Function.prototype.call', g.Function.prototype.call);
  add('Function.prototype.apply', g.Function.prototype.apply);
  add('Reflect.apply', g.Reflect.apply);
  add('Array.prototype.join', g.Array.prototype.join);
  add('String.prototype.split', g.String.prototype.split);
  return out;
}

/** [name, value] pairs of the process object's exits and event plumbing. */
export function processMachinery(proc) {
  return [
    ['process.exit', proc.exit], ['process.reallyExit', proc.reallyExit], ['process.emit', proc.emit],
    ['process.emitWarning', proc.emitWarning],
  ];
}

/** Every function (value or getter) defined on `obj` itself, as [name, value] pairs. */
export function ownFunctions(obj, label) {
  const out = [];
  if (obj === null || obj === undefined) return out;
  for (const key of Object.getOwnPropertyNames(obj)) {
    const d = Object.getOwnPropertyDescriptor(obj, key);
    if (typeof d?.value === 'function') out.push([`${label}.${key}`, d.value]);
    else if (typeof d?.get === 'function') out.push([`${label}.${key} (getter)`, d.get]);
  }
  return out;
}

/**
 * Freeze a baseline now; the returned `check(current)` lists the names whose value changed, were
 * added or went missing, given the same kind of list taken later.
 */
export function baseline(list) {
  const names = list.map(([n]) => n);
  const values = new Map(list);
  return (now) => {
    const changed = [];
    const seen = new Set();
    for (const [name, value] of now) {
      seen.add(name);
      if (!values.has(name)) changed.push(`${name} (added)`);
      else if (!is(values.get(name), value)) changed.push(name);
    }
    for (const name of names) if (!seen.has(name)) changed.push(`${name} (removed)`);
    return changed.slice(0, 20);
  };
}
