import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLimiter } from '../../src/limiter.mjs';

function clock(start = 0) {
  const c = { t: start, now: () => c.t };
  return c;
}

// A small seeded generator: hidden tests run with the published seed and with a fresh one.
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => ((s = (s * 1103515245 + 12345) >>> 0) % 1000) / 1000;
}
const seed = Number(process.env.BOUTS_SEED ?? 1234);

test('allows exactly the limit for other limits', () => {
  for (const limit of [1, 5, 17]) {
    const lim = createLimiter({ limit, windowMs: 50, now: clock().now });
    const allowed = Array.from({ length: limit + 3 }, () => lim.hit('x').allowed).filter(Boolean).length;
    assert.equal(allowed, limit);
  }
});

test('the limit holds for a seeded burst of keys', () => {
  const r = rng(seed);
  const lim = createLimiter({ limit: 4, windowMs: 1000, now: clock().now });
  const counts = new Map();
  for (let i = 0; i < 500; i += 1) {
    const key = `k${Math.floor(r() * 20)}`;
    if (lim.hit(key).allowed) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const n of counts.values()) assert.ok(n <= 4);
});

test('blocked hits do not extend the window', () => {
  const c = clock();
  const lim = createLimiter({ limit: 1, windowMs: 100, now: c.now });
  lim.hit('a');
  c.t = 50;
  assert.equal(lim.hit('a').allowed, false);
  c.t = 100;
  assert.equal(lim.hit('a').allowed, true);
});

test('retryAfterMs says when the oldest hit expires', () => {
  const c = clock(1000);
  const lim = createLimiter({ limit: 2, windowMs: 300, now: c.now });
  lim.hit('a');
  c.t = 1100;
  lim.hit('a');
  c.t = 1250;
  assert.equal(lim.hit('a').retryAfterMs, 50);
});

test('a hit exactly windowMs old no longer counts', () => {
  const c = clock();
  const lim = createLimiter({ limit: 2, windowMs: 10, now: c.now });
  lim.hit('a');
  c.t = 5;
  lim.hit('a');
  c.t = 10;
  const res = lim.hit('a');
  assert.equal(res.allowed, true);
  assert.equal(res.remaining, 0);
});

test('remaining for a seeded limit', () => {
  const limit = 2 + Math.floor(rng(seed)() * 8);
  const lim = createLimiter({ limit, windowMs: 1000, now: clock().now });
  const seen = Array.from({ length: limit }, () => lim.hit('z').remaining);
  assert.deepEqual(seen, Array.from({ length: limit }, (_, i) => limit - 1 - i));
});

test('reset forgets one key only', () => {
  const lim = createLimiter({ limit: 1, windowMs: 1000, now: clock().now });
  lim.hit('a');
  lim.hit('b');
  lim.reset('a');
  assert.equal(lim.hit('a').allowed, true);
  assert.equal(lim.hit('b').allowed, false);
});

test('10,000 keys each get their own budget', () => {
  const lim = createLimiter({ limit: 2, windowMs: 1000, now: clock().now });
  let allowed = 0;
  for (let i = 0; i < 10000; i += 1) {
    for (let j = 0; j < 3; j += 1) if (lim.hit(`user-${i}`).allowed) allowed += 1;
  }
  assert.equal(allowed, 20000);
});

test('expired keys are dropped on their next use', () => {
  const c = clock();
  const lim = createLimiter({ limit: 1, windowMs: 10, now: c.now });
  lim.hit('a');
  c.t = 100;
  lim.hit('a');
  assert.equal(lim.size(), 1);
});

test('prune drops keys whose hits all expired', () => {
  const c = clock();
  const lim = createLimiter({ limit: 3, windowMs: 10, now: c.now });
  for (let i = 0; i < 50; i += 1) lim.hit(`k${i}`);
  c.t = 10;
  assert.equal(typeof lim.prune, 'function');
  assert.equal(lim.prune(), 50);
  assert.equal(lim.size(), 0);
});
