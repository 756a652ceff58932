import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLimiter } from '../../src/limiter.mjs';

function clock(start = 0) {
  const c = { t: start, now: () => c.t };
  return c;
}

test('allows up to the limit', () => {
  const c = clock();
  const lim = createLimiter({ limit: 3, windowMs: 1000, now: c.now });
  assert.deepEqual([1, 2, 3].map(() => lim.hit('a').allowed), [true, true, true]);
});

test('blocks the hit after the limit', () => {
  const c = clock();
  const lim = createLimiter({ limit: 2, windowMs: 1000, now: c.now });
  lim.hit('a');
  lim.hit('a');
  const third = lim.hit('a');
  assert.equal(third.allowed, false);
  assert.equal(third.remaining, 0);
});

test('remaining counts down', () => {
  const c = clock();
  const lim = createLimiter({ limit: 3, windowMs: 1000, now: c.now });
  assert.deepEqual([lim.hit('k').remaining, lim.hit('k').remaining, lim.hit('k').remaining], [2, 1, 0]);
});

test('hits expire after the window', () => {
  const c = clock();
  const lim = createLimiter({ limit: 1, windowMs: 1000, now: c.now });
  assert.equal(lim.hit('a').allowed, true);
  c.t = 1000;
  assert.equal(lim.hit('a').allowed, true);
});

test('keys are independent', () => {
  const c = clock();
  const lim = createLimiter({ limit: 1, windowMs: 1000, now: c.now });
  assert.equal(lim.hit('a').allowed, true);
  assert.equal(lim.hit('b').allowed, true);
  assert.equal(lim.hit('a').allowed, false);
});
