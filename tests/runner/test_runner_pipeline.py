"""How many test ids a worker holds (``supervisor.PIPELINE``, ``PIPELINE_FAST``): a worker whose tests
answer quickly is handed several at a time, and what it holds never costs a test its verdict or
stretches a suite's budget by more than those few short tests (docs/sandbox.md, "The supervisor").
Every submission here runs only inside the bubblewrap sandbox."""

from __future__ import annotations

import pytest

from bouts.models.challenge import Limits
from bouts.models.results import Outcome
from bouts.runner import RunOptions, run_suites
from bouts.sandbox import Sandbox

FAST_TESTS = 60
# One test kills its worker (the process that forked it, whatever tests_per_process says); the
# others are quick, so the worker holds several ids when it dies.
KILLER = "import os, signal, time\n\n" + "".join(
    f"def test_{i}():\n    time.sleep(0.002)\n\n" for i in range(FAST_TESTS)
) + "def test_kills_its_worker():\n    os.kill(os.getppid(), signal.SIGKILL)\n"


@pytest.mark.sandbox
@pytest.mark.parametrize("per_process", [1, 16])
def test_the_ids_a_dead_worker_held_are_run_by_another(make_challenge, bwrap: Sandbox, per_process: int) -> None:  # noqa: ANN001
    challenge, code = make_challenge({"visible": {"test_fast.py": KILLER}})
    report = run_suites(challenge, code, sandbox=bwrap, options=RunOptions(workers=2, tests_per_process=per_process))
    got = {r.id.split("::")[-1]: r.outcome for r in report.results}
    assert got.pop("test_kills_its_worker") is Outcome.CRASHED
    assert got == {f"test_{i}": Outcome.PASSED for i in range(FAST_TESTS)}


@pytest.mark.sandbox
def test_a_suite_budget_is_overrun_by_at_most_the_short_tests_the_workers_hold(make_challenge, bwrap: Sandbox) -> None:  # noqa: ANN001
    # Each test reports at least 10 ms, so a 1 s budget is spent after at most 100 answers; past
    # it, only what the two workers already held may still run: at most 8 each (PIPELINE_FAST).
    tests = 300
    source = "import time\n\n" + "".join(f"def test_{i}():\n    time.sleep(0.01)\n\n" for i in range(tests))
    limits = Limits(test_timeout_s=2, suite_timeout_s=1, memory_mb=512, max_processes=32, max_file_mb=8,
                    max_output_kb=16)  # fmt: skip
    challenge, code = make_challenge({"visible": {"test_quick.py": source}}, limits=limits)
    report = run_suites(challenge, code, sandbox=bwrap, options=RunOptions(workers=2, tests_per_process=32))
    passed = [r for r in report.results if r.outcome is Outcome.PASSED]
    cut = [r for r in report.results if r.detail == "suite time budget exhausted"]
    assert len(passed) + len(cut) == tests
    assert 0 < len(passed) <= 100 + 2 * 8
    assert all(r.outcome is Outcome.TIMEOUT for r in cut)


@pytest.mark.sandbox
def test_slow_tests_after_quick_ones_still_stop_at_a_spent_budget(make_challenge, bwrap: Sandbox) -> None:  # noqa: ANN001
    # Quick tests put the worker in its quick mode; the slow ones it is handed then may not pile up
    # beyond what the budget covers: once one slow test has spent the 1 s budget, at most the one id
    # the worker already held runs, as with two ids in flight. The random order differs each run;
    # the bound holds in every one.
    slow = 10
    source = "import time\n\n" + "".join(f"def test_quick_{i}():\n    pass\n\n" for i in range(12))
    source += "".join(f"def test_slow_{i}():\n    time.sleep(1.2)\n\n" for i in range(slow))
    limits = Limits(test_timeout_s=2, suite_timeout_s=1, memory_mb=512, max_processes=32, max_file_mb=8,
                    max_output_kb=16)  # fmt: skip
    challenge, code = make_challenge({"visible": {"test_mixed.py": source}}, limits=limits)
    options = RunOptions(workers=1, tests_per_process=32, canaries=False)  # quick answers, a few ms apart
    report = run_suites(challenge, code, sandbox=bwrap, options=options)
    ran = [r for r in report.results if "test_slow_" in r.id and r.outcome is Outcome.PASSED]
    cut = [r for r in report.results if "test_slow_" in r.id and r.detail == "suite time budget exhausted"]
    assert len(ran) <= 2 and len(ran) + len(cut) == slow
