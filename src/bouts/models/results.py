"""What a test run produces: one outcome per expected test id, plus what the run showed."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bouts.models.challenge import Severity, Suite


class Outcome(StrEnum):
    """Only ``passed`` counts as passing; everything else is not passed."""

    PASSED = "passed"
    FAILED = "failed"  # includes skipped / xfailed / deselected: not passed
    ERROR = "error"  # setup/teardown/collection error
    TIMEOUT = "timeout"  # killed at the per-test wall timeout
    CRASHED = "crashed"  # the process running the test died (signal, OOM, os._exit)
    MISSING = "missing"  # expected id never reported


class TestResult(BaseModel):
    model_config = ConfigDict(frozen=True)
    __test__ = False

    id: str
    suite: Suite
    outcome: Outcome
    duration_s: float = 0.0
    detail: str = ""
    """Short reason (exception line, 'skipped', 'killed by SIGKILL', ...). Never hidden-test source."""
    severity: Severity | None = None


class StabilitySignals(BaseModel):
    """What the run showed about clean execution (feeds the stability component)."""

    model_config = ConfigDict(frozen=True)

    warnings: list[str] = Field(default_factory=list)
    """Distinct warning categories/messages seen (deprecation, resource, ...)."""
    crashes: list[str] = Field(default_factory=list)
    """Crash descriptions: OOM kill, segfault, timeout, uncaught exception, bad exit."""


class ObservedExploit(BaseModel):
    """An exploit attempt the sandbox observed at run time. The attempt was blocked; this is the
    evidence behind the exploit penalty and, for ``sandbox_escape``, an integrity bright line."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["network", "sandbox_escape", "grader_detection"]
    """``network``: an outbound connection or name lookup; ``sandbox_escape``: a system call the
    sandbox forbids (namespaces, mounts, tracing, kernel keys or modules); ``grader_detection``: the
    submission's own code looking at its context (its callers' frames, the heap, the process's
    command line, a grader's environment variable): test-environment detection, a bright line
    (docs/sandbox.md, "Grader context"), not an exploit penalty."""
    evidence: str
    """What was seen, in words (e.g. 'connect to 1.1.1.1:443'). Written from inside the sandbox,
    bounded and printable; never hidden-test source."""
    where: str = ""
    """The test id during which it happened, or what the run was doing (e.g. importing the code)."""


class AssertionCount(BaseModel):
    """How many of a suite's assertions were decided outside the sandbox (docs/sandbox.md)."""

    model_config = ConfigDict(frozen=True)

    suite: Suite
    externalised: int
    """Assertions whose expected value and comparison never entered the sandbox."""
    total: int
    """Every assertion site of the suite's files."""


class RunReport(BaseModel):
    """Everything one sandboxed test run of a submission produced."""

    model_config = ConfigDict(frozen=True)

    results: list[TestResult]
    stability: StabilitySignals = Field(default_factory=StabilitySignals)
    sandbox: str
    """Which sandbox backend ran the tests (e.g. 'bubblewrap')."""
    removed: list[str] = Field(default_factory=list)
    """Files removed from ``code/`` before grading because they could steer the run."""
    infra_error: str | None = None
    """Set when the run failed for reasons that are not the agent's (sandbox broke)."""
    seeds: list[int] = Field(default_factory=list)
    duration_s: float = 0.0
    assertions: list[AssertionCount] = Field(default_factory=list)
    """Per suite, the assertions decided outside the sandbox (empty: the run decided inline)."""
    tampering: list[str] = Field(default_factory=list)
    """Integrity findings of the run (a canary that passed, test machinery changed by the
    submission). Non-empty means every verdict was voided: an integrity bright line."""
    exploits: list[ObservedExploit] = Field(default_factory=list)
    """Exploit attempts the sandbox observed (blocked), one per distinct attempt; the integrity
    judge turns them into exploit penalties (docs/sandbox.md, "Exploit attempts")."""

    def by_suite(self, suite: Suite) -> list[TestResult]:
        return [r for r in self.results if r.suite == suite]
