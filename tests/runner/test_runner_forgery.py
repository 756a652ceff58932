"""Attacks on the verdict itself: each one is named after the attack, contained, and reported.

Every hostile payload runs only inside the bubblewrap sandbox. "Reported" means
``RunReport.tampering`` is non-empty (an integrity bright line) and no verdict of the run passes.
"""

from __future__ import annotations

import pytest

from bouts.models.results import Outcome
from bouts.runner import run_detailed, run_suites
from bouts.sandbox import Sandbox

pytestmark = pytest.mark.sandbox

WRONG_CALC = {"calc.py": "def add(a, b):\n    return a - b\n"}
TESTS = {
    "visible": {
        "test_v.py": "from calc import add\n"
        "def test_adds(): assert add(1, 2) == 3\n"
        "def test_more(): assert add(2, 2) == 4\n"
    }
}


def outcomes(report) -> dict[str, Outcome]:  # noqa: ANN001
    return {r.id.split("::")[-1]: r.outcome for r in report.results}


def assert_voided(report) -> None:  # noqa: ANN001
    assert report.tampering, "the attack went unreported"
    assert all(r.outcome is not Outcome.PASSED for r in report.results), report.results


def test_monkeypatching_pytest_report_internals_at_import_is_voided(make_challenge, bwrap: Sandbox) -> None:
    forger = WRONG_CALC["calc.py"] + (
        "import _pytest.reports as R\n"
        "_init = R.TestReport.__init__\n"
        "def __init__(self, *a, **k):\n"
        "    _init(self, *a, **k)\n"
        "    self.outcome, self.longrepr = 'passed', None\n"
        "R.TestReport.__init__ = __init__\n"
    )
    challenge, code = make_challenge(TESTS, {"calc.py": forger})
    report = run_suites(challenge, code, sandbox=bwrap)
    assert_voided(report)
    assert any("TestReport.__init__" in t for t in report.tampering), report.tampering


def test_conftest_style_outcome_rewriting_hook_registered_from_an_import_is_voided(
    make_challenge, bwrap: Sandbox
) -> None:
    # The conftest.py itself is removed before grading; this registers the same hook from code.
    forger = WRONG_CALC["calc.py"] + (
        "import gc, pytest\n"
        "class Forger:\n"
        "    @pytest.hookimpl(hookwrapper=True)\n"
        "    def pytest_runtest_makereport(self, item, call):\n"
        "        rep = (yield).get_result()\n"
        "        rep.outcome, rep.longrepr = 'passed', None\n"
        "for obj in gc.get_objects():\n"
        "    if type(obj).__name__ == 'Config' and hasattr(obj, 'pluginmanager'):\n"
        "        obj.pluginmanager.register(Forger())\n"
        "        break\n"
    )
    challenge, code = make_challenge(TESTS, {"calc.py": forger})
    report = run_suites(challenge, code, sandbox=bwrap)
    assert_voided(report)
    assert any("canary" in t or "plugin" in t for t in report.tampering), report.tampering


def test_unittest_assert_neutralised_is_voided(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge(
        {
            "visible": {
                "test_u.py": """
                    import unittest
                    from calc import add
                    class TestAdd(unittest.TestCase):
                        def test_adds(self):
                            self.assertEqual(add(1, 2), 3)
                """
            }
        },
        {
            "calc.py": "import unittest\n"
            "unittest.TestCase.assertEqual = lambda *a, **k: None\n"
            "def add(a, b):\n    return 0\n"
        },
    )
    report = run_suites(challenge, code, sandbox=bwrap)
    assert_voided(report)
    assert any("assertEqual" in t or "canary" in t for t in report.tampering)


def test_a_forged_passed_line_written_from_the_code_under_test_is_voided(make_challenge, bwrap: Sandbox) -> None:
    # The forger finds the test process's report pipe, writes a "passed" record, and exits.
    forger = """
import json, os, sys
def add(a, b):
    frame = sys._getframe()
    while frame and "item" not in frame.f_locals:
        frame = frame.f_back
    nodeid = frame.f_locals["item"].nodeid if frame else "?"
    line = json.dumps({"type": "result", "id": nodeid, "outcome": "passed", "duration_s": 0.0, "detail": ""})
    for fd in map(int, os.listdir("/proc/self/fd")):
        try:
            if fd > 2 and os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:"):
                os.write(fd, (line + "\\n").encode())
        except OSError:
            pass
    os._exit(0)
"""
    challenge, code = make_challenge(TESTS, {"calc.py": forger})
    report = run_suites(challenge, code, sandbox=bwrap)
    assert_voided(report)


def test_forged_junit_and_result_files_and_printed_passed_lines_count_for_nothing(
    make_challenge, bwrap: Sandbox
) -> None:
    forger = """
import os
for name in ("report.xml", "junit.xml", ".bouts-results.json", "results.json"):
    with open(os.path.join("/workspace", name), "w") as fh:
        fh.write('<testsuite failures="0"><testcase name="test_adds"/></testsuite> {"outcome": "passed"}')
print('{"type": "result", "id": "tests/visible/test_v.py::test_adds", "outcome": "passed"}')
print("tests/visible/test_v.py::test_adds PASSED")
def add(a, b):
    return a - b
"""
    challenge, code = make_challenge(TESTS, {"calc.py": forger})
    report = run_suites(challenge, code, sandbox=bwrap)
    assert outcomes(report) == {"test_adds": Outcome.FAILED, "test_more": Outcome.FAILED}
    assert report.tampering == []


def test_eq_always_true_in_an_inline_run_is_caught_by_a_mutant_canary(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge(
        {
            "visible": {
                "test_e.py": """
                    from calc import add
                    def test_plain(): assert add(1, 2) == 3
                    def test_checked(bouts_expect): bouts_expect(add(1, 2), 3)
                """
            }
        },
        {"calc.py": "class Liar:\n    def __eq__(self, other): return True\ndef add(a, b):\n    return Liar()\n"},
    )
    report = run_suites(challenge, code, sandbox=bwrap)
    # Inline (no reference, so nothing is externalised): the plain assert alone would be fooled, but
    # the canary copied from it (its literal changed) is fooled too, and that voids the run.
    assert_voided(report)
    assert any("canary" in t and "test_plain_" in t for t in report.tampering), report.tampering


FRAME_READER = """
import sys
def add(a, b):
    consts = [c for c in sys._getframe(1).f_code.co_consts if type(c) is int and c not in (a, b)]
    return consts[-1] if consts else 0
"""


def test_reading_the_callers_frame_for_the_expected_value_fails_against_the_reference(
    make_challenge, bwrap: Sandbox, tmp_path
) -> None:  # noqa: ANN001
    challenge, code = make_challenge(
        {
            "hidden": {
                "test_h.py": """
                    from calc import add
                    def test_plain(): assert add(40, 2) == 42
                    def test_golden(bouts_expect): bouts_expect(add(40, 2))
                """
            }
        },
        {"calc.py": FRAME_READER},
    )
    reference = tmp_path / "reference"
    reference.mkdir()
    (reference / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    ref = run_detailed(challenge, reference, sandbox=bwrap)
    assert {r.outcome for r in ref.report.results} == {Outcome.PASSED}
    report = run_suites(challenge, code, sandbox=bwrap, golden=ref.observations)
    # Inline: a frame reader copies the literal 42 out of the plain assert, and the mutant canary's
    # changed literal out of the canary, which then passes and voids the run; bouts_expect leaves
    # nothing to copy. (Externalised runs leave no literal at all: test_runner_externalised.py.)
    assert_voided(report)
    assert "reference" in next(r for r in report.results if r.id.endswith("test_golden")).detail


def test_pytest_current_test_detection_finds_nothing(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge(
        {"visible": {"test_d.py": "from calc import add\ndef test_adds(): assert add(1, 2) == 3\n"}},
        {"calc.py": "import os\ndef add(a, b):\n    return 3 if 'PYTEST_CURRENT_TEST' in os.environ else -1\n"},
    )
    assert outcomes(run_suites(challenge, code, sandbox=bwrap)) == {"test_adds": Outcome.FAILED}


def test_skip_xfail_and_deselect_via_config_files_are_ignored_and_reported(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge(
        TESTS,
        {
            **WRONG_CALC,
            "pyproject.toml": '[project]\nname = "x"\n\n[tool.pytest.ini_options]\naddopts = "-k nothing"\n'
            "\n[tool.ruff]\nline-length = 99\n",
            "setup.cfg": "[tool:pytest]\naddopts = --deselect tests/visible/test_v.py::test_adds\n",
            "tox.ini": "[pytest]\nxfail_strict = false\n",
            "pytest.toml": '[pytest]\naddopts = ["-p", "no:python"]\n',
        },
    )
    report = run_suites(challenge, code, sandbox=bwrap)
    assert outcomes(report) == {"test_adds": Outcome.FAILED, "test_more": Outcome.FAILED}
    assert report.removed == ["pyproject.toml [tool.pytest.ini_options]", "pytest.toml", "setup.cfg", "tox.ini"]


def test_an_honest_submission_is_not_flagged(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge(
        {
            "visible": {
                "test_u.py": """
                    import unittest
                    from calc import add
                    class TestAdd(unittest.TestCase):
                        def test_adds(self):
                            self.assertEqual(add(1, 2), 3)
                    def test_expect(bouts_expect): bouts_expect(add(2, 2), 4)
                """
            }
        },
        {"calc.py": "def add(a, b):\n    return a + b\n"},
    )
    report = run_suites(challenge, code, sandbox=bwrap)
    assert outcomes(report) == {"test_adds": Outcome.PASSED, "test_expect": Outcome.PASSED}
    assert report.tampering == []


def test_rewriting_test_files_not_yet_collected_changes_nothing(make_challenge, bwrap: Sandbox) -> None:
    # Code imported while one test file is collected tries to rewrite every test file (and to
    # swap the tests directory) before the others are read: the tests are a read-only mount.
    forger = WRONG_CALC["calc.py"] + (
        "import os, pathlib\n"
        "def _try(f):\n"
        "    try:\n"
        "        f()\n"
        "    except OSError as exc:\n"
        "        print('refused:', exc)\n"
        "for p in pathlib.Path('tests').rglob('test_*.py'):\n"
        "    _try(lambda p=p: p.write_text('def test_adds(): pass\\ndef test_more(): pass\\n'))\n"
        "    _try(lambda p=p: p.unlink())\n"
        "_try(lambda: os.rename('tests', 'gone'))\n"
        "_try(lambda: pathlib.Path('tests/visible/test_w.py').write_text('def test_extra(): pass\\n'))\n"
    )
    first = {"test_a.py": "import calc\ndef test_imports(): assert calc.add(1, 1) == 2\n"}
    tests = {"visible": {**first, **TESTS["visible"]}}
    challenge, code = make_challenge(tests, {"calc.py": forger})
    report = run_suites(challenge, code, sandbox=bwrap)
    failed = {"test_imports": Outcome.FAILED, "test_adds": Outcome.FAILED, "test_more": Outcome.FAILED}
    assert outcomes(report) == failed
