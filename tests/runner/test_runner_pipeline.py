"""How many test ids a worker holds (``supervisor.PIPELINE``, ``PIPELINE_FAST``): a worker whose tests
answer quickly is handed several at a time, and what it holds never costs a test its verdict or
stretches a suite's budget by more than those few short tests (docs/sandbox.md, "The supervisor").
Every submission here runs only inside the bubblewrap sandbox."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from bouts.models.challenge import Limits
from bouts.models.results import Outcome
from bouts.runner import RunOptions, run_suites
from bouts.runner._run import DRIVER_LIB
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


@pytest.mark.sandbox
def test_a_result_reaches_the_host_soon_after_its_test_ends_not_with_the_last(make_challenge, bwrap: Sandbox) -> None:  # noqa: ANN001
    # The supervisor holds quick results for a few milliseconds (supervisor.HOLD_S) to write them
    # together; a result with nothing after it still goes on time: three 0.4 s tests on one worker
    # report about 0.4 s apart, not all at the end.
    source = "import time\n\n" + "".join(f"def test_{i}():\n    time.sleep(0.4)\n\n" for i in range(3))
    challenge, code = make_challenge({"visible": {"test_slow.py": source}})
    heard: list[float] = []
    def hear(_: object) -> None:
        heard.append(time.monotonic())

    report = run_suites(challenge, code, sandbox=bwrap, options=RunOptions(workers=1, canaries=False), progress=hear)
    assert [r.outcome for r in report.results] == [Outcome.PASSED] * 3
    assert len(heard) == 3 and heard[-1] - heard[0] >= 0.6


HELD = """
import fcntl, json, os, sys
sys.path.insert(0, sys.argv[1])
from _bouts_driver import supervisor
from _bouts_driver.supervisor import Supervisor, Worker

host_r, host_w = os.pipe()
os.set_blocking(host_r, False)
fcntl.fcntl(host_w, 1031, 1 << 20)  # F_SETPIPE_SZ: room for the big record, read after it is written
sup = Supervisor({"workers": 1, "suite_of": {}, "test_timeout_s": 5}, host_w, {})
w = Worker(0, 1, -1, -1, -1)
w.collected = {"a", "b", "c", "big"}
w.assigned.extend(["a", "b", "c", "big"])

def heard():
    try:
        return [json.loads(x).get("id") or json.loads(x)["type"] for x in os.read(host_r, 1 << 20).splitlines()]
    except BlockingIOError:
        return []

def answer(nodeid, detail=""):
    sup._handle(w, {"type": "result", "id": nodeid, "outcome": "passed", "duration_s": 0.001, "detail": detail})

answer("a"); answer("b")
print(heard())  # held
sup._to_host({"type": "violation", "detail": "x"})
print(heard())  # written, in order, before the record that is not a result
answer("c")
print(heard())
answer("big", "x" * supervisor.HOLD_BYTES)
print(heard())  # the held ones reached the size bound: written at once
"""


def test_held_results_keep_their_order_and_go_before_any_other_record() -> None:
    # Outside the sandbox, in a fresh interpreter: the supervisor's own code, no submission.
    out = subprocess.run(
        [sys.executable, "-I", "-c", HELD, str(DRIVER_LIB)], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.splitlines() == ["[]", "['a', 'b', 'violation']", "[]", "['c', 'big']"]
