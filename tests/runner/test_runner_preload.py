"""``[tests] preload``: library modules each worker imports once after collecting, so that no test
process imports them again. A test process finds them imported; one of the workspace and one that
is not there are skipped, never a failed run nor a warning against the submission. Hostile payloads
run only inside the bubblewrap sandbox."""

from __future__ import annotations

import textwrap

import pytest
from test_runner_sandbox import outcomes

from bouts.models.results import Outcome
from bouts.runner import RunOptions, run_suites
from bouts.sandbox import Sandbox

pytestmark = pytest.mark.sandbox

SOURCE = textwrap.dedent("""
    import sys

    def test_colorsys_is_already_imported():
        assert ("colorsys" in sys.modules) is True

    def test_the_workspace_module_was_not_imported_early():
        assert ("leftpad" in sys.modules) is False
""")


def _with_preload(challenge, names: list[str]):  # noqa: ANN001, ANN202
    tests = challenge.spec.tests.model_copy(update={"preload": names})
    return challenge.model_copy(update={"spec": challenge.spec.model_copy(update={"tests": tests})})


@pytest.mark.parametrize("per_process", [1, 8])
def test_a_preloaded_module_is_there_before_any_test_runs(per_process: int, make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge({"visible": {"test_p.py": SOURCE}}, {"leftpad.py": "def pad(s):\n    return s\n"})
    options = RunOptions(workers=2, tests_per_process=per_process, canaries=False)
    plain = outcomes(run_suites(challenge, code, sandbox=bwrap, options=options))
    assert plain["test_colorsys_is_already_imported"] is Outcome.FAILED  # not without it
    names = ["colorsys", "leftpad", "no_such_module_here", "json.no_such_submodule"]
    report = run_suites(_with_preload(challenge, names), code, sandbox=bwrap, options=options)
    assert set(outcomes(report).values()) == {Outcome.PASSED}  # both workers (the clone too) have it
    # What cannot be preloaded costs speed only: no warning (it would lower the submission's stability).
    assert report.stability.warnings == [] and report.stability.crashes == [] and not report.tampering
