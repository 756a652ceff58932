"""`bouts compute`: the worked example end to end, and input errors as exit 2 with the field named."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from bouts.cli.main import app
from bouts.errors import ComputeInputError
from bouts.scoring.compute import ComputeRequest, compute
from bouts.scoring.weights import FAMILIES

runner = CliRunner()

WORKED = [
    "static_tests=90",
    "adversarial=70",
    "code_quality=72",
    "deliverables=74.5",
    "security=95",
    "stability=100",
]


def run(*args: str):
    return runner.invoke(app, ["compute", *args])


def text_of(result) -> str:
    """Everything printed, with Rich's line wrapping undone."""
    return " ".join(result.output.split())


def test_worked_example_text():
    result = run("engine", *WORKED)
    assert result.exit_code == 0, result.output
    assert "final: 82 (Strong)" in result.stdout
    assert "82.075" in result.stdout


def test_worked_example_json():
    result = run("engine", *WORKED, "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["final"] == 82
    assert payload["raw"] == 82.075
    assert payload["band"] == "Strong"
    assert payload["provisional"] is False
    assert payload["components"]["static_tests"] == {
        "score": 90.0,
        "weight": 0.35,
        "effective_weight": 0.35,
        "points": 31.5,
    }


def test_worked_example_from_raw_inputs():
    # judges and deliverable sub-scores aggregated by the CLI itself
    result = run(
        "engine",
        "static_tests=90",
        "adversarial=70",
        "code_quality=72,68,76",
        "deliverables=80,75,70,65",
        "security=95",
        "stability=100",
        "--json",
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert (payload["final"], payload["raw"]) == (82, 82.075)
    assert payload["flags"] == []


def test_panel_disagreement_is_flagged_in_json():
    result = run("engine", "code_quality=10,50,90", "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["raw"] == 40
    assert payload["provisional"] is True
    assert [f["code"] for f in payload["flags"]] == ["human_review"]


def test_composite_with_family_and_adjustments():
    result = run(
        "composite",
        "objective=80",
        "process=60",
        "strategy=70",
        "recovery=50",
        "efficiency=40",
        "--family",
        "recovery-lab",
        "--integrity",
        "5",
        "--exploit",
        "10",
        "--calibration",
        "-3",
        "--json",
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    expected = 0.30 * 80 + 0.15 * 60 + 0.10 * 70 + 0.35 * 50 + 0.10 * 40 + 5 - 10 - 3
    assert payload["raw"] == pytest.approx(expected)
    assert payload["adjustments"] == {"integrity": 5, "exploit_penalties": 10, "calibration": -3}


def test_composite_custom_weights():
    result = run(
        "composite",
        "objective=100",
        "process=100",
        "strategy=100",
        "recovery=100",
        "efficiency=100",
        "--weights",
        "40/15/15/15/15",
        "--json",
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["raw"] == 100


def test_composite_big_exploit_clamps_to_zero():
    result = run("composite", "objective=100", "--exploit", "1000", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["final"] == 0


def test_four_judge_derives_objective_from_the_six_engine_components():
    result = run("four-judge", *WORKED, "process=80", "strategy=70", "integrity=100", "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["raw"] == pytest.approx(0.5 * 82.075 + 0.2 * 80 + 0.2 * 70 + 0.1 * 100)
    assert payload["provisional"] is False


def test_composite_shows_the_chain_components_objective_composite_adjustments_final():
    result = run(
        "composite", *WORKED, "process=80", "strategy=70", "recovery=100", "efficiency=90",
        "--confidence", "confident", "--exploit", "10", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    math = payload["math"]
    objective = "objective = 0.35×90 + 0.15×70 + 0.2×72 + 0.15×74.5 + 0.1×95 + 0.05×100 = 82.075"
    raw = 0.45 * 82.075 + 0.15 * 80 + 0.15 * 70 + 0.10 * 100 + 0.10 * 90
    # correctness (0.35×90 + 0.15×70)/0.5 = 84 ≥ 75: a confident statement earns +3
    assert payload["raw"] == pytest.approx(raw - 10 + 3)
    order = [
        math.index(objective),
        next(i for i, line in enumerate(math) if line.startswith("correctness = ")),
        next(i for i, line in enumerate(math) if line.startswith("composite = 0.45×82.075")),
        next(i for i, line in enumerate(math) if line.startswith("calibration: stated 'confident', correctness 84")),
        next(i for i, line in enumerate(math) if line.startswith("composite: ") and "→" in line),
    ]
    assert order == sorted(order), math


def test_objective_given_or_derived_give_the_same_composite():
    derived = json.loads(run("composite", *WORKED, "process=80", "--json").stdout)
    given = json.loads(run("composite", "objective=82.075", "process=80", "--json").stdout)
    assert derived["raw"] == given["raw"]


def test_confidence_is_judged_by_correctness_not_objective():
    # objective 100 but correctness 70: a confident statement is wrong (−3)
    result = run("composite", "objective=100", "correctness=70", "--confidence", "confident", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["adjustments"]["calibration"] == -3
    result = run("composite", "static_tests=100", "adversarial=100", "--confidence", "confident", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["adjustments"]["calibration"] == 3


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["engine", "bogus=50"], ["field 'bogus'", "not a component of the engine profile"]),
        (["engine", "static_tests=101"], ["field 'static_tests'", "101 is outside 0-100"]),
        (["engine", "static_tests=-1"], ["field 'static_tests'", "outside 0-100"]),
        (["engine", "static_tests=abc"], ["field 'static_tests'", "not a number"]),
        (["engine", "static_tests"], ["expected name=value"]),
        (["engine", "static_tests=90,80"], ["field 'static_tests'", "takes one number"]),
        (["engine", "deliverables=1,2,3"], ["field 'deliverables'"]),
        (["engine", "static_tests=nan"], ["field 'static_tests'"]),
        (["nope", "static_tests=1"], ["unknown profile 'nope'"]),
        (["composite", "objective=50", "--weights", "1/2/3"], ["field 'weights'", "five weights"]),
        (["composite", "objective=50", "--weights", "a/b/c/d/e"], ["field 'weights'", "not five numbers"]),
        (
            ["composite", "objective=50", "--weights", "20/20/20/20/10"],
            ["field 'weights'", "below the minimum"],
        ),
        (
            ["composite", "objective=50", "--weights", "30/40/10/10/5"],
            ["field 'weights'", "larger than the objective"],
        ),
        (["composite", "objective=50", "--weights", "30/10/10/10/10"], ["field 'weights'", "outside 0.9-1"]),
        (["composite", "objective=50", "--family", "nope"], ["field 'family'", "unknown family 'nope'"]),
        (["composite", "objective=50", "--integrity", "11"], ["field 'integrity'"]),
        (["composite", "objective=50", "--integrity", "-26"], ["field 'integrity'"]),
        (["composite", "objective=50", "--exploit", "-1"], ["field 'exploit'"]),
        (["composite", "objective=50", "--calibration", "6"], ["field 'calibration'"]),
        (["composite", "objective=50", "--confidence", "very"], ["field 'confidence'"]),
        (
            ["composite", "objective=50", "--calibration", "1", "--confidence", "unsure"],
            ["field 'calibration'"],
        ),
        (["composite", "process=50", "--confidence", "unsure"], ["field 'confidence'"]),
        (["composite", "objective=50", "static_tests=50"], ["field 'objective'"]),
        (["composite", "objective=50", "security=50"], ["field 'objective'", "not both"]),
        (["composite", "correctness=50", "adversarial=50"], ["field 'correctness'", "not both"]),
        (["composite", "objective=50", "--confidence", "unsure"], ["field 'confidence'", "correctness"]),
        (["four-judge", "correctness=50"], ["field 'correctness'", "not a component of the four-judge"]),
    ],
)
def test_input_errors_exit_2_naming_the_field(args, needles):
    result = run(*args)
    assert result.exit_code == 2, result.output
    out = text_of(result)
    assert "Traceback" not in out
    assert result.exception is None or isinstance(result.exception, SystemExit)
    for needle in needles:
        assert needle in out


def test_exploit_nan_rejected():
    result = run("composite", "objective=10", "--exploit", "nan", "--json")
    assert result.exit_code == 2, result.output
    assert "field 'exploit'" in text_of(result)


def test_compute_library_rejects_unknown_component():
    req = ComputeRequest(profile="engine", values={"bogus": [1]}, weights=FAMILIES["default"])
    with pytest.raises(ComputeInputError) as info:
        compute(req)
    assert info.value.field == "bogus"


def test_compute_library_worked_example():
    values = {
        "static_tests": [90],
        "adversarial": [70],
        "code_quality": [72, 68, 76],
        "deliverables": [80, 75, 70, 65],
        "security": [95],
        "stability": [100],
    }
    result, panels = compute(ComputeRequest(profile="engine", values=values, weights=FAMILIES["default"]))
    assert (result.raw, result.final, result.band) == (82.075, 82, "Strong")
    assert [p.rule for p in panels] == ["median"]


def test_custom_override_is_shown():
    result = run("composite", "objective=80", "--weights", "40/15/15/15/15")
    assert result.exit_code == 0, result.output
    assert "custom override" in result.stdout
    assert "provisional" in result.stdout


def test_family_is_shown():
    result = run("composite", "objective=80", "--family", "fog-of-war", "--json")
    assert result.exit_code == 0, result.output
    assert "composite weights: fog-of-war family" in json.loads(result.stdout)["math"]


def test_non_numeric_option_is_a_usage_error_not_a_traceback():
    result = run("composite", "objective=80", "--integrity", "abc")
    assert result.exit_code == 2
    assert "--integrity" in text_of(result)
    assert "Traceback" not in text_of(result)


def test_nothing_given_is_not_scored_not_a_crash():
    result = run("engine", "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["final"] is None and payload["raw"] is None
