import { test } from 'node:test';
import { slugify } from '../../src/slug.ts';

declare function bouts_expect(value: unknown): void;

// Hidden tests: the editors' rules the task states only in general terms. Values go through
// bouts_expect (compared with the reference's on the host); seeded titles draw from BOUTS_SEED and
// always start from fixed ones, so a rule is checked under every seed.

function rng(seed: number): (n: number) => number {
  let s = seed >>> 0 || 1;
  return (n: number) => (s = (s * 1103515245 + 12345) >>> 0) % n;
}
const seed = Number(process.env.BOUTS_SEED ?? 1234);
const WORDS = ['Crème', 'brûlée', 'for', 'the', 'Über', 'señor', 'rock', '&', 'roll!', '2024', 'año', 'naïve', '--', 'café'];

function title(r: (n: number) => number, words: number): string {
  return Array.from({ length: words }, () => WORDS[r(WORDS.length)]).join(r(2) ? ' ' : '  ');
}

// @behaviour readable
test('punctuation and runs of separators become one hyphen', () => {
  bouts_expect(['Rock & Roll!!', '  --Hello,   World--  ', 'C++ / Rust: a_tale'].map((t) => slugify(t)));
});

// @behaviour readable
test('accents are folded to their base letter', () => {
  bouts_expect(['Crème Brûlée', 'Über naïve señor', 'Ångström café'].map((t) => slugify(t)));
});

// @behaviour readable
test('long titles are cut at a word boundary', () => {
  const long = 'The quick brown fox jumps over the lazy dog and keeps running far away';
  bouts_expect([slugify(long), slugify('a'.repeat(70)), slugify('word '.repeat(20))]);
});

// @behaviour readable
test('a title with nothing left is untitled', () => {
  bouts_expect(['', '!!!', '   ', '日本語'].map((t) => slugify(t)));
});

// @behaviour readable
test('seeded titles', () => {
  const r = rng(seed);
  bouts_expect(['Crème Brûlée for the Über señor and the rock & roll café crowd', ...Array.from({ length: 40 }, () => title(r, 1 + r(12)))].map((t) => slugify(t)));
});

// @behaviour unique
test('the first free number is used', () => {
  const taken = new Set(['news', 'news-2', 'news-3', 'news-5']);
  bouts_expect([slugify('News', taken), slugify('News!', new Set(['news-2'])), slugify('Other', taken)]);
});

// @behaviour unique
test('uniqueness applies to the cleaned slug', () => {
  const taken = new Set(['creme-brulee', 'untitled']);
  bouts_expect([slugify('Crème  Brûlée', taken), slugify('???', taken)]);
});

// @behaviour unique
test('seeded taken sets', () => {
  const r = rng(seed + 7);
  const taken = new Set<string>(['cafe', 'cafe-2']);
  const out: string[] = [];
  for (let i = 0; i < 60; i += 1) {
    const s = slugify(title(r, 1 + r(3)), taken);
    out.push(s);
    taken.add(s);
  }
  out.push(slugify('Café', taken));
  bouts_expect(out);
});
