"""``bouts stats --labels``: does each component separate runs by an outcome the engine never saw (a
benchmark's resolved/unresolved verdict, a human rating)? Pure: labelled runs in, a
:class:`ValidityReport` out (numpy/scipy imported where used; ``bouts score`` never needs them).

Per component (and per baseline covariate, e.g. the raw token count):
- binary label: the mean per label, the AUC (Mann-Whitney U over n₁·n₀, a tie counting half: the chance a
  random positive run scores above a random negative one) with a percentile bootstrap 95% interval
  (runs resampled within each label, seeded: the same input gives the same interval);
- numeric label (a rating): Spearman's ρ with a bootstrap interval over resampled runs, and the means
  above / at or below the median rating;
- the not-scored rate, overall and per label (a not-scored run is left out of the AUC, never zero-filled);
- the most frequent finding rules per label.
"""

from __future__ import annotations

import math
import statistics
import zlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bouts.calibration.stats_report import ComponentValidity, FindingCount, ValidityReport
from bouts.errors import InputError

if TYPE_CHECKING:
    from bouts.models.scorecard import Scorecard

BOOTSTRAP = 1000
SEED = 0
TOP_FINDINGS = 5


class ValidityError(InputError):
    """The labels cannot support the report (one class only, mixed kinds, no runs)."""


@dataclass(frozen=True)
class LabelledRun:
    """One run: its outcome label and what the engine made of it."""

    key: str
    label: bool | float
    components: Mapping[str, float | None]
    """Component → score; None (or absent) when the component was not scored for this run."""
    findings: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Component → the rules of its findings on this run."""
    baselines: Mapping[str, float] = field(default_factory=dict)
    """Covariates to compare the components with (tokens, events): scored like a component."""


def run_from_scorecard(card: Scorecard, key: str, label: bool | float) -> LabelledRun:
    comps = {k: c.score for k, c in card.components.items()}
    found = {k: tuple(f.rule for f in c.findings) for k, c in card.components.items() if c.findings}
    return LabelledRun(key=key, label=label, components=comps, findings=found)


def auc(positive: Sequence[float], negative: Sequence[float]) -> float:
    """P(a positive run scores above a negative one), ties half: Mann-Whitney U₁ / (n₁·n₀)."""
    from scipy.stats import mannwhitneyu

    return float(mannwhitneyu(positive, negative, alternative="two-sided").statistic) / (len(positive) * len(negative))


def _auc_bootstrap(pos: Sequence[float], neg: Sequence[float], n: int, seed: int) -> tuple[float, float]:
    import numpy as np
    from scipy.stats import rankdata

    rng = np.random.default_rng(seed)
    p, q = np.asarray(pos, dtype=float), np.asarray(neg, dtype=float)
    sample = np.concatenate([p[rng.integers(0, len(p), (n, len(p)))], q[rng.integers(0, len(q), (n, len(q)))]], axis=1)
    ranks = rankdata(sample, axis=1)
    n1, n0 = len(p), len(q)
    values = (ranks[:, :n1].sum(axis=1) - n1 * (n1 + 1) / 2) / (n1 * n0)
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def _spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    from scipy.stats import spearmanr

    if len(set(xs)) < 2 or len(set(ys)) < 2:
        return None
    return float(spearmanr(xs, ys).statistic)


def _spearman_bootstrap(xs: Sequence[float], ys: Sequence[float], n: int, seed: int) -> tuple[float, float] | None:
    import numpy as np
    from scipy.stats import rankdata

    rng = np.random.default_rng(seed)
    x, y = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    idx = rng.integers(0, len(x), (n, len(x)))
    rx, ry = rankdata(x[idx], axis=1), rankdata(y[idx], axis=1)
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    den = np.sqrt((rx**2).sum(axis=1) * (ry**2).sum(axis=1))
    ok = den > 0
    if not ok.any():
        return None
    values = (rx * ry).sum(axis=1)[ok] / den[ok]
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def _r(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) else round(float(x), 4)


def _groups(runs: Sequence[LabelledRun], label: str) -> tuple[str, dict[str, list[LabelledRun]]]:
    """The measure and the label groups (binary: positive first; numeric: split at the median)."""
    if not runs:
        raise ValidityError("no labelled runs", field=label)
    binary = [isinstance(r.label, bool) for r in runs]
    if any(binary) and not all(binary):
        first = runs[binary.index(False)]
        raise ValidityError(f"labels mix true/false and numbers (run {first.key!r} has {first.label!r})", field=label)
    if all(binary):
        groups = {label: [r for r in runs if r.label], f"not {label}": [r for r in runs if not r.label]}
        for name, other in ((label, f"not {label}"), (f"not {label}", label)):
            if not groups[name]:
                raise ValidityError(f"all {len(runs)} runs are labelled {other}: the AUC needs runs of both labels",
                                    field=label)  # fmt: skip
        return "auc", groups
    median = statistics.median(float(r.label) for r in runs)
    groups = {"above median": [r for r in runs if r.label > median],
              "at or below median": [r for r in runs if r.label <= median]}  # fmt: skip
    if not groups["above median"]:
        raise ValidityError(f"all {len(runs)} runs have the same {label} ({median:g}): nothing to separate",
                            field=label)  # fmt: skip
    return "spearman", groups


def _top(runs: Sequence[LabelledRun], component: str, top: int) -> list[FindingCount]:
    if not runs:
        return []
    counts = Counter(rule for r in runs for rule in set(r.findings.get(component, ())))
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    return [FindingCount(rule=rule, runs=n, share=round(n / len(runs), 4)) for rule, n in ranked]


def _value(run: LabelledRun, name: str, kind: str) -> float | None:
    v = run.components.get(name) if kind == "component" else run.baselines.get(name)
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def component_validity(
    runs: Sequence[LabelledRun], name: str, *, kind: str = "component", label: str = "resolved",
    bootstrap: int = BOOTSTRAP, seed: int = SEED, top: int = TOP_FINDINGS,
) -> ComponentValidity:  # fmt: skip
    measure, groups = _groups(runs, label)
    scored_by = {g: [r for r in rs if _value(r, name, kind) is not None] for g, rs in groups.items()}
    scored = sum(len(v) for v in scored_by.values())
    means = {g: _r(statistics.fmean([_value(r, name, kind) for r in rs])) if rs else None  # type: ignore[misc]
             for g, rs in scored_by.items()}  # fmt: skip
    value = ci = None
    own_seed = (seed * 1_000_003 + zlib.crc32(f"{kind}:{name}".encode())) % 2**32  # per name: order-free
    if measure == "auc":
        pos, neg = ([_value(r, name, kind) for r in rs] for rs in scored_by.values())
        if pos and neg:
            value = auc(pos, neg)  # type: ignore[arg-type]
            ci = _auc_bootstrap(pos, neg, bootstrap, own_seed) if bootstrap else None  # type: ignore[arg-type]
    else:
        pairs = [(_value(r, name, kind), float(r.label)) for r in runs if _value(r, name, kind) is not None]
        xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
        value = _spearman(xs, ys) if len(pairs) >= 3 else None  # type: ignore[arg-type]
        ci = _spearman_bootstrap(xs, ys, bootstrap, own_seed) if value is not None and bootstrap else None  # type: ignore[arg-type]
    return ComponentValidity(
        component=name, kind=kind, scored=scored, not_scored=len(runs) - scored,  # type: ignore[arg-type]
        not_scored_rate=round((len(runs) - scored) / len(runs), 4),
        not_scored_by_label={g: round(1 - len(scored_by[g]) / len(rs), 4) for g, rs in groups.items()},
        mean_by_label=means, measure=measure, value=_r(value),  # type: ignore[arg-type]
        ci_low=_r(ci[0]) if ci else None, ci_high=_r(ci[1]) if ci else None,
        top_findings={g: _top(rs, name, top) for g, rs in scored_by.items()} if kind == "component" else {},
    )  # fmt: skip


def validity(
    runs: Sequence[LabelledRun], *, label: str = "resolved", bootstrap: int = BOOTSTRAP, seed: int = SEED,
    top: int = TOP_FINDINGS,
) -> ValidityReport:  # fmt: skip
    """The whole validity report: every component any run carries, then every baseline."""
    measure, groups = _groups(runs, label)
    comps = sorted({k for r in runs for k in r.components})
    bases = sorted({k for r in runs for k in r.baselines})
    opts = dict(label=label, bootstrap=bootstrap, seed=seed, top=top)
    return ValidityReport(
        label=label, measure=measure, runs=len(runs), by_label={g: len(rs) for g, rs in groups.items()},  # type: ignore[arg-type]
        bootstrap=bootstrap, seed=seed,
        components=[component_validity(runs, c, **opts) for c in comps],  # type: ignore[arg-type]
        baselines=[component_validity(runs, b, kind="baseline", **opts) for b in bases],  # type: ignore[arg-type]
    )  # fmt: skip
