"""`bouts check` runs the tests generated from the reference solution and refuses the launch when
the reference fails one: a generator false positive or a defect of the challenge."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bouts.adversarial import GeneratedRun, GeneratedSuite, GeneratedTest
from bouts.adversarial._model import Target
from bouts.calibration.check import CheckConfig, check_challenge
from bouts.calibration.reference import generated_problems
from bouts.judges.base import Verdict
from bouts.models.results import Outcome, RunReport, TestResult
from bouts.scoring.explain import Explained, NotScored

LEAGUE = Path(__file__).resolve().parents[2] / "examples" / "league-table"
TARGET = Target("unvalidated_input", "league/extra.py", 2, "league.extra:at", "indexing", "i indexes `rows[i]`", "i")
TEST = GeneratedTest("tests/generated/test_gen_unvalidated_input.py::test_gen_001_at_i", TARGET, "league.extra:at",
                     "i", "fuzz", "def test_gen_001_at_i(value): ...")  # fmt: skip


def _run(outcome: Outcome | None, detail: str = "") -> GeneratedRun:
    results = [] if outcome is None else [TestResult(id=TEST.id, suite="generated", outcome=outcome, detail=detail)]
    report = RunReport(results=results, sandbox="fake")
    verdict = Verdict("adversarial-gen", "adversarial_generated", Explained(0.0))
    return GeneratedRun("python-ast/3", GeneratedSuite(1, {}, (TEST,)), report, verdict)


def test_a_generated_test_the_reference_fails_is_an_error_naming_the_code_and_the_test() -> None:
    problems, not_scored = generated_problems([(1234, _run(Outcome.FAILED, "IndexError ...")), (7, _run(None))])
    (p,) = problems
    assert p.level == "error" and p.check == "reference" and not_scored is None
    assert p.file == "reference/league/extra.py" and p.field == TEST.id
    assert "seed 1234: failed: IndexError" in p.message and "(and 1 more)" in p.message
    assert "generate = false" in p.message


def test_passing_or_not_generated_is_no_problem() -> None:
    assert generated_problems([(1234, _run(Outcome.PASSED))]) == ([], None)
    verdict = Verdict("adversarial-gen", "adversarial_generated", NotScored("nothing to probe"))
    nothing = GeneratedRun("python-ast/3", GeneratedSuite(1, {}, ()), None, verdict)
    assert generated_problems([(1234, nothing)]) == ([], "nothing to probe")


@pytest.mark.sandbox
def test_bouts_check_refuses_a_reference_that_fails_its_generated_tests(tmp_path: Path) -> None:
    # The reference is the generated tests' oracle, so it fails one only when its answers change
    # from run to run (here: a clock reading): such a reference cannot be an oracle.
    root = tmp_path / "league-table"
    shutil.copytree(LEAGUE, root)
    pkg = root / "reference" / "league"
    (pkg / "extra.py").write_text("import time\n\n\ndef at(rows: list[int], i: int) -> int:\n"
                                  "    return time.perf_counter_ns()\n")
    init = pkg / "__init__.py"
    init.write_text(init.read_text().replace('__all__ = ["standings"]', 'from league.extra import at\n\n'
                                             '__all__ = ["at", "standings"]'))  # fmt: skip
    report = check_challenge(root, CheckConfig(runs=1, anchors=False))
    assert not report.launch
    errors = [p for p in report.problems if p.level == "error"]
    assert errors and all(p.file == "reference/league/extra.py" for p in errors), errors
    assert any("generated adversarial test fails on the reference" in p.message
               and "returned a different value from the reference's" in p.message for p in errors)
