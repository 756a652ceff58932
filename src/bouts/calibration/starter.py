"""The starter against the visible tests (SPEC §3 checklist: "the starter imports cleanly and
fails the visible tests of every bug it ships"). Pure apart from the one run it asks for.

Which visible test belongs to which shipped bug is not machine-readable, so the check names what
it can: a starter that passes every visible test leaves an agent nothing to reproduce (warning:
some families hide the bugs in the hidden tests on purpose), and a starter whose every visible test
errors does not import or collect (warning: the agent starts from code that cannot run, which is
rarely the point). The list of visible tests the starter already passes is reported either way.
"""

from __future__ import annotations

from bouts.calibration.report import Problem, StarterReport
from bouts.models.challenge import Challenge
from bouts.models.results import Outcome, RunReport
from bouts.runner import run_suites
from bouts.sandbox import Sandbox


def run_starter(challenge: Challenge, sandbox: Sandbox) -> RunReport:
    """One run of the visible suite on ``starter/`` (no generated tests, published seed)."""
    return run_suites(challenge, challenge.starter, sandbox=sandbox, suites=("visible",))


def starter_problems(report: RunReport) -> tuple[StarterReport, list[Problem]]:
    """What the starter's run says about the challenge. Pure."""
    visible = [r for r in report.results if r.suite == "visible"]
    passed = sorted(r.id for r in visible if r.outcome is Outcome.PASSED)
    errored = sum(r.outcome in (Outcome.ERROR, Outcome.CRASHED) for r in visible)
    summary = StarterReport(visible_total=len(visible), visible_passed=passed, errored=errored)
    problems = []
    if visible and len(passed) == len(visible):
        problems.append(Problem(
            check="starter", level="warning", file="starter/",
            message=f"the starter already passes all {len(visible)} visible tests: an agent has no failing "
                    "test to reproduce a shipped bug with",
        ))  # fmt: skip
    elif visible and errored == len(visible):
        first = visible[0].detail.splitlines()[0] if visible[0].detail else "no detail"
        problems.append(Problem(
            check="starter", level="warning", file="starter/",
            message=f"every visible test errors on the starter (does it import?): {first[:200]}",
        ))  # fmt: skip
    return summary, problems
