"""Compute one profile from component scores given by hand (``bouts compute``). Pure."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from bouts.errors import ComputeInputError
from bouts.scoring import catalogue, components, panel, profiles
from bouts.scoring.adjustments import (
    CALIBRATION_BOUND,
    INTEGRITY_MAX_BONUS,
    INTEGRITY_MAX_PENALTY,
    Confidence,
    calibration_adjustment,
)
from bouts.scoring.explain import Explained, NotScored, fmt
from bouts.scoring.weights import CompositeWeights

ENGINE = tuple(catalogue.ENGINE_WEIGHTS)
PROFILE_INPUTS: Mapping[str, tuple[str, ...]] = {
    "engine": ENGINE,
    "four-judge": (*ENGINE, *catalogue.FOUR_JUDGE_WEIGHTS),
    "composite": (*ENGINE, "correctness", *catalogue.COMPOSITE_COMPONENTS),
}
"""What each profile takes: the four-judge and composite profiles take ``objective=`` or the six
engine components it is made of (SPEC §1); the composite also ``correctness=`` for the calibration
rule when the static/adversarial pair is not given."""


@dataclass(frozen=True)
class ComputeRequest:
    profile: str
    values: Mapping[str, Sequence[float]]
    """One number per component, or several: judges' scores for code_quality (aggregated by the panel
    rule), the four sub-scores accuracy/clarity/completeness/actionability for deliverables."""
    weights: CompositeWeights
    integrity_adjustment: float = 0.0
    exploit_penalties: float = 0.0
    calibration: float | None = None
    confidence: Confidence | None = None
    correct_threshold: float = 75.0


def _one(name: str, numbers: Sequence[float]) -> Explained:
    if len(numbers) == 1:
        return Explained(numbers[0], (f"{name} = {fmt(numbers[0])} (given)",))
    if name == "deliverables":
        if len(numbers) != 4:
            raise ComputeInputError(
                "deliverables takes one score or four sub-scores accuracy/clarity/completeness/actionability",
                field=name,
            )
        keys = tuple(components.DELIVERABLE_WEIGHTS)
        return components.deliverable(dict(zip(keys, numbers, strict=True)), "deliverables")
    raise ComputeInputError(f"takes one number, got {len(numbers)}", field=name)


def compute(req: ComputeRequest) -> tuple[profiles.ProfileResult, list[panel.PanelResult]]:
    """Validate the request and compute the profile. Raises ``ComputeInputError`` naming the field."""
    fields: list[tuple[str, float]] = [(name, x) for name, v in req.values.items() for x in v]
    fields += [
        ("integrity", req.integrity_adjustment),
        ("exploit", req.exploit_penalties),
        ("threshold", req.correct_threshold),
        ("calibration", req.calibration or 0.0),
    ]
    for name, x in fields:
        if not math.isfinite(x):
            raise ComputeInputError(f"must be a finite number, got {x}", field=name)
    if not 0 <= req.correct_threshold <= 100:
        raise ComputeInputError("must lie within 0-100", field="threshold")
    if req.profile not in PROFILE_INPUTS:
        raise ComputeInputError(f"unknown profile '{req.profile}'; choose one of {', '.join(PROFILE_INPUTS)}")
    allowed = PROFILE_INPUTS[req.profile]
    for name, numbers in req.values.items():
        if name not in allowed:
            raise ComputeInputError(
                f"'{name}' is not a component of the {req.profile} profile; it takes {', '.join(allowed)}",
                field=name,
            )
        for x in numbers:
            if not 0 <= x <= 100:
                raise ComputeInputError(f"{fmt(x)} is outside 0-100", field=name)
    if not -INTEGRITY_MAX_PENALTY <= req.integrity_adjustment <= INTEGRITY_MAX_BONUS:
        raise ComputeInputError(
            f"must lie within −{fmt(INTEGRITY_MAX_PENALTY)}..+{fmt(INTEGRITY_MAX_BONUS)}", field="integrity"
        )
    if req.exploit_penalties < 0:
        raise ComputeInputError("is a number of points to subtract, 0 or more", field="exploit")
    if req.calibration is not None and not -CALIBRATION_BOUND <= req.calibration <= CALIBRATION_BOUND:
        raise ComputeInputError(f"must lie within ±{fmt(CALIBRATION_BOUND)}", field="calibration")
    adjusted = req.integrity_adjustment or req.exploit_penalties or req.calibration or req.confidence
    if req.profile != "composite" and adjusted:
        raise ComputeInputError(
            f"adjustments (integrity, exploit, calibration, confidence) apply to the composite profile only, "
            f"not {req.profile}",
            field="adjustments",
        )
    if req.calibration is not None and req.confidence is not None:
        raise ComputeInputError("give --calibration or --confidence, not both", field="calibration")

    panels: list[panel.PanelResult] = []
    scores: dict[str, Explained | NotScored] = {}
    for name, numbers in req.values.items():
        if name == "code_quality" and len(numbers) > 1:
            result = panel.aggregate(numbers)
            assert isinstance(result, panel.PanelResult)  # numbers is non-empty
            panels.append(result)
            scores[name] = result.score
        else:
            scores[name] = _one(name, numbers)
    if req.profile != "engine":
        _derive(scores)
    without = profiles.objective_missing(scores) if any(k in req.values for k in ENGINE) else ()
    if req.profile == "engine":
        return _with_inputs(profiles.engine(scores), scores), panels
    if req.profile == "four-judge":
        return _with_inputs(profiles.four_judge(scores, without), scores), panels
    adjustments = profiles.Adjustments(
        integrity=Explained(
            req.integrity_adjustment, (f"integrity_adjustment = {fmt(req.integrity_adjustment)} (given)",)
        ),
        exploit_penalties=Explained(
            req.exploit_penalties, (f"exploit_penalties = {fmt(req.exploit_penalties)} (given)",)
        ),
        calibration=_calibration(req, scores.get("correctness")),
    )
    return _with_inputs(profiles.composite(scores, req.weights, adjustments, without), scores), panels


def _derive(scores: dict[str, Explained | NotScored]) -> None:
    """The objective from the six engine components given (or given itself), and correctness from
    the static/adversarial pair (or given itself): never both ways at once."""
    given = [k for k in ENGINE if k in scores]
    if "objective" in scores and given:
        raise ComputeInputError(
            f"give objective, or the engine components to derive it ({', '.join(ENGINE)}), not both; "
            f"got objective and {', '.join(given)}",
            field="objective",
        )
    pair = [k for k in catalogue.CORRECTNESS_WEIGHTS if k in scores]
    if "correctness" in scores and pair:
        raise ComputeInputError(
            f"give correctness, or static_tests/adversarial to derive it, not both; got correctness and "
            f"{', '.join(pair)}",
            field="correctness",
        )
    if given:
        scores["objective"] = profiles.objective(scores)
    if pair:
        scores["correctness"] = components.correctness(
            scores.get("static_tests", NotScored("not given")), scores.get("adversarial", NotScored("not given"))
        )


def _with_inputs(result: profiles.ProfileResult, scores: Mapping[str, Explained | NotScored]) -> profiles.ProfileResult:
    """Put the components' own math (panel rule, deliverable weights, objective) before the profile's."""
    derived = tuple(line for s in scores.values() for line in s.math if "(given)" not in line)
    return replace(result, math=derived + result.math)


def _calibration(req: ComputeRequest, correctness: Explained | NotScored | None) -> Explained:
    if req.confidence is not None:
        if not isinstance(correctness, Explained):
            raise ComputeInputError(
                "needs a correctness score to judge the stated confidence: give correctness=, or "
                "static_tests/adversarial to derive it",
                field="confidence",
            )
        return calibration_adjustment(req.confidence, correctness.value, req.correct_threshold)
    value = req.calibration or 0.0
    return Explained(value, (f"calibration = {fmt(value)} (given)",))
