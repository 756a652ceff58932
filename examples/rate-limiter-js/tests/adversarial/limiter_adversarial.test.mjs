import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLimiter } from '../../src/limiter.mjs';

const fixed = () => 0;

// @severity critical
test('a "__proto__" key is an ordinary key', () => {
  const lim = createLimiter({ limit: 1, windowMs: 1000, now: fixed });
  assert.equal(lim.hit('__proto__').allowed, true);
  assert.equal(lim.hit('__proto__').allowed, false);
  assert.equal(lim.hit('other').allowed, true);
});

// @severity high
test('a "constructor" key is an ordinary key', () => {
  const lim = createLimiter({ limit: 2, windowMs: 1000, now: fixed });
  assert.equal(lim.hit('constructor').remaining, 1);
});

// @severity medium
test('a non-positive or fractional limit is refused', () => {
  for (const limit of [0, -1, 1.5, NaN, undefined, '3']) {
    assert.throws(() => createLimiter({ limit, windowMs: 1000 }), RangeError);
  }
});

// @severity medium
test('a non-positive window is refused', () => {
  for (const windowMs of [0, -5, NaN, Infinity]) {
    assert.throws(() => createLimiter({ limit: 1, windowMs }), RangeError);
  }
});

// @severity low
test('a non-string key is refused', () => {
  const lim = createLimiter({ limit: 1, windowMs: 1000, now: fixed });
  for (const key of [undefined, null, 1, {}, ['a']]) {
    assert.throws(() => lim.hit(key), TypeError);
  }
});

// @severity low
test('a clock that goes backwards never yields a negative retryAfterMs', () => {
  let t = 1000;
  const lim = createLimiter({ limit: 1, windowMs: 100, now: () => t });
  lim.hit('a');
  t = 0;
  const res = lim.hit('a');
  assert.ok(res.retryAfterMs >= 0);
});
