"""Both graded phases in one sandbox session, and the supervisor's pipelined dispatch (issue 17).

The fresh-seed phase must stay what two sessions gave: its own seed everywhere a test can see one,
the seed out of reach of every process of the first phase, a fresh collection, and the verdicts of
a two-session run.
"""

from __future__ import annotations

from pathlib import Path

from bouts.models.results import Outcome
from bouts.runner import grade, run_suites
from bouts.runner._run import Expectations, FreshPhase, run_detailed
from bouts.sandbox import Sandbox

FRESH = 918273645

SEEDS = """
import os
import pytest

SEED_AT_IMPORT = os.environ["BOUTS_SEED"]

def test_seed(bouts_seed):
    assert SEED_AT_IMPORT == os.environ["BOUTS_SEED"] == str(bouts_seed)
    with open(f"/tmp/seen-{bouts_seed}", "a") as fh:
        fh.write("x")

def test_fresh_seed_is_nowhere_to_be_read(bouts_seed):
    # Every process's command line and environment this test can open: the supervisor's, the
    # workers', its own. The fresh seed must not be in any of them while the first phase runs.
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        for what in ("cmdline", "environ"):
            try:
                with open(f"/proc/{pid}/{what}", "rb") as fh:
                    if b"%d" in fh.read():
                        found.append(f"{pid}/{what}")
            except OSError:
                pass
    if bouts_seed != %d:
        assert not found, found
""" % (FRESH, FRESH)  # noqa: UP031


def test_the_fresh_phase_runs_in_the_same_session_with_its_own_seed(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge({
        "visible": {"test_v.py": "def test_v(bouts_seed):\n    assert bouts_seed == 1234\n"},
        "hidden": {"test_h.py": SEEDS},
    })  # fmt: skip
    asked: list[bool] = []

    def expect() -> Expectations:
        asked.append(True)
        return Expectations()

    run = run_detailed(challenge, code, sandbox=bwrap, seed=1234, fresh=FreshPhase(FRESH, expect))
    first = {r.id: r.outcome for r in run.report.results}
    assert first == {
        "tests/visible/test_v.py::test_v": Outcome.PASSED,
        "tests/hidden/test_h.py::test_seed": Outcome.PASSED,
        "tests/hidden/test_h.py::test_fresh_seed_is_nowhere_to_be_read": Outcome.PASSED,
    }, run.report.results
    assert run.fresh is not None and asked == [True]
    second = {r.id: r.outcome for r in run.fresh.report.results}
    assert second == {  # only the hidden suite, collected again under the fresh seed
        "tests/hidden/test_h.py::test_seed": Outcome.PASSED,
        "tests/hidden/test_h.py::test_fresh_seed_is_nowhere_to_be_read": Outcome.PASSED,
    }, run.fresh.report.results
    assert run.report.seeds == [1234] and run.fresh.report.seeds == [FRESH]
    assert not run.report.tampering and not run.fresh.report.tampering
    assert not run.report.stability.crashes and not run.fresh.report.stability.crashes


def test_one_session_gives_the_verdicts_of_two(make_challenge, bwrap: Sandbox) -> None:
    """A submission that hard-codes the published seed's answer: the fresh phase catches it the same
    way whether the phases share a session or not."""
    challenge, code = make_challenge(
        {
            "visible": {"test_v.py": "from calc import double\ndef test_v(): assert double(2) == 4\n"},
            "hidden": {"test_h.py": "from calc import double\n"
                       "def test_h(bouts_seed): assert double(bouts_seed) == 2 * bouts_seed\n"
                       "def test_plain(): assert double(5) == 10\n"},
        },
        {"calc.py": "def double(x):\n    return 2468 if x == 1234 else (10 if x == 5 else 4)\n"},
    )  # fmt: skip

    class TwoSessions:  # the same backend without ``duplex_fds``: grade falls back to two sessions
        name, isolated = bwrap.name, bwrap.isolated

        def run(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            return bwrap.run(*args, **kwargs)

    one = grade(challenge, code, sandbox=bwrap, fresh_seed=77)
    two = grade(challenge, code, sandbox=TwoSessions(), fresh_seed=77)  # type: ignore[arg-type]
    outcomes = {r.id: r.outcome for r in one.results}
    assert outcomes == {r.id: r.outcome for r in two.results}
    assert outcomes["tests/hidden/test_h.py::test_h"] is Outcome.FAILED
    assert outcomes["tests/hidden/test_h.py::test_plain"] is Outcome.PASSED
    assert one.seeds == two.seeds == [1234, 77]


KILLS_ITS_WORKER = """
import os, signal

def test_kills_its_worker():
    os.kill(os.getppid(), signal.SIGKILL)

@pytest.mark.parametrize("n", range(12))
def test_after(n):
    assert n >= 0
"""


def test_ids_handed_to_a_worker_that_died_run_on_another(make_challenge, bwrap: Sandbox) -> None:
    """The supervisor hands each worker the next id before the current test ends; when the worker
    dies, the test it ran is crashed and the id it had not started runs elsewhere."""
    challenge, code = make_challenge({"visible": {"test_k.py": "import pytest\n" + KILLS_ITS_WORKER}})
    report = run_suites(challenge, code, sandbox=bwrap)
    outcomes = {r.id: r.outcome for r in report.results}
    assert outcomes.pop("tests/visible/test_k.py::test_kills_its_worker") is Outcome.CRASHED
    assert set(outcomes.values()) == {Outcome.PASSED} and len(outcomes) == 12, report.results


def test_caplog_still_works_where_a_test_asks_for_it(make_challenge, bwrap: Sandbox, tmp_path: Path) -> None:
    source = "import logging\n\ndef test_logs(caplog):\n    logging.getLogger('x').warning('hello')\n" \
             "    assert 'hello' in caplog.text\n"  # fmt: skip
    challenge, code = make_challenge({"visible": {"test_log.py": source}})
    report = run_suites(challenge, code, sandbox=bwrap)
    assert [r.outcome for r in report.results] == [Outcome.PASSED], report.results


def test_the_kernel_says_whether_a_worker_has_any_child_left() -> None:
    """After a test the worker scans ``/proc`` only when it still has a child: running or a zombie.
    Checked in a fresh interpreter: the test runner's own process may hold children of other tests."""
    import subprocess
    import sys

    from bouts.runner._run import DRIVER_LIB

    script = """
import os, sys, time
sys.path.insert(0, sys.argv[1])
from _bouts_driver import procs
assert not procs.has_children()
pid = os.fork()
if pid == 0:
    time.sleep(0.2)
    os._exit(0)
try:
    assert procs.has_children()  # running
    time.sleep(0.4)
    assert procs.has_children()  # exited, not reaped: a zombie is still ours to reap
finally:
    os.waitpid(pid, 0)
assert not procs.has_children()
assert procs.kill_children() == procs.Sweep(0, 0)
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", script, str(DRIVER_LIB)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


SOME_PASS = """
def test_loops():
    while True:
        pass

def test_fails():
    assert False

def test_ok(bouts_seed):
    assert bouts_seed > 0
"""


def test_the_fresh_phase_runs_only_the_hidden_tests_that_passed_the_first(make_challenge, bwrap: Sandbox) -> None:
    """A hidden test passes only with both seeds: one that timed out or failed with the first has
    its verdict, and is not run again (issue 43: a looping sample paid each timeout twice)."""
    challenge, code = make_challenge({"visible": {"test_v.py": "def test_v():\n    pass\n"},
                                      "hidden": {"test_h.py": SOME_PASS}})  # fmt: skip
    run = run_detailed(challenge, code, sandbox=bwrap, seed=1234, fresh=FreshPhase(FRESH, Expectations))
    first = {r.id.split("::")[1]: r.outcome for r in run.report.results}
    assert first == {"test_v": Outcome.PASSED, "test_loops": Outcome.TIMEOUT, "test_fails": Outcome.FAILED,
                     "test_ok": Outcome.PASSED}  # fmt: skip
    assert run.fresh is not None
    second = {r.id.split("::")[1]: r.outcome for r in run.fresh.report.results}
    assert second == {"test_ok": Outcome.PASSED}, run.fresh.report.results  # only it was collected again
    assert not run.fresh.report.stability.crashes  # no second timeout
    merged = {r.id.split("::")[1]: r.outcome for r in grade(challenge, code, sandbox=bwrap, fresh_seed=FRESH).results}
    assert merged == first


def test_no_fresh_phase_when_no_hidden_test_passed_the_first(make_challenge, bwrap: Sandbox) -> None:
    loops = "def test_loops():\n    while True:\n        pass\n"
    challenge, code = make_challenge({"visible": {"test_v.py": "def test_v():\n    pass\n"},
                                      "hidden": {"test_h.py": loops}})  # fmt: skip
    run = run_detailed(challenge, code, sandbox=bwrap, seed=1234, fresh=FreshPhase(FRESH, Expectations))
    assert {r.id.split("::")[1]: r.outcome for r in run.report.results} == {
        "test_v": Outcome.PASSED, "test_loops": Outcome.TIMEOUT}  # fmt: skip
    assert run.fresh is not None
    assert not any(r.outcome is Outcome.PASSED for r in run.fresh.report.results)
    assert not any("timeout" in c for c in run.fresh.report.stability.crashes), run.fresh.report.stability
    report = grade(challenge, code, sandbox=bwrap, fresh_seed=FRESH)
    assert {r.id.split("::")[1]: r.outcome for r in report.results}["test_loops"] is Outcome.TIMEOUT
