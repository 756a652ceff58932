"""``bouts stats``: how a launched challenge's judges behave over many attempts. Pure: scorecards
in, statistics and suggestions out (scipy for the tests of significance, imported where used: it
costs about 0.6 s and ``bouts score`` never needs it).

What it computes (docs/calibration.md explains how to read each):
- per component: distribution (mean, std dev, 10-point histogram) and discrimination (the gap
  between the top and bottom quartiles of attempts by final score, and the point-biserial
  correlation of the component with "top quartile" among top + bottom quartile attempts);
- Pearson r (with p-value) between every pair of judged components;
- Krippendorff's α for each multi-judge panel (``bouts.judges.llm.reliability``);
- findings, only from :data:`MIN_ATTEMPTS` attempts on: the objective-vs-integrity cheating flag
  and suggestions for weights or thresholds, each backed by its numbers.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from bouts.calibration.stats_report import (
    ComponentStats,
    Correlation,
    Finding,
    PanelReliability,
    StatsReport,
)  # fmt: skip
from bouts.judges.llm.reliability import reliability
from bouts.models.scorecard import Scorecard
from bouts.scoring.catalogue import CATALOGUE

MIN_ATTEMPTS = 50
CHEATING_R = -0.5
REDUNDANT_R = 0.9
FLAT_STD = 5.0
WEAK_DISCRIMINATION = 0.1
CEILING_SHARE = 0.5
BAND_SHARE = 0.6
DIVERGENCE_SHARE = 0.25
ALPHA_TENTATIVE = 0.667
"""Krippendorff's own threshold below which even tentative conclusions are not drawn."""
DERIVED: Mapping[str, frozenset[str]] = {c.name: frozenset(c.fed_by) for c in CATALOGUE if c.source == "derived"}
"""Components computed from others: their correlation is arithmetic, not agreement."""


@dataclass(frozen=True)
class Attempt:
    """What the statistics need from one scorecard."""

    key: str
    final: float | None
    band: str | None
    components: Mapping[str, float]
    weights: Mapping[str, float] = field(default_factory=dict)
    panels: Mapping[str, Mapping[str, float | None]] = field(default_factory=dict)
    """component → judge → score, for components where more than one judge sat."""
    flags: tuple[str, ...] = ()


def attempt_from_scorecard(card: Scorecard) -> Attempt:
    comps = {k: c.score for k, c in card.components.items() if c.score is not None}
    weights = {k: c.weight for k, c in card.components.items() if c.weight}
    panels = {k: {j.judge: j.score for j in c.judges} for k, c in card.components.items() if len(c.judges) > 1}
    return Attempt(
        key=f"{card.challenge}/{card.agent}/{card.iteration}/{card.reproducibility.submission_hash[:12]}",
        final=None if card.final is None else float(card.final), band=card.band, components=comps,
        weights=weights, panels=panels, flags=tuple(f.code for f in card.flags),
    )  # fmt: skip


def _histogram(values: Sequence[float]) -> list[int]:
    bins = [0] * 10
    for v in values:
        bins[min(9, max(0, int(v // 10)))] += 1
    return bins


def _clean(x: float) -> float | None:
    return None if x is None or math.isnan(x) else round(float(x), 4)


def _quartiles(attempts: Sequence[Attempt]) -> tuple[list[Attempt], list[Attempt]]:
    scored = [a for a in attempts if a.final is not None]
    if len(scored) < 4:
        return [], []
    q1, _, q3 = statistics.quantiles([a.final for a in scored], n=4, method="inclusive")  # type: ignore[misc]
    top = [a for a in scored if a.final >= q3]  # type: ignore[operator]
    bottom = [a for a in scored if a.final <= q1]  # type: ignore[operator]
    return (top, bottom) if q3 > q1 else ([], [])


def component_stats(attempts: Sequence[Attempt]) -> list[ComponentStats]:
    names = sorted({k for a in attempts for k in a.components})
    top, bottom = _quartiles(attempts)
    out: list[ComponentStats] = []
    for name in names:
        vals = [a.components[name] for a in attempts if name in a.components]
        t = [a.components[name] for a in top if name in a.components]
        b = [a.components[name] for a in bottom if name in a.components]
        gap = statistics.fmean(t) - statistics.fmean(b) if t and b else None
        r_pb = p_pb = None
        if len(t) + len(b) >= 3 and t and b and len(set(t + b)) > 1:
            from scipy import stats as sps

            res = sps.pointbiserialr([1] * len(t) + [0] * len(b), t + b)
            r_pb, p_pb = _clean(res.statistic), _clean(res.pvalue)
        weight = next((a.weights[name] for a in attempts if name in a.weights), None)
        out.append(ComponentStats(
            component=name, n=len(vals), weight=weight, mean=round(statistics.fmean(vals), 4),
            std=round(statistics.pstdev(vals), 4), min=min(vals), max=max(vals), histogram=_histogram(vals),
            top_bottom_gap=None if gap is None else round(gap, 4), point_biserial=r_pb, point_biserial_p=p_pb,
        ))  # fmt: skip
    return out


def _arithmetic(x: str, y: str) -> bool:
    """One is computed from the other, or both from the same components (objective and correctness)."""
    fx, fy = DERIVED.get(x, frozenset()), DERIVED.get(y, frozenset())
    return y in fx or x in fy or bool(fx & fy)


def correlations(attempts: Sequence[Attempt]) -> list[Correlation]:
    from scipy import stats as sps

    names = sorted({k for a in attempts for k in a.components})
    out: list[Correlation] = []
    for x, y in combinations(names, 2):
        if _arithmetic(x, y):
            continue
        pairs = [(a.components[x], a.components[y]) for a in attempts if x in a.components and y in a.components]
        xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
        if len(pairs) < 3 or len(set(xs)) < 2 or len(set(ys)) < 2:
            continue
        res = sps.pearsonr(xs, ys)
        out.append(Correlation(a=x, b=y, r=_clean(res.statistic), p=_clean(res.pvalue), n=len(pairs)))
    return out


def panel_reliability(attempts: Sequence[Attempt]) -> list[PanelReliability]:
    out: list[PanelReliability] = []
    for comp in sorted({k for a in attempts for k in a.panels}):
        table: dict[str, dict[str, float | None]] = {}
        for a in attempts:
            for judge, score in a.panels.get(comp, {}).items():
                table.setdefault(judge, {})[a.key] = score
        rel = reliability(table)
        out.append(PanelReliability(
            component=comp, judges=sorted(table), alpha=None if rel.alpha is None else round(rel.alpha, 4),
            units=rel.units, distance_from_median={j: None if d is None else round(d, 4)
                                                   for j, d in rel.distance_from_median.items()},
        ))  # fmt: skip
    return out


def summarise(attempts: Sequence[Attempt], *, challenge: str | None = None) -> StatsReport:
    """The whole stats report; findings only from :data:`MIN_ATTEMPTS` attempts on."""
    n = len(attempts)
    comps = component_stats(attempts)
    corr = correlations(attempts)
    panels = panel_reliability(attempts)
    bands = dict(Counter(a.band for a in attempts if a.band))
    divergent = sum("judge_divergence" in a.flags for a in attempts)
    enough = n >= MIN_ATTEMPTS
    return StatsReport(
        challenge=challenge, attempts=n, needed=max(0, MIN_ATTEMPTS - n), enough=enough,
        components=comps, correlations=corr, panels=panels, bands=bands, divergent=divergent,
        findings=_findings(n, comps, corr, panels, bands, divergent) if enough else [],
    )  # fmt: skip


def _finding(code: str, components: list[str], *, message: str, level: str = "suggestion") -> Finding:
    return Finding(level=level, code=code, components=components, message=message)  # type: ignore[arg-type]


def _findings(
    n: int, comps: list[ComponentStats], corr: list[Correlation], panels: list[PanelReliability],
    bands: Mapping[str, int], divergent: int,
) -> list[Finding]:  # fmt: skip
    found: list[Finding] = []
    for c in corr:
        if {c.a, c.b} == {"objective", "integrity"} and c.r is not None and c.r < CHEATING_R:
            found.append(
                _finding(
                    "cheating_suspected",
                    [c.a, c.b],
                    level="flag",
                    message=(
                        f"agents may be cheating to pass tests: objective vs integrity r = {c.r:.2f} "
                        f"(p = {c.p:.2g}, n = {c.n}) is below {CHEATING_R}: "
                        "the attempts that pass more tests play less fair"
                    ),
                )
            )
    weighted = {c.component: c for c in comps if c.weight}
    for c in corr:
        if c.r is not None and c.r > REDUNDANT_R and c.a in weighted and c.b in weighted:
            found.append(
                _finding(
                    "redundant_judges",
                    [c.a, c.b],
                    message=(
                        f"{c.a} and {c.b} correlate at r = {c.r:.2f} (n = {c.n}): they measure the same thing; "
                        f"fold their weights ({weighted[c.a].weight:g} + {weighted[c.b].weight:g}) into one and give "
                        f"the freed weight to a component that discriminates"
                    ),
                )
            )
    for c in weighted.values():
        if c.std < FLAT_STD:
            found.append(
                _finding(
                    "no_information",
                    [c.component],
                    message=(
                        f"{c.component} has std dev {c.std:.1f} over {c.n} attempts (mean {c.mean:.1f}): "
                        f"it carries almost no information; lower its weight ({c.weight:g}) or make its judge stricter"
                    ),
                )
            )
        elif c.point_biserial is not None and c.point_biserial < WEAK_DISCRIMINATION:
            found.append(
                _finding(
                    "weak_discrimination",
                    [c.component],
                    message=(
                        f"{c.component} does not separate the top quartile from the bottom one (point-biserial r = "
                        f"{c.point_biserial:.2f}, gap {c.top_bottom_gap or 0:.1f} points); review its judge before "
                        f"keeping its weight ({c.weight:g})"
                    ),
                )
            )
        high = sum(c.histogram[9:]) / c.n if c.n else 0.0
        low = c.histogram[0] / c.n if c.n else 0.0
        if high >= CEILING_SHARE or low >= CEILING_SHARE:
            end, share = ("ceiling (90-100)", high) if high >= CEILING_SHARE else ("floor (0-10)", low)
            found.append(
                _finding(
                    "ceiling" if high >= CEILING_SHARE else "floor",
                    [c.component],
                    message=(
                        f"{share:.0%} of attempts score at the {end} on {c.component}: its tests or threshold are "
                        f"{'too easy' if high >= CEILING_SHARE else 'too hard'} to rank agents"
                    ),
                )
            )
    for band, count in bands.items():
        if count / n > BAND_SHARE:
            found.append(
                _finding(
                    "band_concentration",
                    [],
                    message=(
                        f"{count} of {n} attempts ({count / n:.0%}) land in {band}: "
                        f"the challenge does not spread agents; adjust its difficulty or its weights"
                    ),
                )
            )
    if divergent / n > DIVERGENCE_SHARE:
        found.append(
            _finding(
                "frequent_divergence",
                [],
                message=(
                    f"{divergent} of {n} attempts ({divergent / n:.0%}) carry judge_divergence: "
                    "review the rubric of the judges involved (see the review queue) "
                    "before raising the 40-point threshold"
                ),
            )
        )
    for p in panels:
        if p.alpha is not None and p.alpha < ALPHA_TENTATIVE:
            found.append(
                _finding(
                    "panel_disagreement",
                    [p.component],
                    message=(
                        f"the {p.component} panel agrees poorly: Krippendorff's α = {p.alpha:.2f} "
                        f"over {p.units} attempts (below {ALPHA_TENTATIVE}); check the judge farthest from the median"
                    ),
                )
            )
    return found
