"""Builders shared by tests: a challenge, run results and reports made in memory."""

from __future__ import annotations

from pathlib import Path

from bouts.models.challenge import Challenge, ChallengeSpec
from bouts.models.results import Outcome, RunReport, TestResult
from bouts.models.submission import SubmissionMeta

META = SubmissionMeta(agent="agent-x", challenge="demo", iteration=2, elapsed_s=12.5)


def make_challenge(**spec: object) -> Challenge:
    return Challenge(
        root=Path("/nonexistent"),
        spec=ChallengeSpec(id="demo", title="Demo", **spec),
        content_hash="c" * 64,
        suite_hashes={"visible": "v", "hidden": "h", "adversarial": "a"},
        test_files={"visible": [], "hidden": [], "adversarial": []},
    )


def result(test_id: str, suite: str, outcome: Outcome, detail: str = "", severity: str | None = None) -> TestResult:
    return TestResult(id=test_id, suite=suite, outcome=outcome, detail=detail, severity=severity)


def run(*results: TestResult, **kw: object) -> RunReport:
    return RunReport(results=list(results), sandbox="bubblewrap", seeds=[1234], **kw)
