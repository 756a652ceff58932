"""Judge-panel aggregation (SPEC §3), used for code quality and any other panel of judges.

Three judges: spread ≤ 15 → median. Exactly one judge more than 15 from both others → the mean of
the other two; if two judges qualify, the one with the larger summed distance is the outlier, and a
tie counts as disagreement. Otherwise (no judge qualifies, or every judge is more than 15 from every
other: a three-way disagreement) → mean − 10 and a ``human_review`` flag.

Other panel sizes (a judge may be unscored, or a panel may seat more) follow the same rule: the
spread test first, then the single-outlier test over every judge, else the penalty.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bouts.scoring.explain import Explained, NotScored, clean, fmt

AGREEMENT_SPREAD = 15.0
DISAGREEMENT_PENALTY = 10.0
HUMAN_REVIEW_MESSAGE = "Judges couldn't agree — code may be confusing or unconventional"

Rule = Literal["single", "median", "outlier_dropped", "disagreement"]


@dataclass(frozen=True)
class PanelResult:
    score: Explained
    rule: Rule
    human_review: bool
    outlier: int | None = None
    """Index of the dropped judge, when the outlier rule applied."""


def aggregate(scores: Sequence[float], name: str = "code_quality") -> PanelResult | NotScored:
    """Aggregate the judges' 0-100 scores into one explained score."""
    if not scores:
        return NotScored("no judge on the panel returned a score")
    for s in scores:
        if not 0 <= s <= 100:
            raise ValueError(f"judge score {s} outside 0..100")
    listed = "[" + ", ".join(fmt(s) for s in scores) + "]"
    if len(scores) == 1:
        return PanelResult(
            Explained(scores[0], (f"{name}: one judge sat {listed} → {fmt(scores[0])}",)), "single", False
        )
    spread = clean(max(scores) - min(scores))
    if spread <= AGREEMENT_SPREAD:
        value = statistics.median(scores)
        return PanelResult(
            Explained(
                value,
                (f"{name}: judges {listed}, spread {fmt(spread)} ≤ {fmt(AGREEMENT_SPREAD)} → median {fmt(value)}",),
            ),
            "median",
            False,
        )
    outlier = _single_outlier(scores)
    if outlier is not None and len(scores) > 2:
        rest = [s for i, s in enumerate(scores) if i != outlier]
        value = statistics.fmean(rest)
        return PanelResult(
            Explained(
                value,
                (
                    f"{name}: judges {listed}, judge {outlier + 1} ({fmt(scores[outlier])}) is more than "
                    f"{fmt(AGREEMENT_SPREAD)} from every other → mean of the rest {fmt(value)}",
                ),
            ),
            "outlier_dropped",
            False,
            outlier,
        )
    mean = statistics.fmean(scores)
    value = max(0.0, mean - DISAGREEMENT_PENALTY)
    return PanelResult(
        Explained(
            value,
            (
                f"{name}: judges {listed}, spread {fmt(spread)} > {fmt(AGREEMENT_SPREAD)} and no single "
                f"outlier → mean {fmt(mean)} − {fmt(DISAGREEMENT_PENALTY)} = {fmt(value)} (human review)",
            ),
        ),
        "disagreement",
        True,
    )


def _single_outlier(scores: Sequence[float]) -> int | None:
    """The one judge more than 15 from every other; of two such, the larger summed distance.

    A tie for the larger summed distance is disagreement (None), and so are more than two candidates:
    with three judges that means each is more than 15 from both others, nobody agrees with anybody
    (SPEC §3, "otherwise"): [50, 70, 95] → mean − 10, never the mean of an arbitrary pair.
    """
    qualifying = [
        i
        for i, s in enumerate(scores)
        if all(clean(abs(s - t)) > AGREEMENT_SPREAD for j, t in enumerate(scores) if j != i)
    ]
    if not qualifying:
        return None
    if len(qualifying) == 1:
        return qualifying[0]
    if len(qualifying) > 2:
        return None
    distance = {i: clean(sum(abs(scores[i] - t) for t in scores)) for i in qualifying}
    best = max(distance.values())
    leaders = [i for i, d in distance.items() if d == best]
    return leaders[0] if len(leaders) == 1 else None
