import { test } from 'node:test';
import assert from 'node:assert/strict';
import { slugify } from '../../src/slug.ts';

// Pre-built adversarial tests, each with a severity (critical 5, high 3, medium 2, low 1).

// @severity high
test('only letters, digits and single hyphens come out', () => {
  for (const t of ['<script>alert(1)</script>', '../../etc/passwd', 'a\u0000b', 'tab\there', 'x%2F%2Fy', 'emoji 🎉 party']) {
    assert.match(slugify(t), /^[a-z0-9]+(-[a-z0-9]+)*$/);
  }
});

// @severity high
test('a very long title stays within the limit', () => {
  assert.ok(slugify('word '.repeat(5000)).length <= 40);
});

// @severity medium
test('a title that is not a string is refused', () => {
  assert.throws(() => slugify(42 as unknown as string), TypeError);
});

// @severity low
test('a slug taken fifty times over gets the next number', () => {
  const taken = new Set(['a', ...Array.from({ length: 50 }, (_, i) => `a-${i + 2}`)]);
  assert.equal(slugify('A', taken), 'a-52');
});
