"""The challenge's ``[budgets]`` that gate a submission rather than score it. Pure.

``iterations`` caps how many attempts an agent has: iteration ``n`` past it is refused before
anything runs, by the engine (``bouts.loading.submission.check_matches``, so ``bouts score`` and
every caller of ``bouts.score``) and by the service's intake. ``tokens`` and ``time_s`` are scored
by the efficiency judge instead (``bouts.scoring.trajectory_math``). See docs/scoring.md#budgets.
"""

from __future__ import annotations


def iteration_refusal(iteration: int, limit: int | None) -> str | None:
    """Why ``iteration`` may not be scored under a budget of ``limit`` iterations; None when it may."""
    if limit is None or iteration <= limit:
        return None
    return (
        f"iteration {iteration} is past the challenge's budget of {limit} iteration{'s' if limit != 1 else ''} "
        f"([budgets] iterations in its challenge.toml): attempts 1-{limit} may be scored"
    )
