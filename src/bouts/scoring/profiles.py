"""The three profiles of SPEC §2 (weights in ``bouts.scoring.catalogue``), bands, clamping and rounding.

A component that was not scored is never given a number. A profile missing components is computed
over the components it has, their weights rescaled so that they keep the profile's total weight
(the same rule by which SPEC's ``correctness`` is the rescaled static/adversarial pair), and it is
marked *provisional* with the missing components named. The objective the four-judge and composite
profiles weigh is the engine score (:func:`objective`); a profile whose objective was made without
some of the six is provisional too, naming them. Only the platform's failures get here: a component
the submission kept from being measured is a 0 already (``bouts.scoring.withholding``, SPEC §6).

After the clamp every profile applies SPEC §2's two cliffs (:class:`Cliffs`), each a line of the
math: an integrity bright line caps the final at 14, a critical security finding at 75. See
docs/scoring.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from bouts.scoring.catalogue import ENGINE_WEIGHTS, FOUR_JUDGE_WEIGHTS
from bouts.scoring.explain import Explained, NotScored, clamp, clean, fmt, round_half_up
from bouts.scoring.weights import FAMILIES, CompositeWeights

BANDS: tuple[tuple[int, str], ...] = (
    (90, "Elite"),
    (75, "Strong"),
    (55, "Competent"),
    (35, "Struggling"),
    (15, "Weak"),
    (0, "Failed"),
)


INTEGRITY_CAP = 14.0
"""SPEC §2: a bright line puts the final in the Failed band (seed 004: "0–14 Failed")."""
SECURITY_CAP = 75.0
"""SPEC §2: a critical security finding keeps the final at 75 or below (seed 000, principle 4)."""


@dataclass(frozen=True)
class Cliffs:
    """What triggers SPEC §2's two cliffs, applied after the clamp in every profile."""

    bright_lines: tuple[str, ...] = ()
    """Integrity bright lines that stand (a reviewer's overturned ones left out): cap 14."""
    critical_findings: tuple[str, ...] = ()
    """Critical security findings the submission introduced: cap 75."""

    def apply(self, profile: str, value: float) -> tuple[float, tuple[str, ...]]:
        """``value`` capped by each cliff that applies, with one line of math per cliff."""
        lines: list[str] = []
        for cap, what, why in (
            (INTEGRITY_CAP, "integrity cliff", self.bright_lines),
            (SECURITY_CAP, "security cliff", self.critical_findings),
        ):
            if not why:
                continue
            # Each by its kind ("hard-coded output", "semgrep:…sql-injection at app.py:49"): the whole
            # evidence is on the integrity component and the security findings.
            kinds = list(dict.fromkeys(w.split(": ", 1)[0] for w in why))
            shown = "; ".join(kinds[:3]) + (f"; … {len(kinds) - 3} more" if len(kinds) > 3 else "")
            capped = min(value, cap)
            effect = f"{fmt(value)} → {fmt(capped)}" if capped < value else f"{fmt(value)} is already at or below it"
            lines.append(f"{profile}: {what}: {shown} caps the final at {fmt(cap)}: {effect}")
            value = capped
        return value, tuple(lines)


def band(final: int) -> str:
    """90–100 Elite, 75–89 Strong, 55–74 Competent, 35–54 Struggling, 15–34 Weak, 0–14 Failed."""
    for floor, name in BANDS:
        if final >= floor:
            return name
    return "Failed"


@dataclass(frozen=True)
class Contribution:
    score: float | None
    weight: float
    """The profile's nominal weight."""
    effective_weight: float
    """The weight actually applied (rescaled when components are missing)."""
    points: float | None


@dataclass(frozen=True)
class ProfileResult:
    profile: str
    raw: float | None
    final: int | None
    band: str | None
    provisional: bool
    missing: tuple[str, ...]
    contributions: Mapping[str, Contribution]
    adjustments: Mapping[str, float] = field(default_factory=dict)
    math: tuple[str, ...] = ()


Scores = Mapping[str, Explained | NotScored]


def _weighted(
    profile: str, weights: Mapping[str, float], scores: Scores
) -> tuple[float | None, dict[str, Contribution], tuple[str, ...], tuple[str, ...]]:
    """Σ weight·score over the scored components, rescaled to the full weight when some are missing."""
    present = {k: v for k, v in ((k, scores.get(k)) for k in weights) if isinstance(v, Explained)}
    absent = tuple(k for k in weights if k not in present)
    missing = tuple(k for k in absent if _applies(scores.get(k)))
    inapplicable = tuple(k for k in absent if k not in missing)
    total_w = sum(weights.values())
    present_w = sum(weights[k] for k in present)
    if not present:
        contributions = {k: Contribution(None, w, 0.0, None) for k, w in weights.items()}
        return None, contributions, missing, (f"{profile}: no component scored, no score",)
    scale = total_w / present_w
    contributions = {}
    raw = 0.0
    for k, w in weights.items():
        if k in present:
            # Sum the unrounded points; only what is displayed is rounded.
            raw += w * scale * present[k].value
            contributions[k] = Contribution(present[k].value, w, clean(w * scale), clean(w * scale * present[k].value))
        else:
            contributions[k] = Contribution(None, w, 0.0, None)
    terms = " + ".join(f"{fmt(weights[k])}×{fmt(v.value)}" for k, v in present.items())
    lines = []
    if absent:
        parts = [f"{', '.join(missing)} not scored"] if missing else []
        for k in inapplicable:
            reason = scores[k].reason  # type: ignore[union-attr]  # an inapplicable NotScored
            parts.append(f"{k} does not apply ({reason})")
        head = f"{profile} is provisional: " if missing else f"{profile}: "
        lines.append(
            f"{head}{'; '.join(parts)}; the scored weights ({fmt(present_w)}) are rescaled to {fmt(total_w)} "
            f"(× {fmt(scale)})"
        )
        lines.append(f"{profile} = ({terms}) × {fmt(scale)} = {fmt(raw)}")
    else:
        lines.append(f"{profile} = {terms} = {fmt(raw)}")
    return raw, contributions, missing, tuple(lines)


def _applies(result: Explained | NotScored | None) -> bool:
    """Absent or not scored counts against a profile; a component that does not apply does not."""
    return not (isinstance(result, NotScored) and not result.applies)


def objective(scores: Scores) -> Explained | NotScored:
    """SPEC §1's objective: the engine score of the six components (seed 000's complete scoring
    methodology), rescaled over the ones scored. Its math is the first link of the chain
    components → objective → profile."""
    raw, _, _, lines = _weighted("objective", ENGINE_WEIGHTS, scores)
    if raw is None:
        return NotScored("none of the six engine components was scored")
    return Explained(clamp(raw, 0.0, 100.0), lines)


def objective_missing(scores: Scores) -> tuple[str, ...]:
    """The engine components an objective derived from ``scores`` was made without."""
    return tuple(k for k in ENGINE_WEIGHTS if not isinstance(scores.get(k), Explained) and _applies(scores.get(k)))


def _inherit(
    profile: str, missing: tuple[str, ...], lines: tuple[str, ...], scores: Scores, objective_missing: Sequence[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A scored objective made without some of the six engine components makes the profile provisional."""
    inherited = tuple(k for k in objective_missing if k not in missing)
    if not inherited or not isinstance(scores.get("objective"), Explained):
        return missing, lines
    line = f"{profile} is provisional: its objective was made without {', '.join(inherited)}"
    return missing + inherited, lines + (line,)


def _finish(
    profile: str,
    raw: float | None,
    contributions: dict[str, Contribution],
    missing: tuple[str, ...],
    lines: tuple[str, ...],
    adjustments: Mapping[str, float] | None = None,
    cliffs: Cliffs = Cliffs(),
) -> ProfileResult:
    if raw is None:
        return ProfileResult(profile, None, None, None, True, missing, contributions, adjustments or {}, lines)
    clamped = clamp(raw, 0.0, 100.0)
    if clamped != raw:
        lines += (f"{profile}: {fmt(raw)} clamped to {fmt(clamped)}",)
    clamped, cliff_lines = cliffs.apply(profile, clamped)
    lines += cliff_lines
    final = round_half_up(clamped)
    lines += (f"{profile}: {fmt(clamped)} → {final} ({band(final)})",)
    return ProfileResult(
        profile, clean(clamped), final, band(final), bool(missing), missing, contributions, adjustments or {}, lines
    )


def engine(scores: Scores, cliffs: Cliffs = Cliffs()) -> ProfileResult:
    """``0.35·static_tests + 0.15·adversarial + 0.20·code_quality + 0.15·deliverables
    + 0.10·security + 0.05·stability``."""
    raw, contributions, missing, lines = _weighted("engine", ENGINE_WEIGHTS, scores)
    return _finish("engine", raw, contributions, missing, lines, cliffs=cliffs)


def four_judge(scores: Scores, objective_missing: Sequence[str] = (), cliffs: Cliffs = Cliffs()) -> ProfileResult:
    """``0.50·objective + 0.20·process + 0.20·strategy + 0.10·integrity``; ``objective_missing``: the
    engine components the given objective was made without (:func:`objective_missing`)."""
    raw, contributions, missing, lines = _weighted("four-judge", FOUR_JUDGE_WEIGHTS, scores)
    missing, lines = _inherit("four-judge", missing, lines, scores, objective_missing)
    return _finish("four-judge", raw, contributions, missing, lines, cliffs=cliffs)


@dataclass(frozen=True)
class Adjustments:
    """The composite's additive terms, each already bounded by its own rule."""

    integrity: Explained = Explained(0.0, ())
    exploit_penalties: Explained = Explained(0.0, ())
    """A positive number that is subtracted."""
    calibration: Explained = Explained(0.0, ())


def composite(
    scores: Scores,
    weights: CompositeWeights = FAMILIES["default"],
    adjustments: Adjustments = Adjustments(),
    objective_missing: Sequence[str] = (),
    cliffs: Cliffs = Cliffs(),
) -> ProfileResult:
    """``Objective·w_o + Process·w_p + Strategy·w_s + Recovery·w_r + Efficiency·w_e
    + IntegrityAdjustment − ExploitPenalties ± CalibrationAdjustment``, clamped to 0–100."""
    raw, contributions, missing, lines = _weighted("composite", weights.as_dict(), scores)
    missing, lines = _inherit("composite", missing, lines, scores, objective_missing)
    header = f"composite weights: {weights.source}" + (" (custom override)" if weights.custom else " family")
    lines = (header,) + lines
    adj = {
        "integrity": adjustments.integrity.value,
        "exploit_penalties": adjustments.exploit_penalties.value,
        "calibration": adjustments.calibration.value,
    }
    if raw is not None:
        lines += adjustments.integrity.math + adjustments.exploit_penalties.math + adjustments.calibration.math
        adjusted = raw + adj["integrity"] - adj["exploit_penalties"] + adj["calibration"]
        lines += (
            f"composite = {fmt(raw)} + ({fmt(adj['integrity'])}) − {fmt(adj['exploit_penalties'])} "
            f"+ ({fmt(adj['calibration'])}) = {fmt(adjusted)}",
        )
        raw = adjusted
    return _finish("composite", raw, contributions, missing, lines, adj, cliffs)


def all_profiles(
    scores: Scores,
    weights: CompositeWeights = FAMILIES["default"],
    adjustments: Adjustments = Adjustments(),
    cliffs: Cliffs = Cliffs(),
) -> dict[str, ProfileResult]:
    """Every scorecard shows all three profiles, each under the same cliffs; their objective is
    derived from ``scores``' six engine components (:func:`objective`)."""
    without = objective_missing(scores)
    return {
        "engine": engine(scores, cliffs),
        "four-judge": four_judge(scores, without, cliffs),
        "composite": composite(scores, weights, adjustments, without, cliffs),
    }


def named(profile: str) -> Sequence[str]:
    """The component names a profile weighs (composite: the default family's)."""
    if profile == "engine":
        return tuple(ENGINE_WEIGHTS)
    if profile == "four-judge":
        return tuple(FOUR_JUDGE_WEIGHTS)
    if profile == "composite":
        return tuple(FAMILIES["default"].as_dict())
    raise KeyError(profile)
