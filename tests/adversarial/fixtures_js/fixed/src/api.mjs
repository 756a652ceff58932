// The same API as ../weak, each input validated by a deliberate throw.
import { readFileSync } from 'node:fs';

function need(ok, message) {
  if (!ok) throw new TypeError(message);
}

export function pick(items, i) {
  need(Array.isArray(items), 'items must be an array');
  if (!Number.isInteger(i) || i < 0 || i >= items.length) throw new RangeError('i out of range');
  return items[i]?.name;
}

export const shout = (s) => {
  if (typeof s !== 'string') throw new TypeError('s must be a string');
  return s.toUpperCase();
};

export function stars(n) {
  if (!Number.isInteger(n) || n < 0 || n > 1000) throw new RangeError('n must be an integer in [0, 1000]');
  return '*'.repeat(n);
}

class BadInput extends Error {}

export function firstWord(text) {
  if (typeof text !== 'string') throw new BadInput('text must be a string');
  const m = text.match(/\w+/);
  return m ? m[0] : '';
}

export class Store {
  constructor(prices) {
    this.prices = new Map(Object.entries(prices ?? {}));
  }

  price(key) {
    const item = this.prices.get(key);
    if (item === undefined) throw new RangeError('unknown key');
    return item.amount;
  }
}

export function readConf(name) {
  if (typeof name !== 'string' || !/^[a-z]+$/.test(name)) throw new TypeError('bad name');
  try {
    return readFileSync(new URL(`./${name}.json`, import.meta.url), 'utf8');
  } catch {
    return null;
  }
}
