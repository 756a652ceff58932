"""Several tests per test process (``RunOptions.tests_per_process``): what a process per test
guaranteed still holds per test — its own timeout, crash containment, a fresh database, nothing a
test leaves running, verdicts decided on the host — and a process ends after any test that errored,
crashed or left something behind. Every hostile payload runs only inside the bubblewrap sandbox.
"""

from __future__ import annotations

import textwrap

import pytest
from test_runner_externalised import RIGHT, WRONG, _challenge, _passed
from test_runner_sandbox import outcomes

from bouts.models.results import Outcome
from bouts.runner import RunOptions, grade, run_suites
from bouts.sandbox import Sandbox

pytestmark = pytest.mark.sandbox

ONE_WORKER = RunOptions(workers=1, tests_per_process=64)
TWO_WORKERS = RunOptions(workers=2, tests_per_process=64)


def test_passing_tests_share_one_process_and_each_gets_a_fresh_database(make_challenge, bwrap: Sandbox) -> None:
    # One worker, all passing: every test runs in the process the first one ran in (the tests log
    # their pid in /tmp, which lasts the whole run), yet each bouts_db is new and empty.
    check = textwrap.dedent("""
        def test_{i}(bouts_db):
            with open("/tmp/pids", "a") as fh:
                fh.write(f"{{os.getpid()}}\\n")
            assert set(open("/tmp/pids").read().split()) == {{str(os.getpid())}}
            assert not bouts_db.exists()
            db = sqlite3.connect(bouts_db)
            db.execute("create table t (k integer)")  # fails if an earlier test's table were there
            db.commit()
            db.close()
    """)
    source = "import os, sqlite3\n" + "".join(check.format(i=i) for i in range(6))
    challenge, code = make_challenge({"visible": {"test_b.py": source}})
    # No canaries: the suite is exactly these tests.
    options = RunOptions(workers=1, tests_per_process=64, canaries=False)
    assert set(outcomes(run_suites(challenge, code, sandbox=bwrap, options=options)).values()) == {Outcome.PASSED}
    # The same suite with a process per test: the second test finds another pid in the log.
    report = run_suites(challenge, code, sandbox=bwrap, options=RunOptions(workers=1, canaries=False))
    assert sorted(outcomes(report).values()).count(Outcome.PASSED) == 1
    # The challenge may ask for it itself ([tests] tests_per_process); the run's options, when they
    # name a number, win over the challenge's.
    spec = challenge.spec.model_copy(update={"tests": challenge.spec.tests.model_copy(update={"tests_per_process": 8})})
    declared = challenge.model_copy(update={"spec": spec})
    report = run_suites(declared, code, sandbox=bwrap, options=RunOptions(workers=1, canaries=False))
    assert set(outcomes(report).values()) == {Outcome.PASSED}
    one = RunOptions(workers=1, tests_per_process=1, canaries=False)
    report = run_suites(declared, code, sandbox=bwrap, options=one)
    assert sorted(outcomes(report).values()).count(Outcome.PASSED) == 1


def test_a_process_ends_after_a_test_that_errored_or_left_something_behind(make_challenge, bwrap: Sandbox) -> None:
    # Each test that should end its process logs "kind:pid"; every test checks it does not run in
    # such a process, and that nothing those tests changed reached it.
    tests = """
        import os, threading, time
        import pytest
        CWD, HOME = os.getcwd(), os.environ["HOME"]

        def log(kind):
            with open("/tmp/log", "a") as fh:
                fh.write(f"{kind}:{os.getpid()}\\n")

        def check():
            lines = open("/tmp/log").read().split() if os.path.exists("/tmp/log") else []
            assert str(os.getpid()) not in [line.split(":")[1] for line in lines]
            assert "BOUTS_TEST_LEFT" not in os.environ and os.getcwd() == CWD
            assert os.environ.get("HOME") == HOME

        @pytest.fixture
        def broken():
            yield
            raise RuntimeError("teardown")

        def test_errors(broken):
            check(); log("error")

        def test_fails():
            check()
            assert False
        def test_thread():
            check(); log("thread")
            threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
        def test_env():
            check(); log("env")
            os.environ["BOUTS_TEST_LEFT"] = "1"
        def test_env_replaced():
            check(); log("replaced")
            os.environ = {**os.environ, "BOUTS_TEST_LEFT": "1"}
        def test_env_removed():
            check(); log("removed")
            del os.environ["HOME"]
        def test_env_bytes():
            check(); log("bytes")
            os.environb[b"HOME"] = b"/elsewhere"
        def test_cwd():
            check(); log("cwd")
            os.chdir("/tmp")
        def test_child():
            check(); log("child")
            if os.fork() == 0:
                time.sleep(30)
                os._exit(0)
        def test_ok_1(): check()
        def test_ok_2(): check()
        def test_ok_3(): check()
    """
    challenge, code_dir = make_challenge({"visible": {"test_e.py": tests}})
    report = run_suites(challenge, code_dir, sandbox=bwrap, options=ONE_WORKER)
    assert outcomes(report) == {
        "test_errors": Outcome.ERROR,
        "test_fails": Outcome.FAILED,
        **{n: Outcome.PASSED for n in ("test_thread", "test_env", "test_cwd", "test_child")},
        **{n: Outcome.PASSED for n in ("test_env_replaced", "test_env_removed", "test_env_bytes")},
        **{f"test_ok_{i}": Outcome.PASSED for i in (1, 2, 3)},
    }
    assert any("left 1 process" in w for w in report.stability.warnings)  # the child was swept


def test_timeouts_and_crashes_cost_only_their_own_test(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge(
        {
            "visible": {
                "test_t.py": """
                    import os, sys, time
                    def test_loop():
                        while True: pass
                    def test_sleep(): time.sleep(10_000)
                    def test_os_exit(): os._exit(0)
                    def test_sys_exit(): sys.exit(0)
                    def test_bomb():
                        hog = []
                        while True: hog.append(bytearray(16 * 1024 * 1024))
                    def test_after_1(): assert True
                    def test_after_2(): assert True
                    def test_after_3(): assert True
                """
            }
        }
    )
    report = run_suites(challenge, code, sandbox=bwrap, options=TWO_WORKERS)
    got = outcomes(report)
    assert got["test_loop"] is got["test_sleep"] is Outcome.TIMEOUT
    assert got["test_os_exit"] is Outcome.CRASHED
    assert got["test_sys_exit"] is not Outcome.PASSED
    assert got["test_bomb"] in (Outcome.CRASHED, Outcome.TIMEOUT)  # MemoryError, or the 2 s ran out first
    assert got["test_after_1"] is got["test_after_2"] is got["test_after_3"] is Outcome.PASSED


def test_a_daemon_left_by_a_passing_test_does_not_outlive_it(make_challenge, bwrap: Sandbox) -> None:
    # As with a process per test: the test process is a subreaper, so the orphaned daemon is its
    # child; the process ends after the test and the worker's sweep kills the daemon.
    challenge, code = make_challenge(
        {
            "visible": {
                "test_d.py": """
                    import os, time
                    def test_daemon():
                        if os.fork() == 0:
                            os.setsid()
                            if os.fork() == 0:
                                time.sleep(0.5)
                                open("/tmp/escaped", "w").write("alive")
                                time.sleep(60); os._exit(0)
                            os._exit(0)
                    def test_alone():
                        time.sleep(1.5)
                        assert not os.path.exists("/tmp/escaped")
                """
            }
        }
    )
    report = run_suites(challenge, code, sandbox=bwrap, options=TWO_WORKERS)
    assert outcomes(report) == {"test_daemon": Outcome.PASSED, "test_alone": Outcome.PASSED}


def test_an_honest_solution_passes_every_externalised_test(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = _challenge(make_challenge, RIGHT)
    report = grade(challenge, code, sandbox=bwrap, fresh_seed=99, options=TWO_WORKERS)
    assert sorted(_passed(report)) == ["test_adds", "test_many", "test_more", "test_rejects_text", "test_seeded"]


def test_a_wrong_solution_fails_on_the_host(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = _challenge(make_challenge, WRONG)
    assert _passed(grade(challenge, code, sandbox=bwrap, fresh_seed=99, options=TWO_WORKERS)) == ["test_rejects_text"]


def test_a_forger_patching_the_driver_for_later_tests_passes_nothing(make_challenge, bwrap: Sandbox) -> None:
    # The first test's code replaces the verdict and the observation recorder for every test after
    # it in the same process; the fingerprint changes, the process ends, and the host decides anyway.
    forger = WRONG + (
        "import sys\n"
        "from _bouts_driver import observe, worker\n"
        "worker.verdict = lambda reports, exception, memory_mb: ('passed', '')\n"
        "observe.obs = lambda site, *thunks: observe.occurrences.append([site, {'0': '3'}])\n"
    )
    challenge, code = _challenge(make_challenge, forger)
    report = grade(challenge, code, sandbox=bwrap, fresh_seed=99, options=ONE_WORKER)
    assert set(_passed(report)) <= {"test_rejects_text"}
