"""Review flags (SPEC §3): the four-judge divergence flag and the escalation levels."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations

from bouts.scoring.catalogue import FOUR_JUDGE_WEIGHTS
from bouts.scoring.explain import Explained, NotScored, clean, fmt

DIVERGENCE_THRESHOLD = 40.0
FOUR_JUDGES = tuple(FOUR_JUDGE_WEIGHTS)

# Escalation: 1 statistical flag → 2 rubric review → 3 human arbitration.
ESCALATION_LEVELS: Mapping[int, str] = {1: "statistical flag", 2: "rubric review", 3: "human arbitration"}


@dataclass(frozen=True)
class Flag:
    code: str
    message: str
    level: int | None = None
    """Escalation level for review flags (1-3), None for informational flags."""


def divergence(scores: Mapping[str, Explained | NotScored]) -> Flag | None:
    """A level-1 review flag when any two of the four judges are more than 40 points apart."""
    present = {k: scores[k].value for k in FOUR_JUDGES if isinstance(scores.get(k), Explained)}
    pairs = [
        f"{a} {fmt(present[a])} vs {b} {fmt(present[b])} (Δ {fmt(abs(present[a] - present[b]))})"
        for a, b in combinations(present, 2)
        if clean(abs(present[a] - present[b])) > DIVERGENCE_THRESHOLD
    ]
    if not pairs:
        return None
    return Flag(
        "judge_divergence",
        f"judges more than {fmt(DIVERGENCE_THRESHOLD)} apart: {'; '.join(pairs)}",
        level=1,
    )
