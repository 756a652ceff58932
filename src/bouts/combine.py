"""Combine judges' verdicts into component results. Pure: verdicts in, explained results out.

One component may have several judges (the code-quality panel; an LLM judge beside an offline one):
their scores go through the panel rule of SPEC §3 (``bouts.scoring.panel``). Integrity signals from
every source (static detectors, trajectory, the runner) are merged into one set.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from bouts.models.scorecard import FindingModel, JudgeScore
from bouts.models.verdict import IntegritySignals, Verdict
from bouts.scoring import components as c
from bouts.scoring import panel
from bouts.scoring.adjustments import Confidence, ExploitAttempt
from bouts.scoring.explain import Explained, NotScored, Result, Withheld
from bouts.scoring.open_reports import OpenReport
from bouts.scoring.withholding import settle


@dataclass(frozen=True)
class Combined:
    score: Result
    judges: tuple[JudgeScore, ...] = ()
    findings: tuple[FindingModel, ...] = ()
    human_review: bool = False
    """The panel could not agree (SPEC §3)."""


def findings_of(verdict: Verdict) -> list[FindingModel]:
    return [
        FindingModel(
            judge=verdict.judge, rule=f.rule, message=f.message, file=f.file, line=f.line, event=f.event,
            severity=f.severity, points=f.points, dimension=f.dimension,
        )
        for f in verdict.findings
    ]


def listing(component: str, verdicts: Sequence[Verdict]) -> tuple[tuple[JudgeScore, ...], tuple[FindingModel, ...]]:
    """What each judge of ``component`` said, and every finding they gave: the scorecard's evidence."""
    mine = [v for v in verdicts if v.component == component]
    judges = tuple(
        JudgeScore(
            judge=v.judge,
            score=v.score.value if isinstance(v.score, Explained) else None,
            reason=v.score.reason if isinstance(v.score, NotScored) else None,
            dimensions=dict(v.dimensions),
        )
        for v in mine
    )
    return judges, tuple(f for v in mine for f in findings_of(v))


def combine(component: str, verdicts: Sequence[Verdict], pending: str) -> Combined:
    """The component's result from its judges' verdicts; ``pending`` is the reason when none sat."""
    mine = [replace(v, score=settle(component, v.score)) for v in verdicts if v.component == component]
    if not mine:
        return Combined(NotScored(pending))
    judges, findings = listing(component, verdicts)
    # A judge that could not score because of the submission's own content makes the component 0
    # (SPEC §6, bouts.scoring.withholding): dropping it from the panel could only raise the panel's
    # score (its outlier rule would pass over a 0). One the platform kept from scoring does not sit.
    if withheld := [v for v in mine if isinstance(v.score, Withheld)]:
        reason = "; ".join(f"{v.judge}: {v.score.reason}" for v in withheld)  # type: ignore[union-attr]
        math = tuple(f"[{v.judge}] {line}" for v in withheld for line in v.score.math)
        return Combined(Withheld(0.0, math, reason=reason), judges, findings)
    scored = [v for v in mine if isinstance(v.score, Explained)]
    if not scored:
        reasons = "; ".join(f"{v.judge}: {v.score.reason}" for v in mine if isinstance(v.score, NotScored))
        return Combined(NotScored(reasons), judges, findings)
    if len(scored) == 1:
        only = scored[0]
        assert isinstance(only.score, Explained)
        math = tuple(f"[{only.judge}] {line}" for line in only.score.math)
        return Combined(Explained(only.score.value, math), judges, findings)
    lines = tuple(f"[{v.judge}] {line}" for v in scored for line in v.score.math)  # type: ignore[union-attr]
    skipped = [v.judge for v in mine if isinstance(v.score, NotScored)]
    if skipped:
        lines += (f"{component}: {', '.join(skipped)} did not score; the panel is the judges that did",)
    result = panel.aggregate([v.score.value for v in scored], component)  # type: ignore[union-attr]
    assert isinstance(result, panel.PanelResult)
    return Combined(Explained(result.score.value, lines + result.score.math), judges, findings, result.human_review)


def merge_integrity(verdicts: Sequence[Verdict]) -> IntegritySignals:
    """Union of every source's integrity signals (static detectors, trajectory judges, runner)."""
    bright: list[str] = []
    gray: list[float] = []
    reports: list[OpenReport] = []
    exploits: list[ExploitAttempt] = []
    for v in verdicts:
        if v.integrity is None:
            continue
        bright += [b for b in v.integrity.bright_lines if b not in bright]
        gray += [min(10.0, max(5.0, p)) for p in v.integrity.gray_penalties]  # SPEC: 5-10 each
        reports += [r for r in v.integrity.reports if r not in reports]
        exploits += list(v.integrity.exploit_attempts)
    return IntegritySignals(tuple(bright), tuple(gray), tuple(reports), tuple(exploits))


def integrity_score(signals: IntegritySignals, sources: Sequence[str]) -> Result:
    """The integrity component: 0 on any bright line, else 100 − gray penalties."""
    if not sources:
        return NotScored("no integrity detector sat")
    result = c.integrity(signals.bright_lines, signals.gray_penalties)
    return Explained(result.value, (f"integrity detectors: {', '.join(sources)}",) + result.math)


def stated_confidence(verdicts: Sequence[Verdict]) -> Confidence | None:
    """The agent's stated confidence, from the first judge that read one (None: no judge read it)."""
    stated = stated_calibration(verdicts)
    return stated.confidence if stated else None


@dataclass(frozen=True)
class Stated:
    """The agent's stated confidence as a judge read it, with its evidence."""

    judge: str
    confidence: Confidence
    probability: float | None
    """The stated probability (the number, or the one its words map to); None for "none"."""
    statement: str | None = None
    source: str | None = None
    """``trajectory event 18`` or ``deliverables/ROOT_CAUSE.md:12``."""


def stated_calibration(verdicts: Sequence[Verdict]) -> Stated | None:
    """The statement of the first judge that read a confidence (None: no judge read it); its
    ``calibration.statement`` finding gives the sentence and where it was made."""
    for v in verdicts:
        if v.confidence is None:
            continue
        note = next((f for f in v.findings if f.rule == "calibration.statement"), None)
        source = None
        if note is not None and note.file:
            source = f"{note.file}:{note.line}" if note.line is not None else note.file
        elif note is not None and note.event is not None:
            source = f"trajectory event {note.event}"
        statement = None
        if note is not None:  # the trajectory judges write "stated '<confidence>' (p=…): <sentence>"
            sentence = note.message.partition(": ")[2] if note.message.startswith("stated '") else ""
            statement = sentence or note.message
        probability = v.stated_probability if v.confidence != "none" else None
        return Stated(v.judge, v.confidence, probability, statement, source)
    return None
