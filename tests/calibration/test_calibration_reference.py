"""Flaky-test quarantine and time budgets from repeated reference runs."""

from __future__ import annotations

import textwrap
import tomllib
from pathlib import Path

import pytest

from bouts.calibration.check import CheckConfig, check_challenge
from bouts.calibration.reference import PhaseRun, analyse, quarantine_toml
from bouts.models.challenge import Limits
from bouts.models.results import Outcome, RunReport, TestResult

V = "tests/visible/test_v.py::test_a"
H = "tests/hidden/test_h.py::test_a__b"


def _report(*results: tuple[str, str, Outcome, float], duration: float = 1.0) -> RunReport:
    rs = [TestResult(id=i, suite=s, outcome=o, duration_s=d) for i, s, o, d in results]  # type: ignore[arg-type]
    return RunReport(results=rs, sandbox="none", duration_s=duration)


def test_a_test_failing_only_in_a_fresh_seed_phase_is_quarantined_with_its_seed() -> None:
    ok = _report((V, "visible", Outcome.PASSED, 0.01), (H, "hidden", Outcome.PASSED, 0.2))
    phases = [
        PhaseRun(1, "published", 1234, ok),
        PhaseRun(1, "fresh", 77, _report((H, "hidden", Outcome.PASSED, 0.01))),
        PhaseRun(2, "published", 1234, ok),
        PhaseRun(2, "fresh", 78, _report((H, "hidden", Outcome.FAILED, 0.01))),
    ]
    report, problems = analyse(phases, Limits())
    assert [q.id for q in report.quarantined] == [H]
    assert report.quarantined[0].failures == ["run 2, fresh seed 78: failed"]
    assert report.seeds == [1234, 77, 78] and report.runs == 2 and report.tests == 2
    assert [p.field for p in problems if p.level == "error"] == [H]
    assert report.slowest[0].id == H and report.suggested_test_timeout_s == 2.0  # 10 × 0.2 s


def test_values_that_differ_between_runs_with_the_same_seed_are_quarantined() -> None:
    ok = _report((V, "visible", Outcome.PASSED, 0.01))
    phases = [PhaseRun(1, "published", 1, ok, {V: ("a",)}), PhaseRun(2, "published", 1, ok, {V: ("b",)})]
    report, _ = analyse(phases, Limits())
    assert report.quarantined[0].id == V and "bouts_expect values differ" in report.quarantined[0].failures[0]


def test_observed_values_that_change_between_same_seed_runs_are_quarantined() -> None:
    # A test whose expected value depends on the clock or on hash order: the golden run a graded
    # run is held to could not be matched by a correct submission.
    ok = _report((V, "visible", Outcome.PASSED, 0.01))
    same = [[0, {"0": 3}]]
    steady = [PhaseRun(run, "published", 1, ok, {}, {V: tuple(same)}) for run in (1, 2)]
    assert analyse(steady, Limits())[0].quarantined == []
    moving = [steady[0], PhaseRun(2, "published", 1, ok, {}, {V: ([0, {"0": 4}],)})]
    report, _ = analyse(moving, Limits())
    assert report.quarantined[0].id == V and "nondeterministic" in report.quarantined[0].failures[0]


def test_a_tight_timeout_is_a_warning_and_missing_tests_are_quarantined() -> None:
    phases = [
        PhaseRun(1, "published", 1, _report((V, "visible", Outcome.PASSED, 2.0))),
        PhaseRun(2, "published", 1, _report()),
    ]
    report, problems = analyse(phases, Limits(test_timeout_s=5))
    assert report.quarantined[0].failures == ["run 2, published seed 1: not reported"]
    assert any(p.field == "limits.test_timeout_s" and p.level == "warning" for p in problems)
    assert report.suggested_test_timeout_s == 20.0


def test_the_quarantine_file_is_valid_toml() -> None:
    phases = [PhaseRun(1, "published", 1, _report((V, "visible", Outcome.FAILED, 0.0)))]
    report, _ = analyse(phases, Limits())
    data = tomllib.loads(quarantine_toml(report))
    assert data["schema"] == "bouts.quarantine/1" and data["test"][0]["id"] == V


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))


@pytest.mark.sandbox
def test_a_seed_dependent_hidden_test_fails_in_the_fresh_phase_and_refuses_the_launch(tmp_path: Path) -> None:
    code = "def add(a, b):\n    return a + b\n"
    _write(tmp_path, {
        "challenge.toml": 'id = "flaky"\ntitle = "Flaky"\n[limits]\ntest_timeout_s = 5\nsuite_timeout_s = 60\n',
        "starter/calc.py": code,
        "reference/calc.py": code,
        "tests/visible/test_calc_visible.py": "from calc import add\ndef test_add():\n    assert add(1, 2) == 3\n",
        "tests/hidden/test_calc_hidden.py": """
            import os
            from calc import add
            def test_add__swap():
                assert add(2, 1) == 3
            def test_add__seeded():
                # Flaky on purpose: only the published seed passes.
                assert os.environ["BOUTS_SEED"] == "1234"
        """,
    })  # fmt: skip
    report = check_challenge(tmp_path, CheckConfig(runs=1, anchors=False, fresh_seeds=[99], write_quarantine=True))
    assert not report.launch
    assert report.reference is not None
    assert [q.id for q in report.reference.quarantined] == ["tests/hidden/test_calc_hidden.py::test_add__seeded"]
    assert report.reference.quarantined[0].failures[0].startswith("run 1, fresh seed 99: failed")
    assert report.reference.seeds == [1234, 99]
    assert (tmp_path / "quarantine.toml").is_file() and report.reference.quarantine_file == "quarantine.toml"
    named = [p for p in report.problems if p.check == "reference" and p.level == "error"]
    assert named and named[0].field == "tests/hidden/test_calc_hidden.py::test_add__seeded"
    # the lint saw the too-thin behaviour coverage was fine (2 hidden) and the missing anchors were named
    assert any(p.file == "anchors/low" for p in report.problems)
