"""Canonical JSONL writing and the summary ``bouts trajectory show`` prints (pure)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from bouts.models.trajectory import EVENT_KINDS, Event, Trajectory


def to_jsonl(events: Iterable[Event]) -> Iterator[str]:
    """Canonical JSONL lines (SPEC §5), one per event, fields that are None left out."""
    for event in events:
        yield json.dumps(event.model_dump(exclude_none=True), ensure_ascii=False)


@dataclass(frozen=True)
class TestRun:
    """One run that executed tests, as ``show`` lists it."""

    __test__ = False
    index: int
    command: str
    passed: int
    failed: int
    exit_code: int | None
    ok: bool | None


@dataclass(frozen=True)
class TrajectorySummary:
    """What a trajectory holds, at a glance."""

    harness: str
    events: int
    by_kind: dict[str, int]
    reads: int
    edits: int
    failed_edits: int
    test_runs: list[TestRun] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    duration: float = 0.0
    truncated_line: int | None = None
    """The line a JSONL log was cut in (kept: the lines before it), when it was."""


def summarize(trajectory: Trajectory) -> TrajectorySummary:
    """Counts by kind, test runs with their outcome, token totals and duration."""
    kinds = Counter(e.kind for e in trajectory.events)
    runs = [
        TestRun(i, e.command or "", e.tests.passed, e.tests.failed, e.exit_code, e.ok)
        for i, e in enumerate(trajectory.events)
        if e.kind == "run" and e.tests is not None
    ]
    tokens_in, tokens_out = trajectory.tokens
    return TrajectorySummary(
        harness=trajectory.harness,
        events=len(trajectory.events),
        by_kind={k: kinds.get(k, 0) for k in EVENT_KINDS},
        reads=kinds.get("read", 0),
        edits=kinds.get("edit", 0) + kinds.get("write", 0),
        failed_edits=sum(1 for e in trajectory.events if e.kind in {"edit", "write"} and e.ok is False),
        test_runs=runs,
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        duration=max((e.t for e in trajectory.events), default=0.0),
        truncated_line=trajectory.truncated_line,
    )
