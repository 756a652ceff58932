"""The formulas of the trajectory judges (SPEC §1: process, strategy, recovery, efficiency): counts in,
explained 0-100 scores out. No I/O; the judges in ``bouts.judges.trajectory`` do the counting.

Every constant here is a choice SPEC leaves open; docs/trajectory-judges.md gives the reasons.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from bouts.scoring.components import process as process_core
from bouts.scoring.components import recovery as recovery_core
from bouts.scoring.explain import Explained, NotScored, clamp, fmt

# --- process -------------------------------------------------------------------------------------

RECKLESS_POINTS = {"rm-rf-unseen": 10.0, "delete-unseen": 5.0, "protected-edit": 10.0, "out-of-scope-edit": 10.0}
"""Points per reckless act; SPEC names the acts (``rm -rf`` without a look, edits out of scope), not the cost."""


def process_score(
    unread_edits: int, uninvestigated_failures: int, redundant_reads: int, reverts: int, reckless: Sequence[str] = ()
) -> Explained:
    """SPEC's process formula (``components.process``), then the reckless acts, each by ``RECKLESS_POINTS``."""
    core = process_core(unread_edits, uninvestigated_failures, redundant_reads, reverts)
    if not reckless:
        return core
    taken = sum(RECKLESS_POINTS[r] for r in reckless)
    value = max(0.0, core.value - taken)
    kinds = sorted(set(reckless))
    terms = " − ".join(f"{fmt(RECKLESS_POINTS[k])}×{reckless.count(k)} {k}" for k in kinds)
    return Explained(value, core.math + (f"process = max(0, {fmt(core.value)} − {terms} reckless) = {fmt(value)}",))


# --- strategy ------------------------------------------------------------------------------------

COVERAGE_WEIGHT = 0.6
ORDER_WEIGHT = 0.4
UNNECESSARY_POINTS = 5.0
UNNECESSARY_CAP = 25.0


def kendall_tau(reference_ranks: Sequence[int], agent_positions: Sequence[int]) -> float | None:
    """Kendall τ-b between the reference order and the agent's order of the matched steps.

    None when it is undefined: fewer than two steps, or every position tied in either order.
    τ-b = (concordant − discordant) / √((n₀ − n₁)(n₀ − n₂)), n₀ = n(n−1)/2 and n₁, n₂ the pairs
    tied in each order; a pair tied in both counts in neither. The same value as
    ``scipy.stats.kendalltau`` (tested against it), without importing scipy on the scoring path;
    O(n²), and n is a handful of steps.
    """
    xs, ys = list(reference_ranks), list(agent_positions)
    if len(xs) != len(ys):
        raise ValueError(f"kendall_tau needs two orders of one length, got {len(xs)} and {len(ys)}")
    n = len(xs)
    if n < 2:
        return None
    balance = tied_x = tied_y = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = xs[i] - xs[j], ys[i] - ys[j]
            if dx == 0:
                tied_x += 1
            if dy == 0:
                tied_y += 1
            if dx and dy:
                balance += 1 if (dx > 0) == (dy > 0) else -1
    pairs = n * (n - 1) // 2
    denominator = math.sqrt((pairs - tied_x) * (pairs - tied_y))
    if denominator == 0:
        return None
    return max(-1.0, min(1.0, balance / denominator))


def decomposition_score(matched: int, total: int, tau: float | None, unnecessary: int) -> Explained | NotScored:
    """``100 × (0.6·matched/total + 0.4·(τ+1)/2) − 5·unnecessary`` (at most −25), clamped to 0-100.

    With τ undefined (under two matched steps) the coverage term stands alone (weight rescaled to 1).
    """
    if total == 0:
        return NotScored("the challenge has no reference decomposition")
    coverage = matched / total
    if tau is None:
        base = 100 * coverage
        line = f"decomposition base = 100 × {matched}/{total} steps matched (τ undefined) = {fmt(base)}"
    else:
        base = 100 * (COVERAGE_WEIGHT * coverage + ORDER_WEIGHT * (tau + 1) / 2)
        line = (
            f"decomposition base = 100 × ({fmt(COVERAGE_WEIGHT)}×{matched}/{total} matched + "
            f"{fmt(ORDER_WEIGHT)}×(τ {fmt(round(tau, 4))} + 1)/2) = {fmt(base)}"
        )
    penalty = min(UNNECESSARY_CAP, UNNECESSARY_POINTS * unnecessary)
    value = clamp(base - penalty, 0, 100)
    return Explained(
        value,
        (
            line,
            f"decomposition = clamp({fmt(base)} − min({fmt(UNNECESSARY_CAP)}, {fmt(UNNECESSARY_POINTS)}×{unnecessary}"
            f" unnecessary steps), 0, 100) = {fmt(value)}",
        ),
    )


@dataclass(frozen=True)
class ArchitecturePenalty:
    """One architecture heuristic's total: what it saw and the points it took (after its cap)."""

    heuristic: str
    count: int
    points: float


def architecture_score(penalties: Sequence[ArchitecturePenalty]) -> Explained:
    """``max(0, 100 − Σ heuristic penalties)``; each heuristic is capped where it is counted."""
    taken = sum(p.points for p in penalties)
    value = max(0.0, 100.0 - taken)
    terms = " ".join(f"− {fmt(p.points)} ({p.heuristic}: {p.count})" for p in penalties) or "− 0"
    return Explained(value, (f"architecture = max(0, 100 {terms}) = {fmt(value)}",))


def strategy_score(decomposition: Explained | NotScored, architecture: Explained | NotScored) -> Explained | NotScored:
    """The mean of the two halves; a half that could not be scored leaves the other standing alone."""
    if isinstance(decomposition, Explained) and isinstance(architecture, Explained):
        value = (decomposition.value + architecture.value) / 2
        line = (
            f"strategy = (decomposition {fmt(decomposition.value)} + architecture {fmt(architecture.value)}) / 2 "
            f"= {fmt(value)}"
        )
        return Explained(value, decomposition.math + architecture.math + (line,))
    if isinstance(decomposition, Explained) and isinstance(architecture, NotScored):
        line = f"strategy = decomposition alone (architecture not scored: {architecture.reason})"
        return Explained(decomposition.value, decomposition.math + (line,))
    if isinstance(architecture, Explained) and isinstance(decomposition, NotScored):
        line = f"strategy = architecture alone (decomposition not scored: {decomposition.reason})"
        return Explained(architecture.value, architecture.math + (line,))
    assert isinstance(decomposition, NotScored) and isinstance(architecture, NotScored)
    return NotScored(
        f"neither strategy half could be scored (decomposition: {decomposition.reason}; "
        f"architecture: {architecture.reason})"
    )


# --- recovery ------------------------------------------------------------------------------------

UNRESOLVED_AT_END_WEIGHT = 2
"""A failure still standing when the agent stopped weighs double (issue 5: 'weigh most')."""


def recovery_score(failures: int, resolved: int, unresolved_at_end: int) -> Explained:
    """``resolved / (failures + unresolved_at_end) × 100`` via ``components.recovery``: each failure
    counts once, and one still failing at the end counts once more."""
    if not 0 <= unresolved_at_end <= failures - resolved:
        raise ValueError("unresolved_at_end must lie within 0..failures - resolved")
    weighted = failures + (UNRESOLVED_AT_END_WEIGHT - 1) * unresolved_at_end
    core = recovery_core(weighted, resolved)
    if failures == 0:
        return core
    line = (
        f"failures met {failures}, of which {unresolved_at_end} still failing at the end count "
        f"×{UNRESOLVED_AT_END_WEIGHT} → weight {weighted}; resolved later {resolved}"
    )
    return Explained(core.value, (line,) + core.math)


# --- efficiency ----------------------------------------------------------------------------------

WASTE_WEIGHT = 40.0
CHURN_POINTS, CHURN_CAP = 5.0, 20.0
MISUSE_POINTS, MISUSE_CAP = 3.0, 15.0
TOKEN_CAP = 30.0


def token_penalty(tokens: int, budget: int | None) -> tuple[float, str]:
    """``min(30, 30 × (tokens/budget − 1))`` over budget, 0 within it: staying under the budget earns
    nothing more, so raw brevity is never rewarded."""
    if budget is None:
        return 0.0, f"token burn: {tokens} tokens, the challenge sets no budget → 0"
    ratio = tokens / budget
    points = clamp(TOKEN_CAP * (ratio - 1), 0, TOKEN_CAP)
    return points, f"token burn: {tokens}/{budget} = {fmt(round(ratio, 4))} of budget → −{fmt(round(points, 4))}"


def efficiency_score(
    actions: int, wasted: int, churn: int, misuse: int, tokens: int, budget: int | None
) -> Explained | NotScored:
    """``100 − 40·waste_ratio − min(20, 5·churn) − min(15, 3·misuse) − token penalty``, floor 0.

    ``wasted`` is the events that changed nothing and informed nothing *besides* churn and misuse, so no
    event is charged twice.
    """
    if actions == 0:
        return NotScored("the trajectory has no actions (only messages or usage)")
    ratio = wasted / actions
    waste = WASTE_WEIGHT * ratio
    churn_pts = min(CHURN_CAP, CHURN_POINTS * churn)
    misuse_pts = min(MISUSE_CAP, MISUSE_POINTS * misuse)
    tok_pts, tok_line = token_penalty(tokens, budget)
    value = max(0.0, 100 - waste - churn_pts - misuse_pts - tok_pts)
    return Explained(
        value,
        (
            f"waste ratio = {wasted}/{actions} actions = {fmt(round(ratio, 4))} → −{fmt(round(waste, 4))}",
            f"retry churn: {churn} → −{fmt(churn_pts)} (5 each, at most 20)",
            f"tool misuse: {misuse} → −{fmt(misuse_pts)} (3 each, at most 15)",
            tok_line,
            f"efficiency = max(0, 100 − {fmt(round(waste, 4))} − {fmt(churn_pts)} − {fmt(misuse_pts)} − "
            f"{fmt(round(tok_pts, 4))}) = {fmt(value)}",
        ),
    )


# --- calibration ---------------------------------------------------------------------------------


def brier_score(probability: float, correct: bool) -> float:
    """``(p − outcome)²`` for one stated probability; averaged over submissions it is the Brier score."""
    if not 0 <= probability <= 1:
        raise ValueError("a probability lies within 0..1")
    return (probability - (1.0 if correct else 0.0)) ** 2
