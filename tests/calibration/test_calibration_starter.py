"""`bouts check` runs the visible suite on starter/ and says what an agent starts from."""

from __future__ import annotations

from pathlib import Path

import pytest

from bouts.calibration.check import CheckConfig, check_challenge
from bouts.calibration.starter import starter_problems
from bouts.models.results import Outcome, RunReport, TestResult

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "inventory-ledger"


def result(test_id: str, suite: str, outcome: Outcome, detail: str = "") -> TestResult:
    return TestResult(id=test_id, suite=suite, outcome=outcome, detail=detail)


def run(*results: TestResult) -> RunReport:
    return RunReport(results=list(results), sandbox="bubblewrap", seeds=[1234])


def test_a_starter_that_fails_some_visible_tests_is_fine_and_listed() -> None:
    summary, problems = starter_problems(run(
        result("t.py::a", "visible", Outcome.PASSED), result("t.py::b", "visible", Outcome.FAILED),
    ))  # fmt: skip
    assert problems == [] and summary.visible_passed == ["t.py::a"] and summary.visible_total == 2


def test_a_starter_that_passes_every_visible_test_is_a_warning() -> None:
    _, problems = starter_problems(run(result("t.py::a", "visible", Outcome.PASSED)))
    assert [(p.check, p.level, p.file) for p in problems] == [("starter", "warning", "starter/")]
    assert "already passes all 1 visible tests" in problems[0].message


def test_a_starter_that_does_not_import_is_a_warning_quoting_the_error() -> None:
    summary, problems = starter_problems(run(
        result("t.py::a", "visible", Outcome.ERROR, "ModuleNotFoundError: No module named 'ledger'"),
        result("t.py::b", "visible", Outcome.ERROR, "ModuleNotFoundError: No module named 'ledger'"),
    ))  # fmt: skip
    assert summary.errored == 2 and "No module named 'ledger'" in problems[0].message


@pytest.mark.sandbox
def test_the_example_starter_fails_half_its_visible_tests() -> None:
    report = check_challenge(EXAMPLE, CheckConfig(runs=1, anchors=False, fresh_seeds=[7]))
    assert report.starter is not None and report.starter.visible_total == 12
    assert len(report.starter.visible_passed) == 6  # the 3 shipped bugs and the missing validation fail the rest
    assert not [p for p in report.problems if p.check == "starter"]
