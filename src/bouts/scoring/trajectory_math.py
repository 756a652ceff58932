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
TOKEN_USE_WEIGHT = 10.0
"""Points the tokens used within the budget cost at most: ``10 × tokens/budget``."""
TOKEN_CAP = 30.0
ACTIONS_PER_STEP = 5
"""Actions (tool calls) allowed per step of the challenge's reference decomposition."""
ACTIONS_WEIGHT, ACTIONS_CAP = 20.0, 20.0
TIME_WEIGHT, TIME_CAP = 20.0, 20.0


def time_penalty(elapsed_s: float | None, time_s: float | None) -> tuple[float, str]:
    """The trajectory's span against ``[budgets] time_s``: ``min(20, 20 × (elapsed/time_s − 1))`` over
    it, 0 within it (the leaderboard already ranks the faster of two equal scores first, SPEC §4)."""
    if time_s is None:
        return 0.0, "time: the challenge sets no time budget → 0"
    if elapsed_s is None:
        return 0.0, f"time: the trajectory records no event time to compare with the budget of {fmt(time_s)} s → 0"
    ratio = elapsed_s / time_s
    points = clamp(TIME_WEIGHT * (ratio - 1), 0, TIME_CAP)
    return points, (
        f"time: {fmt(round(elapsed_s, 3))} s of the {fmt(time_s)} s budget = {fmt(round(ratio, 4))} → "
        f"−{fmt(round(points, 4))} ({fmt(TIME_WEIGHT)} per budget beyond it, at most {fmt(TIME_CAP)})"
    )


def token_penalty(tokens: int, budget: int | None, result: float | None = None) -> tuple[float, str]:
    """Token burn against the budget (seed 004: fewer tokens than the budget *for the same result*
    score higher). Within it ``10 × (1 − (1 − tokens/budget) × result)``: the tokens saved earn credit
    in proportion to the result (the share of the challenge's tests the submission passes, 0..1), so
    a run that saved tokens by doing nothing earns none; ``result`` unknown counts as 1 and the math
    says so. Over it ``10 + 20 × (tokens/budget − 1)``, at most 30. 0 with no budget."""
    if budget is None:
        return 0.0, f"token burn: {tokens} tokens, the challenge sets no budget → 0"
    ratio = tokens / budget
    if ratio <= 1:
        r = 1.0 if result is None else clamp(result, 0.0, 1.0)
        points = TOKEN_USE_WEIGHT * (1 - (1 - ratio) * r)
        said = "result not known, counted as 1" if result is None else f"result {fmt(round(r, 4))}"
        how = f"{fmt(TOKEN_USE_WEIGHT)} × (1 − (1 − {fmt(round(ratio, 4))}) × {fmt(round(r, 4))}), {said}"
    else:
        points = min(TOKEN_CAP, TOKEN_USE_WEIGHT + (TOKEN_CAP - TOKEN_USE_WEIGHT) * (ratio - 1))
        over = TOKEN_CAP - TOKEN_USE_WEIGHT
        how = f"{fmt(TOKEN_USE_WEIGHT)} + {fmt(over)} × ({fmt(round(ratio, 4))} − 1), at most {fmt(TOKEN_CAP)}"
    shown = f"{fmt(round(ratio, 4))} of budget → −{fmt(round(points, 4))}"
    return points, f"token burn: {tokens}/{budget} = {shown} ({how})"


def action_penalty(actions: int, steps: int | None) -> tuple[float, str]:
    """Actions against the reference decomposition: ``ACTIONS_PER_STEP`` actions allowed per step;
    beyond that ``20 × (1 − allowance/actions)``, the share of the actions beyond the allowance: it grows
    with every action and never reaches 20, so long runs stay apart (a linear term capped at twice the
    allowance held 479 of 500 real SWE-bench runs at its cap); 0 without a reference decomposition."""
    if not steps:
        return 0.0, f"actions: {actions}, the challenge has no reference decomposition to compare with → 0"
    allowance = ACTIONS_PER_STEP * steps
    ratio = actions / allowance
    points = clamp(ACTIONS_WEIGHT * (1 - allowance / actions), 0, ACTIONS_CAP) if actions > allowance else 0.0
    return points, (
        f"actions: {actions} vs {allowance} allowed ({ACTIONS_PER_STEP} per step × {steps} reference steps) "
        f"= {fmt(round(ratio, 4))} → −{fmt(round(points, 4))} ({fmt(ACTIONS_WEIGHT)} × the share of actions "
        f"beyond the allowance)"
    )


def efficiency_score(
    actions: int, wasted: int, churn: int, misuse: int, tokens: int, budget: int | None, steps: int | None = None,
    *, elapsed_s: float | None = None, time_s: float | None = None, result: float | None = None,
) -> Explained | NotScored:
    """``100 − 40·waste_ratio − min(20, 5·churn) − min(15, 3·misuse) − token burn − actions − time``,
    floor 0.

    ``wasted`` is the events that changed nothing and informed nothing *besides* churn and misuse, so no
    event is charged twice; ``steps`` is the number of steps of the reference decomposition;
    ``elapsed_s`` the trajectory's span, ``time_s`` the challenge's time budget; ``result`` the share
    of the challenge's tests passed (0..1), which the token term's credit for tokens saved follows.
    """
    if actions == 0:
        return NotScored("the trajectory has no actions (only messages or usage)", cause="submission")
    ratio = wasted / actions
    waste = WASTE_WEIGHT * ratio
    churn_pts = min(CHURN_CAP, CHURN_POINTS * churn)
    misuse_pts = min(MISUSE_CAP, MISUSE_POINTS * misuse)
    tok_pts, tok_line = token_penalty(tokens, budget, result)
    act_pts, act_line = action_penalty(actions, steps)
    time_pts, time_line = time_penalty(elapsed_s, time_s)
    value = max(0.0, 100 - waste - churn_pts - misuse_pts - tok_pts - act_pts - time_pts)
    return Explained(
        value,
        (
            f"waste ratio = {wasted}/{actions} actions = {fmt(round(ratio, 4))} → −{fmt(round(waste, 4))}",
            f"retry churn: {churn} → −{fmt(churn_pts)} (5 each, at most 20)",
            f"tool misuse: {misuse} → −{fmt(misuse_pts)} (3 each, at most 15)",
            tok_line,
            act_line,
            time_line,
            f"efficiency = max(0, 100 − {fmt(round(waste, 4))} − {fmt(churn_pts)} − {fmt(misuse_pts)} − "
            f"{fmt(round(tok_pts, 4))} − {fmt(round(act_pts, 4))} − {fmt(round(time_pts, 4))}) = {fmt(value)}",
        ),
    )


# --- calibration ---------------------------------------------------------------------------------


def brier_score(probability: float, correct: bool) -> float:
    """``(p − outcome)²`` for one stated probability; averaged over submissions it is the Brier score."""
    if not 0 <= probability <= 1:
        raise ValueError("a probability lies within 0..1")
    return (probability - (1.0 if correct else 0.0)) ** 2
