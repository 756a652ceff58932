"""End-to-end runner tests through bubblewrap: honest suites and the attacks the sandbox stops.

Every hostile payload here runs only inside the sandbox, with the small ``FAST`` limits.
"""

from __future__ import annotations

import os
import sys
import uuid
from pathlib import Path

import pytest

from bouts.models.results import Outcome, TestResult
from bouts.runner import run_suites
from bouts.sandbox import Sandbox

pytestmark = pytest.mark.sandbox

CALC = {"calc.py": "def add(a, b):\n    return a + b\n"}


def outcomes(report) -> dict[str, Outcome]:  # noqa: ANN001
    return {r.id.split("::")[-1]: r.outcome for r in report.results}


def by_name(report, name: str) -> TestResult:  # noqa: ANN001
    return next(r for r in report.results if r.id.endswith("::" + name))


def test_honest_suite_gives_exact_per_test_outcomes(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge(
        {
            "visible": {
                "test_v.py": """
                    import os
                    from calc import add
                    def test_adds(): assert add(1, 2) == 3
                    def test_wrong(): assert add(2, 2) == 5
                    def test_seed(bouts_seed): assert bouts_seed == int(os.environ["BOUTS_SEED"]) == 77
                """
            },
            "hidden": {"test_h.py": "from calc import add\ndef test_secret(): assert add(40, 2) == 41\n"},
            "adversarial": {"test_a.py": "from calc import add\ndef test_neg(): assert add(-1, 1) == 0\n"},
        },
        CALC,
        seed=77,
        severities={"tests/adversarial/test_a.py::test_neg": "critical"},
    )
    seen: list[TestResult] = []
    report = run_suites(challenge, code, sandbox=bwrap, progress=seen.append)
    assert outcomes(report) == {
        "test_adds": Outcome.PASSED,
        "test_wrong": Outcome.FAILED,
        "test_seed": Outcome.PASSED,
        "test_secret": Outcome.FAILED,
        "test_neg": Outcome.PASSED,
    }
    assert sorted(r.id for r in seen) == sorted(r.id for r in report.results)
    assert by_name(report, "test_neg").severity == "critical"
    assert "assert 4 == 5" in by_name(report, "test_wrong").detail
    assert "41" not in by_name(report, "test_secret").detail  # hidden expected values never leak
    assert report.stability.crashes == [] and report.removed == [] and report.seeds == [77]
    assert report.sandbox == "bubblewrap"


def test_each_kind_of_failure_reports_its_crash_line(make_challenge, bwrap: Sandbox) -> None:
    # The driver asks pytest for its cheapest traceback style; the verdict's line is the same.
    challenge, code = make_challenge(
        {
            "visible": {
                "test_f.py": """
                    import pytest

                    def lookup(key):
                        return {"a": 1}[key]

                    @pytest.fixture
                    def broken_setup():
                        raise RuntimeError("setup broke")

                    @pytest.fixture
                    def broken_teardown():
                        yield 1
                        raise ValueError("teardown broke")

                    def test_assert():
                        assert [1, 2, 3] == [1, 2, 4]

                    def test_raises():
                        lookup("b")

                    def test_chained():
                        try:
                            lookup("z")
                        except KeyError as exc:
                            raise ValueError("wrapped") from exc

                    def test_fail():
                        pytest.fail("explicit failure")

                    def test_setup(broken_setup):
                        pass

                    def test_teardown(broken_teardown):
                        pass

                    def test_recursion():
                        def down(n):
                            return down(n + 1)
                        down(0)
                """
            }
        },
        CALC,
    )
    details = {r.id.split("::")[-1]: (r.outcome, r.detail) for r in run_suites(challenge, code, sandbox=bwrap).results}
    assert details == {
        "test_assert": (Outcome.FAILED, "assert [1, 2, 3] == [1, 2, 4]"),
        "test_raises": (Outcome.FAILED, "KeyError: 'b'"),
        "test_chained": (Outcome.FAILED, "ValueError: wrapped"),
        "test_fail": (Outcome.FAILED, "Failed: explicit failure"),
        "test_setup": (Outcome.ERROR, "setup error: RuntimeError: setup broke"),
        "test_teardown": (Outcome.ERROR, "teardown error: ValueError: teardown broke"),
        "test_recursion": (Outcome.FAILED, "RecursionError: maximum recursion depth exceeded"),
    }


def test_explicit_seed_reaches_the_tests(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge({"hidden": {"test_s.py": "def test_s(bouts_seed): assert bouts_seed == 5\n"}})
    assert outcomes(run_suites(challenge, code, sandbox=bwrap, seed=5)) == {"test_s": Outcome.PASSED}


def test_infinite_loop_and_sleeping_forever_time_out_and_others_still_run(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge(
        {
            "visible": {
                "test_t.py": """
                    import time
                    def test_loop():
                        while True: pass
                    def test_sleep(): time.sleep(10_000)
                    def test_after(): assert True
                """
            }
        }
    )
    report = run_suites(challenge, code, sandbox=bwrap)
    assert outcomes(report) == {
        "test_loop": Outcome.TIMEOUT,
        "test_sleep": Outcome.TIMEOUT,
        "test_after": Outcome.PASSED,
    }
    assert sum("timeout" in c for c in report.stability.crashes) == 2


def test_memory_bomb_is_crashed_for_memory_and_contained(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge(
        {
            "visible": {
                "test_m.py": """
                    def test_bomb():
                        hog = []
                        while True: hog.append(bytearray(16 * 1024 * 1024))
                    def test_after(): assert True
                """
            }
        }
    )
    report = run_suites(challenge, code, sandbox=bwrap)
    assert outcomes(report) == {"test_bomb": Outcome.CRASHED, "test_after": Outcome.PASSED}
    assert "memory" in by_name(report, "test_bomb").detail
    assert any("memory" in c for c in report.stability.crashes)


def test_fork_bomb_is_contained_and_the_run_finishes(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge(
        {
            "visible": {
                "test_f.py": """
                    import os
                    def test_bomb():
                        while True:
                            try: os.fork()
                            except OSError: pass
                    def test_after(): assert True
                """
            }
        }
    )
    report = run_suites(challenge, code, sandbox=bwrap)
    assert outcomes(report)["test_bomb"] is not Outcome.PASSED
    assert outcomes(report)["test_after"] is Outcome.PASSED


def test_process_limit_actually_bites_inside_the_sandbox(make_challenge, bwrap: Sandbox) -> None:
    # Root is exempt from RLIMIT_NPROC; the sandbox drops to a per-run uid so the limit counts.
    challenge, code = make_challenge(
        {
            "visible": {
                "test_p.py": """
                    import os, time
                    def test_cannot_exceed_limit():
                        pids = []
                        try:
                            for _ in range(100):
                                pid = os.fork()
                                if pid == 0:
                                    time.sleep(5); os._exit(0)
                                pids.append(pid)
                        except OSError:
                            pass
                        for pid in pids:  # reaped: a test that left them running would be a fork bomb
                            os.kill(pid, 9); os.waitpid(pid, 0)
                        assert len(pids) < 32
                """
            }
        }
    )
    assert outcomes(run_suites(challenge, code, sandbox=bwrap)) == {"test_cannot_exceed_limit": Outcome.PASSED}


def test_os_exit_at_import_leaves_no_test_passed(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge(
        {"visible": {"test_i.py": "import calc\ndef test_a(): assert calc.add(1, 1) == 2\n"}},
        {"calc.py": "import os\nos._exit(0)\ndef add(a, b): return a + b\n"},
    )
    report = run_suites(challenge, code, sandbox=bwrap)
    assert [(r.id, r.outcome) for r in report.results] == [("tests/visible/test_i.py", Outcome.ERROR)]
    assert report.stability.crashes
    with_expected = run_suites(challenge, code, sandbox=bwrap, expected_ids=["tests/visible/test_i.py::test_a"])
    assert outcomes(with_expected)["test_a"] is Outcome.MISSING


def test_os_exit_and_sys_exit_in_a_test_are_not_passed(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge(
        {
            "visible": {
                "test_e.py": """
                    import os, sys
                    def test_os_exit(): os._exit(0)
                    def test_sys_exit(): sys.exit(0)
                    def test_after(): assert True
                """
            }
        }
    )
    report = run_suites(challenge, code, sandbox=bwrap)
    assert outcomes(report) == {
        "test_os_exit": Outcome.CRASHED,
        "test_sys_exit": Outcome.FAILED,
        "test_after": Outcome.PASSED,
    }
    assert "exited with code 0" in by_name(report, "test_os_exit").detail


def test_network_and_dns_fail_inside(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge(
        {
            "visible": {
                "test_n.py": """
                    import socket, pytest
                    def test_connect_localhost_fails():
                        with pytest.raises(OSError):
                            socket.create_connection(("127.0.0.1", 22), timeout=1)
                    def test_dns_fails():
                        with pytest.raises(OSError):
                            socket.getaddrinfo("example.com", 443)
                    def test_only_loopback():
                        assert [n for _, n in socket.if_nameindex()] in ([], ["lo"])
                """
            }
        }
    )
    assert set(outcomes(run_suites(challenge, code, sandbox=bwrap)).values()) == {Outcome.PASSED}


def test_reading_root_and_work_fails_inside(make_challenge, bwrap: Sandbox) -> None:
    here = str(Path(__file__).resolve())
    challenge, code = make_challenge(
        {
            "visible": {
                "test_r.py": f"""
                    import os, sys
                    def test_root_holds_only_the_python_install():
                        assert not os.path.exists("/root/.bashrc")
                        assert set(os.listdir("/root")) <= {{".pyenv"}}
                    def test_work_tree_is_invisible():
                        assert not os.path.exists({here!r})
                        assert not os.path.exists("/work/shared")
                    def test_host_etc_is_not_mounted():
                        assert not os.path.exists("/etc/shadow")
                        # a generated passwd (root, the sandbox user, nobody), never the host's
                        users = [line.split(":")[0] for line in open("/etc/passwd").read().splitlines()]
                        assert users == ["root", "dev", "nobody"]
                """
            }
        }
    )
    assert set(outcomes(run_suites(challenge, code, sandbox=bwrap)).values()) == {Outcome.PASSED}


def test_writing_outside_the_workspace_fails(make_challenge, bwrap: Sandbox) -> None:
    marker = f"bouts-escape-{uuid.uuid4().hex}"
    venv = os.path.realpath(sys.prefix)
    challenge, code = make_challenge(
        {
            "visible": {
                "test_w.py": f"""
                    import pytest
                    @pytest.mark.parametrize("path", ["/usr/{marker}", "/{marker}", "/etc/{marker}",
                                                      "/root/.pyenv/{marker}", "{venv}/{marker}"])
                    def test_cannot_write(path):
                        with pytest.raises(OSError):
                            open(path, "w").write("x")
                    def test_tmp_and_workspace_are_writable():
                        open("/tmp/{marker}", "w").write("x")
                        open("/workspace/{marker}", "w").write("x")
                """
            }
        }
    )
    report = run_suites(challenge, code, sandbox=bwrap)
    assert set(outcomes(report).values()) == {Outcome.PASSED}, report.results
    assert not Path("/tmp", marker).exists()  # the sandbox's /tmp is its own tmpfs


def test_stdout_flood_is_capped(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge(
        {
            "visible": {
                "test_o.py": """
                    import sys
                    def test_flood():
                        for _ in range(2000): sys.stdout.write("x" * 65536)
                        sys.stdout.flush()
                    def test_after(): assert True
                """
            }
        }
    )
    report = run_suites(challenge, code, sandbox=bwrap)
    assert outcomes(report) == {"test_flood": Outcome.PASSED, "test_after": Outcome.PASSED}
    assert "output capped" in by_name(report, "test_flood").detail


def test_submission_conftest_rewriting_outcomes_is_removed_and_reported(make_challenge, bwrap: Sandbox) -> None:
    forger = """
        import pytest
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_makereport(item, call):
            rep = (yield).get_result()
            rep.outcome = "passed"
    """
    challenge, code = make_challenge(
        {"visible": {"test_c.py": "def test_fails(): assert False\n"}},
        {
            "conftest.py": forger,
            "tests/conftest.py": forger,
            "pkg/conftest.py": forger,
            "pytest.ini": "[pytest]\n",
        },
    )
    report = run_suites(challenge, code, sandbox=bwrap)
    assert outcomes(report) == {"test_fails": Outcome.FAILED}
    assert report.removed == ["conftest.py", "pkg/conftest.py", "pytest.ini"]


def test_pth_hook_and_planted_pyc_are_removed(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge(
        {"visible": {"test_p.py": "import calc\ndef test_add(): assert calc.add(2, 2) == 4\n"}},
        {
            "calc.py": "def add(a, b):\n    return a + b\n",
            "evil.pth": "import os; os._exit(0)\n",
            "sitecustomize.py": "import os; os._exit(0)\n",
            "__pycache__/calc.cpython-311.pyc": "garbage",
            "calc.pyc": "garbage",
        },
    )
    report = run_suites(challenge, code, sandbox=bwrap)
    assert outcomes(report) == {"test_add": Outcome.PASSED}
    assert report.removed == ["__pycache__/", "calc.pyc", "evil.pth", "sitecustomize.py"]


def test_skip_and_xfail_via_code_are_not_passed(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge(
        {"visible": {"test_s.py": "import calc\ndef test_a(): assert calc.add(1, 1) == 2\n"}},
        {"calc.py": "import pytest\ndef add(a, b):\n    pytest.skip('not today')\n"},
    )
    report = run_suites(challenge, code, sandbox=bwrap)
    assert outcomes(report) == {"test_a": Outcome.FAILED}
    assert by_name(report, "test_a").detail.startswith("skipped")


def test_missing_expected_id_is_missing(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge({"visible": {"test_x.py": "def test_here(): pass\n"}})
    expected = ["tests/visible/test_x.py::test_here", "tests/visible/test_x.py::test_gone"]
    report = run_suites(challenge, code, sandbox=bwrap, expected_ids=expected)
    assert outcomes(report) == {"test_here": Outcome.PASSED, "test_gone": Outcome.MISSING}


def test_collection_error_of_one_file_is_an_error_and_others_still_run(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge(
        {"visible": {"test_ok.py": "def test_ok(): pass\n", "test_broken.py": "import nonexistent_module\n"}}
    )
    report = run_suites(challenge, code, sandbox=bwrap)
    assert {r.id: r.outcome for r in report.results} == {
        "tests/visible/test_broken.py": Outcome.ERROR,
        "tests/visible/test_ok.py::test_ok": Outcome.PASSED,
    }


def test_warnings_reach_stability(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge(
        {"visible": {"test_w.py": "import warnings\ndef test_w(): warnings.warn('old api', DeprecationWarning)\n"}}
    )
    report = run_suites(challenge, code, sandbox=bwrap)
    assert outcomes(report) == {"test_w": Outcome.PASSED}
    assert report.stability.warnings == ["DeprecationWarning: old api"]


def test_setsid_double_fork_does_not_outlive_its_test(make_challenge, bwrap: Sandbox) -> None:
    # Two workers: both tests run at once. The daemon would write its marker 0.5 s in; the sweep
    # after test_daemon (scoped to that worker's children) must kill it first.
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
    report = run_suites(challenge, code, sandbox=bwrap)
    assert outcomes(report) == {"test_daemon": Outcome.PASSED, "test_alone": Outcome.PASSED}
    assert os.environ.get("BOUTS_SEED") is None  # nothing leaked into the host process


def test_parallel_tests_sweep_only_their_own_processes(make_challenge, bwrap: Sandbox) -> None:
    # test_child keeps a child process for a second while test_quick ends (and is swept) meanwhile.
    challenge, code = make_challenge(
        {
            "visible": {
                "test_p.py": """
                    import subprocess, time
                    def test_child():
                        proc = subprocess.Popen(["sleep", "5"])
                        time.sleep(1.0)
                        assert proc.poll() is None
                        proc.kill()
                    def test_quick():
                        time.sleep(0.2)
                """
            }
        }
    )
    report = run_suites(challenge, code, sandbox=bwrap)
    assert outcomes(report) == {"test_child": Outcome.PASSED, "test_quick": Outcome.PASSED}


def test_the_driver_is_compiled_beside_its_sources_for_the_sandbox_to_read() -> None:
    """Each session's interpreter runs with ``-B`` and reads the driver read-only: the host keeps
    fresh byte code beside the sources (``compile_driver``), else every session compiles it again."""
    import importlib.util

    from bouts.runner._run import DRIVER_LIB, compile_driver

    compile_driver()
    for source in sorted((DRIVER_LIB / "_bouts_driver").glob("*.py")):
        cached = Path(importlib.util.cache_from_source(str(source)))
        assert cached.is_file(), source
        header = cached.read_bytes()[:16]
        assert header[:4] == importlib.util.MAGIC_NUMBER
        mtime, size = int.from_bytes(header[8:12], "little"), int.from_bytes(header[12:16], "little")
        stat = source.stat()
        assert (mtime, size) == (int(stat.st_mtime) & 0xFFFFFFFF, stat.st_size & 0xFFFFFFFF), source
