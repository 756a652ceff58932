"""The engine's generated tests in the graded session (``run_pytest``'s ``part``): their own
per-test timeout and suite budget in the driver, their results concluded apart from the
challenge's (docs/sandbox.md, "Generated tests in the graded session")."""

from __future__ import annotations

import pytest

from bouts.models.results import Outcome, TestResult
from bouts.runner._run import GeneratedPart, run_detailed

SLOW = "import time\n\ndef test_slow():\n    time.sleep(3.5)\n\ndef test_quick():\n    assert True\n"
GEN = "tests/generated/test_gen_slow.py"


@pytest.mark.parametrize("per_process", [1, 3])
def test_a_generated_test_keeps_its_own_timeout_and_a_challenge_test_keeps_the_challenge_s(
    make_challenge, bwrap, per_process: int  # noqa: ANN001
) -> None:
    from bouts.runner import RunOptions

    challenge, code = make_challenge({"visible": {"test_slow.py": SLOW}})  # [limits] test_timeout_s = 2
    ids = [f"{GEN}::test_slow", f"{GEN}::test_quick"]
    heard: list[TestResult] = []
    run = run_detailed(
        challenge, code, sandbox=bwrap, suites=("visible",), progress=heard.append,
        options=RunOptions(tests_per_process=per_process), part=GeneratedPart({GEN: SLOW}, 30.0, 120.0, ids),
    )  # fmt: skip
    own = {r.id: r for r in run.report.results}
    assert set(own) == {"tests/visible/test_slow.py::test_slow", "tests/visible/test_slow.py::test_quick"}
    assert own["tests/visible/test_slow.py::test_slow"].outcome is Outcome.TIMEOUT
    assert "2 s test timeout" in own["tests/visible/test_slow.py::test_slow"].detail
    assert own["tests/visible/test_slow.py::test_quick"].outcome is Outcome.PASSED
    assert run.generated is not None
    gen = {r.id: r for r in run.generated.report.results}
    assert set(gen) == set(ids)
    assert all(r.suite == "generated" and r.outcome is Outcome.PASSED for r in gen.values())
    assert not run.report.tampering and not run.generated.report.tampering
    # Progress hears the challenge's tests only (the generated ones' own session had none).
    assert {r.id for r in heard} == set(own)


def test_a_generated_suite_budget_is_its_own(make_challenge, bwrap) -> None:  # noqa: ANN001
    # The challenge's suite budget (1 s) is spent by its first slow test (at most two are handed out
    # before one reports); the generated suite's (60 s) is its own, so none of its tests is cut.
    from bouts.models.challenge import Limits
    from bouts.runner import RunOptions

    limits = Limits(test_timeout_s=5, suite_timeout_s=1, memory_mb=512, max_processes=32, max_file_mb=8,
                    max_output_kb=16)  # fmt: skip
    slow = "import time\n\n" + "".join(f"def test_{i}():\n    time.sleep(1.5)\n\n" for i in range(4))
    challenge, code = make_challenge({"visible": {"test_four.py": slow}}, limits=limits)
    ids = [f"{GEN}::test_{i}" for i in range(3)]
    gen = "import time\n\n" + "".join(f"def test_{i}():\n    time.sleep(1.5)\n\n" for i in range(3))
    run = run_detailed(challenge, code, sandbox=bwrap, suites=("visible",), options=RunOptions(workers=1),
                       part=GeneratedPart({GEN: gen}, 30.0, 60.0, ids))  # fmt: skip
    cut = [r for r in run.report.results if r.detail == "suite time budget exhausted"]
    assert len(cut) >= 2 and all(r.outcome is Outcome.TIMEOUT for r in cut)
    assert run.generated is not None
    assert [r.outcome for r in run.generated.report.results] == [Outcome.PASSED] * 3


def test_a_canary_of_the_generated_file_voids_the_generated_part(make_challenge, bwrap) -> None:  # noqa: ANN001
    # Submission code that makes every test pass at import (a conftest-free forgery: pytest's
    # outcome rewritten) is found by the canaries of either part; each part is voided as its own
    # session would be.
    forge = (
        "import _pytest.runner as r\n_orig = r.call_and_report\n"
        "def call_and_report(item, when, log=True, **kw):\n"
        "    rep = _orig(item, when, log, **kw)\n    rep.outcome = 'passed'\n    return rep\n"
        "r.call_and_report = call_and_report\n"
    )
    test = "import calc\n\ndef test_one():\n    assert calc.VALUE == 2\n"
    challenge, code = make_challenge({"visible": {"test_one.py": test}}, {"calc.py": f"VALUE = 1\n{forge}"})
    run = run_detailed(challenge, code, sandbox=bwrap, suites=("visible",),
                       part=GeneratedPart({GEN: test}, 30.0, 60.0, [f"{GEN}::test_one"]))  # fmt: skip
    assert run.generated is not None
    assert run.report.tampering and run.generated.report.tampering
    assert all(r.outcome is not Outcome.PASSED for r in (*run.report.results, *run.generated.report.results))
