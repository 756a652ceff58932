"""Workers start from the pytest configuration their supervisor prepared once per session
(docs/benchmarks.md, "A worker's start"): what each worker reads of the workspace (the challenge's
conftest, the test files, the submission) is still its own, in both seed phases; the other workers
are clones of the one that collected (docs/sandbox.md, "Clones")."""

from __future__ import annotations

import pytest

from bouts.models.results import Outcome
from bouts.runner import RunOptions, grade
from bouts.sandbox import Sandbox

FIXTURE = """
import pytest
import solution

@pytest.fixture
def base():
    return solution.BASE
"""
TESTS = {
    "visible": {"test_v.py": "def test_v1(base):\n    assert base == 40\n\n"
                             "def test_v2(base):\n    assert base % 10 == 0\n"},
    "hidden": {"test_h.py": "def test_h1(base):\n    assert base + 2 == 42\n\n"
                            "def test_h2(base):\n    assert base == 40\n"},
}  # fmt: skip


def _challenge(make_challenge, submission: str, conftest: str):  # noqa: ANN001, ANN202
    challenge, code = make_challenge(TESTS, {"solution.py": submission})
    (challenge.root / "tests" / "conftest.py").write_text(conftest)
    (challenge.reference).mkdir()
    (challenge.reference / "solution.py").write_text("BASE = 40\n")
    return challenge, code


@pytest.mark.parametrize(("submission", "outcome"), [("BASE = 40\n", Outcome.PASSED), ("BASE = 41\n", Outcome.FAILED)])
def test_the_challenge_conftest_reaches_every_worker_in_both_phases(
    make_challenge, bwrap: Sandbox, submission: str, outcome: Outcome
) -> None:
    # The fixture reads the submission in each worker (the collecting one and its clone): the wrong
    # one fails every test, in both phases.
    report = grade(*_challenge(make_challenge, submission, FIXTURE), sandbox=bwrap, options=RunOptions(workers=2))
    # Both seeds ran (a hidden test passes only if it passed under each: merge_phases).
    assert len(report.results) == 4 and len(report.seeds) == 2
    assert {r.outcome for r in report.results} == {outcome}, [(r.id, r.detail) for r in report.results]


def test_a_conftest_that_fails_to_import_fails_every_file(make_challenge, bwrap: Sandbox) -> None:
    broken = "from solution import NOT_THERE\n" + FIXTURE
    report = grade(*_challenge(make_challenge, "BASE = 40\n", broken), sandbox=bwrap)
    assert {(r.id, r.outcome) for r in report.results} == {
        ("tests/visible/test_v.py", Outcome.ERROR),
        ("tests/hidden/test_h.py", Outcome.ERROR),
    }
    assert all(r.detail.startswith("collection did not complete") for r in report.results)
