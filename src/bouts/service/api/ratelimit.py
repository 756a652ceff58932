"""Per-key rate limits: a token bucket per (bucket kind, caller) held in this process's memory.

A caller is its API key id, or its client address when it sends no key. Each bucket holds up to
``burst`` tokens and refills at ``rate_per_minute``; a request takes one token or is refused with
429 and a ``Retry-After``. With several API processes each keeps its own buckets, so the effective
limit is multiplied by their number (documented in ``docs/service.md``).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

_MAX_BUCKETS = 50_000


class TokenBuckets:
    def __init__(self, rate_per_minute: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate_per_minute / 60.0
        self.burst = float(max(1, burst))
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, caller: str) -> float:
        """Take a token for ``caller``: 0.0 if allowed, else the seconds until one is available."""
        now = self.clock()
        with self._lock:
            tokens, last = self._buckets.get(caller, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                self._buckets[caller] = (tokens - 1.0, now)
                self._prune(now)
                return 0.0
            self._buckets[caller] = (tokens, now)
            return math.inf if self.rate <= 0 else (1.0 - tokens) / self.rate

    def _prune(self, now: float) -> None:
        if len(self._buckets) <= _MAX_BUCKETS:
            return
        # Forget callers whose bucket is full again: forgetting them changes nothing.
        full_after = self.burst / self.rate if self.rate > 0 else math.inf
        for caller, (_, last) in list(self._buckets.items()):
            if now - last >= full_after:
                del self._buckets[caller]
