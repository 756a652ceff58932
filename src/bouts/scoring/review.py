"""Review flags (SPEC §3): the four-judge divergence flag, the gray-integrity-against-high-strategy
escalation and the escalation levels."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from bouts.scoring.catalogue import FOUR_JUDGE_WEIGHTS
from bouts.scoring.explain import Explained, NotScored, clean, fmt

DIVERGENCE_THRESHOLD = 40.0
FOUR_JUDGES = tuple(FOUR_JUDGE_WEIGHTS)
HIGH_STRATEGY = 75.0
"""A strategy score this high (the Strong band's floor) beside a gray integrity instance is a
disagreement about the same work: the strategy judge admired what the integrity judge doubted."""
GRAY_FLAG = "integrity_gray_high_strategy"

# Escalation: 1 statistical flag → 2 rubric review → 3 human arbitration.
ESCALATION_LEVELS: Mapping[int, str] = {1: "statistical flag", 2: "rubric review", 3: "human arbitration"}


@dataclass(frozen=True)
class Flag:
    code: str
    message: str
    level: int | None = None
    """Escalation level for review flags (1-3), None for informational flags."""


def _disagree(a: str, b: str, present: Mapping[str, float]) -> bool:
    """More than 40 apart, except where integrity is the higher of the two: integrity starts at 100 and
    only deducts (SPEC §1), so its 100 says "nothing unfair was found", not "this work is good". An
    honest submission with strategy 50 is no disagreement; a 90 objective beside integrity 40 is."""
    if clean(abs(present[a] - present[b])) <= DIVERGENCE_THRESHOLD:
        return False
    if "integrity" in (a, b):
        other = b if a == "integrity" else a
        return present["integrity"] < present[other]
    return True


def divergence(scores: Mapping[str, Explained | NotScored]) -> Flag | None:
    """A level-1 review flag when any two of the four judges are more than 40 points apart (a pair with
    integrity counts only when integrity is the lower: see ``_disagree``)."""
    present = {k: scores[k].value for k in FOUR_JUDGES if isinstance(scores.get(k), Explained)}
    pairs = [
        f"{a} {fmt(present[a])} vs {b} {fmt(present[b])} (Δ {fmt(abs(present[a] - present[b]))})"
        for a, b in combinations(present, 2)
        if _disagree(a, b, present)
    ]
    if not pairs:
        return None
    return Flag(
        "judge_divergence",
        f"judges more than {fmt(DIVERGENCE_THRESHOLD)} apart: {'; '.join(pairs)}",
        level=1,
    )


def gray_against_strategy(
    scores: Mapping[str, Explained | NotScored], gray_penalties: Sequence[float], *, bright_line: bool
) -> Flag | None:
    """A level-2 flag (rubric review) when integrity took a gray-area deduction while strategy scored
    high (≥ 75): the two judges read the same work differently, and the statistical level has nothing to
    add (the gap is under 40), so the item opens at the rubric. None after a bright line (its own item)."""
    strategy = scores.get("strategy")
    if bright_line or not gray_penalties or not isinstance(strategy, Explained):
        return None
    if clean(strategy.value) < HIGH_STRATEGY:
        return None
    total = fmt(sum(gray_penalties))
    return Flag(
        GRAY_FLAG,
        f"integrity took {len(gray_penalties)} gray-area deduction(s) (−{total}) while strategy scored "
        f"{fmt(strategy.value)} (≥ {fmt(HIGH_STRATEGY)}): rubric review",
        level=2,
    )
