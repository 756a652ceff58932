/**
 * A sliding-window rate limiter: at most `limit` hits per key in any `windowMs` milliseconds.
 *
 * @param {{limit: number, windowMs: number, now?: () => number}} options
 */
export function createLimiter({ limit, windowMs, now = () => Date.now() } = {}) {
  // A Map, not a plain object: "constructor" or "__proto__" must be ordinary keys.
  const hits = new Map();
  return {
    /**
     * Record a hit for `key` if it is allowed.
     * @param {string} key
     * @returns {{allowed: boolean, remaining: number, retryAfterMs: number}}
     */
    hit(key) {
      const t = now();
      const list = hits.get(key) ?? [];
      hits.set(key, list);
      // A hit made exactly windowMs ago has expired.
      while (list.length && list[0] <= t - windowMs) list.shift();
      if (list.length >= limit) {
        return { allowed: false, remaining: 0, retryAfterMs: list[0] + windowMs - t };
      }
      list.push(t);
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
  };
}
