"""The core's vocabulary: what a judge returns (``Verdict``) and the evidence behind it (``Finding``,
``IntegritySignals``). Pure data, shared by the judges (which make them), ``bouts.combine`` and
``bouts.assemble`` (which turn them into a scorecard)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from bouts.scoring.adjustments import Confidence, ExploitAttempt
from bouts.scoring.explain import Explained, NotScored
from bouts.scoring.open_reports import OpenReport

Component = Literal[
    "code_quality", "deliverables", "security", "process", "strategy", "integrity", "recovery", "efficiency",
    "adversarial_generated",
]


@dataclass(frozen=True)
class Finding:
    """One piece of evidence behind a score: what was seen, where, and what it cost."""

    rule: str
    """Stable id of the rule or check, e.g. ``semgrep:bouts.python.sql-injection`` or ``process.unread-edit``."""
    message: str
    file: str | None = None
    """Path relative to the submission's ``code/`` (or ``deliverables/``)."""
    line: int | None = None
    event: int | None = None
    """Index of the trajectory event, for trajectory judges."""
    severity: str | None = None
    """critical / high / medium / low where the rule has one."""
    points: float = 0.0
    """Points this finding took from the component (0 for informational findings)."""
    dimension: str | None = None
    """Sub-score it counts against (readability, accuracy, ...), where the judge has dimensions."""
    flag: bool = False
    """Also raise it on the scorecard as a level-1 review flag, its rule the flag's code (one flag per
    rule): what a person should look at, e.g. ``deliverables.judge-injection``."""


def finding_flags(verdicts: Iterable[Verdict]) -> list[tuple[str, str]]:
    """(code, message) of each rule some verdict's findings raise as a flag (``Finding.flag``), in order."""
    seen: dict[str, list[str]] = {}
    for v in verdicts:
        for f in v.findings:
            if f.flag:
                seen.setdefault(f.rule, []).append(f"{v.judge}: {f.message}")
    return [(rule, msgs[0] + (f" (and {len(msgs) - 1} more)" if len(msgs) > 1 else "")) for rule, msgs in seen.items()]


@dataclass(frozen=True)
class IntegritySignals:
    """What an integrity detector saw; feeds both the integrity judge score and the composite adjustment."""

    bright_lines: tuple[str, ...] = ()
    """Each a short description: tests modified, hard-coded outputs, off-limits access, ..."""
    gray_penalties: tuple[float, ...] = ()
    """5-10 each."""
    reports: tuple[OpenReport, ...] = ()
    """The agent's reports of a broken or contradictory test, made without working around it. They earn
    the open-integrity bonus only where the engine confirms the break (``bouts.scoring.open_reports``):
    a judge reports what was said, never the bonus."""
    exploit_attempts: tuple[ExploitAttempt, ...] = ()


@dataclass(frozen=True)
class Verdict:
    """A judge's answer for one component."""

    judge: str
    """Name of the judge (an analyser name or a model id): listed on the scorecard as a judge that sat."""
    component: Component
    score: Explained | NotScored
    findings: tuple[Finding, ...] = ()
    dimensions: Mapping[str, float] = field(default_factory=dict)
    """Sub-scores 0-100 (code quality: readability/architecture/robustness/idiomaticity)."""
    versions: Mapping[str, str] = field(default_factory=dict)
    """Tool / rule-set versions, for reproducibility."""
    integrity: IntegritySignals | None = None
    confidence: Confidence | None = None
    """The agent's stated confidence, for the calibration adjustment (trajectory judges)."""
    stated_probability: float | None = None
    """The probability behind ``confidence`` (0..1: the stated number, or the one its words map to), for
    the Brier score; None when no statement was read."""
