import { test } from 'node:test';
import assert from 'node:assert/strict';
import { slugify } from '../../src/slug.ts';

// Visible tests: what the agent sees. The editors' other rules are in the hidden tests.

// @behaviour readable
test('words become lowercase and hyphenated', () => {
  assert.equal(slugify('Hello World'), 'hello-world');
});

// @behaviour unique
test('a taken slug gets a number', () => {
  assert.equal(slugify('Hello World', new Set(['hello-world'])), 'hello-world-2');
});
