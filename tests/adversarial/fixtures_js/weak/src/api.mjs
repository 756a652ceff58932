// Planted weaknesses for the JavaScript analyser and generator (line numbers are asserted).
import { readFileSync } from 'node:fs';

export function pick(items, i) {
  return items[i].name;
}

export const shout = (s) => s.toUpperCase();

export function stars(n) {
  return '*'.repeat(n);
}

export function firstWord(text) {
  const m = text.match(/\w+/);
  return m[0];
}

export class Store {
  constructor(prices) {
    this.prices = new Map(Object.entries(prices ?? {}));
  }

  price(key) {
    return this.prices.get(key).amount;
  }
}

export function readConf(name) {
  return readFileSync(name, 'utf8');
}
