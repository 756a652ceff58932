"""The per-component formulas of SPEC §1: data in, an explained 0-100 score out. No I/O."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from bouts.scoring.catalogue import CORRECTNESS_WEIGHTS
from bouts.scoring.explain import Explained, NotScored, clamp, fmt

Severity = Literal["critical", "high", "medium", "low"]
StabilityLevel = Literal["clean", "warnings", "crash"]

DEFAULT_SEVERITY_WEIGHTS: Mapping[str, float] = {"critical": 5, "high": 3, "medium": 2, "low": 1}
SECURITY_DEDUCTIONS: Mapping[str, float] = {"critical": 25, "high": 15, "medium": 5, "low": 1}
STABILITY_SCORES: Mapping[str, float] = {"clean": 100, "warnings": 50, "crash": 0}
DELIVERABLE_WEIGHTS: Mapping[str, float] = {
    "accuracy": 0.40,
    "clarity": 0.25,
    "completeness": 0.20,
    "actionability": 0.15,
}


def static_tests(passed: int, total: int) -> Explained | NotScored:
    """All-or-nothing per test: ``passed / total × 100``. An empty suite cannot be scored."""
    if total < 0 or not 0 <= passed <= total:
        raise ValueError(f"passed={passed} must lie within 0..total={total}")
    if total == 0:
        return NotScored("no static tests were expected (empty visible and hidden suites)")
    value = passed / total * 100
    return Explained(value, (f"static_test_score = ({passed}/{total}) × 100 = {fmt(value)}",))


@dataclass(frozen=True)
class WeightedTest:
    """One adversarial test: its severity and whether it passed."""

    severity: str
    passed: bool


def adversarial(
    tests: Sequence[WeightedTest], weights: Mapping[str, float] = DEFAULT_SEVERITY_WEIGHTS
) -> Explained | NotScored:
    """``Σ weight(passed) / Σ weight(all) × 100`` with severity weights (critical 5 ... low 1)."""
    if not tests:
        return NotScored("no adversarial tests")
    unknown = {t.severity for t in tests} - set(weights)
    if unknown:
        raise ValueError(f"unknown severities {sorted(unknown)}; known: {sorted(weights)}")
    earned = sum(weights[t.severity] for t in tests if t.passed)
    possible = sum(weights[t.severity] for t in tests)
    value = earned / possible * 100
    parts = []
    for sev in weights:
        n_all = sum(1 for t in tests if t.severity == sev)
        if n_all:
            n_ok = sum(1 for t in tests if t.severity == sev and t.passed)
            parts.append(f"{sev} {n_ok}/{n_all}×{fmt(weights[sev])}")
    return Explained(
        value,
        (
            f"adversarial weights: {', '.join(parts)}",
            f"adversarial_score = ({fmt(earned)}/{fmt(possible)}) × 100 = {fmt(value)}",
        ),
    )


def adversarial_split(
    prebuilt: Explained | NotScored,
    generated: Explained | NotScored,
    prebuilt_share: float = 0.4,
    *,
    weights: tuple[float, float] | None = None,
) -> Explained | NotScored:
    """Combine pre-built (challenge) and generated (per-submission) adversarial scores, 40/60 by default.

    ``weights`` = (Σ severity weight of the pre-built tests, of the generated tests): the generated
    half holds its full ``1 − prebuilt_share`` only once it weighs at least as much as the pre-built
    tests; a lighter generated suite holds less, each unit of its weight counting what it counts at
    parity (``(1 − p) / p`` pre-built units), so one low-severity generated test cannot carry 60%
    of the component (docs/adversarial.md). When one half is missing the other stands alone, and
    the math says so; both missing -> not scored.
    """
    if not 0 <= prebuilt_share <= 1:
        raise ValueError("prebuilt_share must lie within 0..1")
    have_pre = isinstance(prebuilt, Explained)
    have_gen = isinstance(generated, Explained)
    if not have_pre and not have_gen:
        return NotScored(f"no adversarial tests: pre-built: {prebuilt.reason}; generated: {generated.reason}")
    if have_pre and not have_gen:
        return Explained(
            prebuilt.value,
            prebuilt.math + (f"generated adversarial tests not scored ({generated.reason}): pre-built only",),
        )
    if have_gen and not have_pre:
        return Explained(
            generated.value,
            generated.math + (f"pre-built adversarial tests not scored ({prebuilt.reason}): generated only",),
        )
    share, why = _generated_share(prebuilt_share, weights)
    value = (1 - share) * prebuilt.value + share * generated.value
    return Explained(
        value,
        prebuilt.math
        + generated.math
        + why
        + (
            f"adversarial = {fmt(1 - share)}×{fmt(prebuilt.value)} (pre-built) + "
            f"{fmt(share)}×{fmt(generated.value)} (generated) = {fmt(value)}",
        ),
    )


def _generated_share(prebuilt_share: float, weights: tuple[float, float] | None) -> tuple[float, tuple[str, ...]]:
    """The generated half's share, and a line saying why when its weight reduced it."""
    full = 1 - prebuilt_share
    if weights is None or prebuilt_share in (0, 1):
        return full, ()
    w_pre, w_gen = weights
    if w_pre < 0 or w_gen < 0:
        raise ValueError("adversarial weights cannot be negative")
    if w_gen >= w_pre:
        return full, ()
    ratio = full / prebuilt_share
    share = ratio * w_gen / (ratio * w_gen + w_pre)
    return share, (
        f"generated share = {fmt(ratio)}×{fmt(w_gen)} / ({fmt(ratio)}×{fmt(w_gen)} + {fmt(w_pre)}) = {fmt(share)} "
        f"(generated weight {fmt(w_gen)} < pre-built {fmt(w_pre)}; {fmt(full)} from equal weight up)",
    )


def security(counts: Mapping[str, int], deductions: Mapping[str, float] = SECURITY_DEDUCTIONS) -> Explained:
    """``100 − 25·critical − 15·high − 5·medium − 1·low``, floor 0 (introduced findings only)."""
    unknown = set(counts) - set(deductions)
    if unknown:
        raise ValueError(f"unknown severities {sorted(unknown)}")
    if any(n < 0 for n in counts.values()):
        raise ValueError("finding counts cannot be negative")
    taken = sum(deductions[s] * counts.get(s, 0) for s in deductions)
    value = max(0.0, 100 - taken)
    terms = " ".join(f"− {fmt(deductions[s])}×{counts.get(s, 0)}" for s in deductions)
    return Explained(value, (f"security = max(0, 100 {terms}) = {fmt(value)}",))


def stability(level: StabilityLevel) -> Explained:
    """100 clean, 50 warnings, 0 crash."""
    value = STABILITY_SCORES[level]
    return Explained(value, (f"stability: {level} run → {fmt(value)}",))


def stability_level(warnings: Sequence[str], crashes: Sequence[str]) -> StabilityLevel:
    """A crash outranks warnings; nothing seen is clean."""
    if crashes:
        return "crash"
    if warnings:
        return "warnings"
    return "clean"


def deliverable(subscores: Mapping[str, float], name: str = "deliverable") -> Explained:
    """accuracy 40, clarity 25, completeness 20, actionability 15 (each sub-score 0-100)."""
    missing = set(DELIVERABLE_WEIGHTS) - set(subscores)
    if missing:
        raise ValueError(f"missing deliverable sub-scores: {sorted(missing)}")
    for key, v in subscores.items():
        if not 0 <= v <= 100:
            raise ValueError(f"deliverable sub-score {key}={v} outside 0..100")
    value = sum(DELIVERABLE_WEIGHTS[k] * subscores[k] for k in DELIVERABLE_WEIGHTS)
    terms = " + ".join(f"{fmt(w)}×{fmt(subscores[k])}" for k, w in DELIVERABLE_WEIGHTS.items())
    return Explained(value, (f"{name} = {terms} = {fmt(value)}",))


def deliverable_absent(name: str, why: Literal["missing", "placeholder"]) -> Explained:
    """A missing or placeholder (TODO) deliverable scores 0."""
    return Explained(0.0, (f"{name}: {why} → 0",))


def deliverables(documents: Sequence[Explained]) -> Explained | NotScored:
    """The mean over the challenge's required deliverables."""
    if not documents:
        return NotScored("the challenge asks for no deliverables", applies=False)
    value = sum(d.value for d in documents) / len(documents)
    lines = tuple(line for d in documents for line in d.math)
    if len(documents) > 1:
        lines += (f"deliverables = mean({', '.join(fmt(d.value) for d in documents)}) = {fmt(value)}",)
    return Explained(value, lines)


def process(
    unread_edits: int = 0, uninvestigated_failures: int = 0, redundant_reads: int = 0, reverts: int = 0
) -> Explained:
    """Start 100; −5 per edit of an unread file; −10 per failed test run not investigated;
    −2 per redundant read beyond 5; −5 per revert beyond 3; floor 0."""
    if min(unread_edits, uninvestigated_failures, redundant_reads, reverts) < 0:
        raise ValueError("process counts cannot be negative")
    extra_reads = max(0, redundant_reads - 5)
    extra_reverts = max(0, reverts - 3)
    taken = 5 * unread_edits + 10 * uninvestigated_failures + 2 * extra_reads + 5 * extra_reverts
    value = max(0.0, 100.0 - taken)
    return Explained(
        value,
        (
            f"process = max(0, 100 − 5×{unread_edits} unread edits − 10×{uninvestigated_failures} "
            f"uninvestigated failures − 2×{extra_reads} redundant reads beyond 5 − 5×{extra_reverts} "
            f"reverts beyond 3) = {fmt(value)}",
        ),
    )


def integrity(bright_lines: Sequence[str], gray_penalties: Sequence[float] = ()) -> Explained:
    """0 on any bright line; otherwise 100 minus 5-10 per gray-area instance, floor 0."""
    if bright_lines:
        return Explained(0.0, (f"integrity: bright line crossed ({'; '.join(bright_lines)}) → 0",))
    for p in gray_penalties:
        if not 5 <= p <= 10:
            raise ValueError(f"a gray-area penalty is 5..10, got {p}")
    value = max(0.0, 100.0 - sum(gray_penalties))
    if not gray_penalties:
        return Explained(100.0, ("integrity: no bright line, no gray-area instance → 100",))
    terms = " − ".join(fmt(p) for p in gray_penalties)
    return Explained(value, (f"integrity = max(0, 100 − {terms}) = {fmt(value)}",))


def recovery(failures_met: int, resolved: int) -> Explained:
    """Share of the failures met that a later action resolved; nothing to recover from → 100."""
    if not 0 <= resolved <= failures_met:
        raise ValueError(f"resolved={resolved} must lie within 0..failures_met={failures_met}")
    if failures_met == 0:
        return Explained(100.0, ("recovery: no failure met, nothing to recover from → 100",))
    value = resolved / failures_met * 100
    return Explained(value, (f"recovery = ({resolved}/{failures_met}) × 100 = {fmt(value)}",))


def correctness(static: Explained | NotScored, adv: Explained | NotScored) -> Explained | NotScored:
    """``(0.35·static_tests + 0.15·adversarial) / 0.50``, over whichever of the two was scored: whether
    the work was *correct*, used only by the rules that ask that (the calibration adjustment). The
    objective is the engine score of all six components (``bouts.scoring.profiles.objective``)."""
    parts = {"static_tests": static, "adversarial": adv}
    present = {k: v for k, v in parts.items() if isinstance(v, Explained)}
    if not present:
        return NotScored("neither static tests nor adversarial tests were scored")
    total_w = sum(CORRECTNESS_WEIGHTS[k] for k in present)
    value = sum(CORRECTNESS_WEIGHTS[k] * v.value for k, v in present.items()) / total_w
    terms = " + ".join(f"{fmt(CORRECTNESS_WEIGHTS[k])}×{fmt(v.value)}" for k, v in present.items())
    line = f"correctness = ({terms}) / {fmt(total_w)} = {fmt(value)}"
    missing = [k for k in parts if k not in present]
    if missing:
        line += f"  ({', '.join(missing)} not scored)"
    return Explained(clamp(value, 0, 100), (line,))
