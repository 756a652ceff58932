"""The recovery judge (SPEC §1): of the failures the agent met, the share a later action resolved.

Failures met: failing test runs, failed commands (non-zero exit; grep/diff exit 1 is an answer, not a
failure) and rejected edits. A failure is resolved by a later action of the same kind on the same
thing. Failures still standing at the end weigh double. It sits after the tests: when the engine's run
contradicts the log's final test claim, that claim is read as measured and test runs after the last one
the engine corroborates resolve nothing (``claims.py``). Rules: docs/trajectory-judges.md#recovery.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bouts.judges.base import JUDGES, Component, Finding, JudgeInput, Verdict
from bouts.models.trajectory import Event
from bouts.scoring.explain import Explained, NotScored
from bouts.scoring.trajectory_math import recovery_score

from ._common import (
    CHANGE_KINDS,
    NO_TRAJECTORY,
    changes,
    command_key,
    failed,
    is_filtered_test_run,
    is_test_run,
    passed,
    rejected_edit,
    same_file,
)
from .claims import ClaimCheck, annotate, check_claims, measured_counts, read_as_measured, withheld_from

NAME = "trajectory-recovery"


@dataclass(frozen=True)
class Failure:
    """One failure met, and the later event that resolved it (None: never resolved)."""

    event: int
    what: str
    resolved_by: int | None
    still_failing_at_end: bool


def _last_of_key(events: Sequence[Event], i: int, key: str) -> bool:
    """Whether event ``i`` is the last run of its command: its failure is the one standing at the end."""
    return not any(x.kind == "run" and command_key(x.command) == key for x in events[i + 1 :])


def _failure_of_test_run(events: Sequence[Event], i: int) -> Failure:
    e = events[i]
    key = command_key(e.command)
    resolved_by: int | None = None
    for j in range(i + 1, len(events)):
        x = events[j]
        if not is_test_run(x):
            continue
        same = command_key(x.command) == key
        fewer = e.tests is not None and x.tests is not None and x.tests.failed < e.tests.failed
        if (same and (passed(x) or fewer)) or (passed(x) and not is_filtered_test_run(x)):
            resolved_by = j
            break
    counts = f"{e.tests.failed} failed" if e.tests is not None else f"exit {e.exit_code}"
    return Failure(
        i,
        f"failing test run `{e.command}` ({counts})",
        resolved_by,
        resolved_by is None and _last_of_key(events, i, key),
    )


def _failure_of_command(events: Sequence[Event], i: int) -> Failure:
    key = command_key(events[i].command)
    resolved_by = next(
        (
            j
            for j in range(i + 1, len(events))
            if events[j].kind == "run" and command_key(events[j].command) == key and passed(events[j])
        ),
        None,
    )
    return Failure(
        i,
        f"failed command `{events[i].command}` (exit {events[i].exit_code})",
        resolved_by,
        resolved_by is None and _last_of_key(events, i, key),
    )


def _failure_of_edit(events: Sequence[Event], i: int) -> Failure:
    path = events[i].path or ""
    later = [
        j
        for j in range(i + 1, len(events))
        if events[j].kind in CHANGE_KINDS and events[j].path and same_file(events[j].path or "", path)
    ]
    resolved_by = next((j for j in later if changes(events[j])), None)
    return Failure(i, f"rejected {events[i].kind} of {path}", resolved_by, resolved_by is None and not later)


def failures_met(events: Sequence[Event]) -> list[Failure]:
    """Every failure of the trajectory, in order, with what resolved it.

    A failing test run counts as resolved when a later run of the same command has fewer failures
    (progress on what failed) or passes, or a later unfiltered test run passes.
    """
    out: list[Failure] = []
    for i, e in enumerate(events):
        if is_test_run(e) and failed(e):
            out.append(_failure_of_test_run(events, i))
        elif e.kind == "run" and failed(e):
            out.append(_failure_of_command(events, i))
        elif rejected_edit(e):
            out.append(_failure_of_edit(events, i))
    return out


@JUDGES.register(NAME)
class RecoveryJudge:
    """Recovery from the trajectory: the share of failures met that a later action resolved."""

    name = NAME
    component: Component = "recovery"
    needs_run = True
    """Sits after the tests: resolutions resting on test claims the engine's run contradicts are withheld."""

    def judge(self, inp: JudgeInput) -> Verdict:
        if inp.trajectory is None:
            return Verdict(self.name, "recovery", NotScored(NO_TRAJECTORY))
        check = check_claims(inp.trajectory.events, inp.run, inp.challenge.test_files.get("visible", []))
        events = read_as_measured(inp.trajectory.events, check)
        met = failures_met(events)
        withheld = [f for f in met if withheld_from(check, events, f.resolved_by)]
        resolved = sum(1 for f in met if f.resolved_by is not None) - len(withheld)
        at_end = sum(1 for f in met if f.still_failing_at_end)
        unlogged = _unlogged(check, at_end)
        score = recovery_score(len(met) + bool(unlogged), resolved, at_end + bool(unlogged))
        if unlogged and isinstance(score, Explained):
            score = Explained(score.value, score.math + (unlogged,))
        if check.withholds:
            score = annotate(score, check, _consequence(check, len(withheld)))
        elif isinstance(score, Explained):  # say what was compared, or why nothing was
            score = Explained(score.value, score.math + (check.note,))
        found = tuple(_finding(f, f in withheld) for f in met)
        return Verdict(self.name, "recovery", score, findings=found)


def _unlogged(check: ClaimCheck, at_end: int) -> str:
    """Why the engine's measurement counts as one more failure met and still failing at the end, or "".

    A log in which no failure is left standing, for code the engine measured failing visible tests
    (beyond timeouts and crashes), left its red runs out, or never ran the tests: either way the
    agent ends on a failure it did not resolve. Deleting the failing runs from a log took recovery
    from 0 to 100 ("no failure met"; red team 2026-12-06)."""
    m = check.measured
    if m is None or m.hard <= 0 or at_end > 0:
        return ""
    return (f"the engine measured {len(m.red)} of {m.total} visible tests failing on the submitted code and the "
            f"log leaves no failure standing: one more failure met, still failing at the end")


def _consequence(check: ClaimCheck, withheld: int) -> str:
    if check.final is None:  # unverified: no claim to read as measured
        return f"{withheld} resolution(s) by test runs withheld"
    final = check.final.event
    after = f"after event {check.boundary}" if check.boundary >= 0 else "in the log (none is corroborated)"
    return (
        f"event {final} read as measured ({measured_counts(check)}); "
        f"{withheld} resolution(s) by test runs {after} withheld"
    )


def _finding(f: Failure, withheld: bool) -> Finding:
    if withheld:
        return Finding(
            "recovery.withheld",
            f"{f.what}: resolved by event {f.resolved_by}, a test run after the last the engine corroborates: withheld",
            event=f.event,
        )
    if f.resolved_by is not None:
        return Finding("recovery.resolved", f"{f.what}: resolved by event {f.resolved_by}", event=f.event)
    return Finding(
        "recovery.unresolved",
        f"{f.what}: never resolved" + (" (still failing at the end: counts double)" if f.still_failing_at_end else ""),
        event=f.event,
    )
