/**
 * A sliding-window rate limiter: at most `limit` hits per key in any `windowMs` milliseconds.
 *
 * @param {{limit: number, windowMs: number, now?: () => number}} options
 */
export function createLimiter({ limit, windowMs, now = () => Date.now() } = {}) {
  const hits = {};
  return {
    /**
     * Record a hit for `key` if it is allowed.
     * @param {string} key
     * @returns {{allowed: boolean, remaining: number, retryAfterMs: number}}
     */
    hit(key) {
      const t = now();
      const list = (hits[key] = hits[key] || []);
      while (list.length && list[0] < t - windowMs) list.shift();
      if (list.length > limit) {
        return { allowed: false, remaining: 0, retryAfterMs: list[0] + windowMs - t };
      }
      list.push(t);
      return { allowed: true, remaining: limit - list.length, retryAfterMs: 0 };
    },
    /** Forget every hit of `key`. @param {string} key */
    reset(key) {
      delete hits[key];
    },
    /** How many keys are tracked. */
    size() {
      return Object.keys(hits).length;
    },
  };
}
