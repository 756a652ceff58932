/**
 * A sliding-window rate limiter: at most `limit` hits per key in any `windowMs` milliseconds.
 *
 * A hit made at time t0 stops counting at t0 + windowMs exactly. Keys live in a Map (any string
 * is a key, "__proto__" and "constructor" included); a key whose hits have all expired is dropped
 * on its next use or by prune(), so memory follows the active keys only.
 *
 * @param {{limit: number, windowMs: number, now?: () => number}} options
 */
export function createLimiter({ limit, windowMs, now = () => Date.now() } = {}) {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
  if (!Number.isFinite(windowMs) || windowMs <= 0) throw new RangeError('windowMs must be a positive number');
  if (typeof now !== 'function') throw new TypeError('now must be a function');
  const hits = new Map();

  function live(key, t) {
    const list = hits.get(key);
    if (!list) return [];
    while (list.length && list[0] <= t - windowMs) list.shift();
    if (!list.length) hits.delete(key);
    return list;
  }

  return {
    /**
     * Record a hit for `key` if it is allowed.
     * @param {string} key
     * @returns {{allowed: boolean, remaining: number, retryAfterMs: number}}
     */
    hit(key) {
      if (typeof key !== 'string') throw new TypeError('key must be a string');
      const t = now();
      const list = live(key, t);
      if (list.length >= limit) {
        return { allowed: false, remaining: 0, retryAfterMs: Math.max(0, list[0] + windowMs - t) };
      }
      list.push(t);
      hits.set(key, list);
      return { allowed: true, remaining: limit - list.length, retryAfterMs: 0 };
    },
    /** Forget every hit of `key`. @param {string} key */
    reset(key) {
      hits.delete(key);
    },
    /** How many keys are tracked. */
    size() {
      return hits.size;
    },
    /** Drop every key whose hits have all expired; returns how many were dropped. */
    prune() {
      const t = now();
      let dropped = 0;
      for (const key of [...hits.keys()]) {
        if (!live(key, t).length) dropped += 1;
      }
      return dropped;
    },
  };
}
