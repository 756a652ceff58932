"""The recovery judge (SPEC §1): of the failures the agent met, the share a later action resolved.

Failures met: failing test runs and failed commands on the task's path (builds, scripts on the code;
not reads, searches or probes; grep/diff exit 1 is an answer). A failure is resolved by a later run,
after a change, that passes: no-op actions never pay (issue 37). Failures still standing at the end
weigh double. It sits after the tests: when the engine's run
contradicts the log's final test claim, that claim is read as measured and test runs after the last one
the engine corroborates resolve nothing (``claims.py``). Rules: docs/trajectory-judges.md#recovery.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from bouts.judges.base import JUDGES, Component, Finding, JudgeInput, Verdict
from bouts.models.trajectory import Event
from bouts.scoring.explain import Explained, NotScored
from bouts.scoring.trajectory_math import recovery_score

from ._common import (
    NO_TRAJECTORY,
    changes,
    command_key,
    failed,
    is_filtered_test_run,
    is_test_run,
    norm_path,
    on_reverted_code,
    on_task_path,
    passed,
    same_file,
    suffixes,
)
from .claims import (
    RUNNER_WORDS,
    ClaimCheck,
    annotate,
    check_claims,
    measured_counts,
    read_as_measured,
    runner_argv,
    runner_operands,
    withheld_from,
)

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


@dataclass(frozen=True)
class _Walk:
    """What the resolution rules ask of every pair of events, computed in one pass (a log of thousands of
    events stays linear): how many changes precede each event, and which runs are fresh (no earlier run of
    the same command saw the same code fail: a pass right after a failing run of the same command,
    nothing changed in between, resolves nothing)."""

    changes_before: tuple[int, ...]
    fresh: tuple[bool, ...]
    flipped: tuple[bool, ...] = ()
    """Runs whose identical run, nothing changed in between, gave another outcome (a failure and its
    "fix" with no change, or the reverse): the outcome is not the code's, so such a run is no evidence
    that anything was resolved (a no-op pair's failing half reporting fewer failures resolved earlier
    failures: recovery 0 -> 66.67 on inventory-ledger's low anchor)."""

    @classmethod
    def of(cls, events: Sequence[Event]) -> _Walk:
        before, fresh, count = [], [], 0
        flipped = [False] * len(events)
        since: dict[str, bool] = {}  # command key -> whether its last run since the last change failed
        last: dict[str, int] = {}  # command key -> its last run since the last change
        for i, e in enumerate(events):
            before.append(count)
            if e.kind == "run":
                key = command_key(e.command)
                fresh.append(not since.get(key, False))
                if key in last and (passed(events[last[key]]), failed(events[last[key]])) != (passed(e), failed(e)):
                    flipped[last[key]] = flipped[i] = True
                since[key] = failed(e)
                last[key] = i
            else:
                fresh.append(True)
            if changes(e):
                count += 1
                since.clear()
                last.clear()
        return cls(tuple(before), tuple(fresh), tuple(flipped))

    def changed_between(self, i: int, j: int) -> bool:
        return self.changes_before[j] > self.changes_before[i + 1] if i + 1 <= j else False


def _flaky(events: Sequence[Event], i: int) -> bool:
    """A failure whose identical re-run passed with nothing changed in between: the pass says the failure
    was not the code's, so no later change can be said to have resolved it."""
    key = command_key(events[i].command)
    for x in events[i + 1 :]:
        if changes(x):
            return False
        if x.kind == "run" and command_key(x.command) == key:
            return passed(x)
    return False


def _selection(e: Event) -> tuple[str, frozenset[str]] | None:
    """(runner, path operands) of a test run, or None when it cannot be read (then only the same command
    resolves its failures)."""
    return _selection_of(e.command or "")


@functools.lru_cache(maxsize=2048)
def _selection_of(command: str) -> tuple[str, frozenset[str]] | None:
    found = runner_argv(command)
    if found is None:
        return None
    argv = found[0]
    runner = next((w.rsplit("/", 1)[-1] for w in argv if w.rsplit("/", 1)[-1] in RUNNER_WORDS), argv[0])
    return runner, frozenset(norm_path(o).rstrip("/") for o in runner_operands(argv))


def covers(x: Event, e: Event) -> bool:
    """Whether test run ``x`` runs every test ``e`` ran: the same runner, unfiltered, and each of ``e``'s path
    operands within one of ``x``'s (no operand: the whole suite). ``pytest tests/`` covers ``pytest
    tests/test_a.py``; ``pytest tests/test_b.py`` does not."""
    if is_filtered_test_run(x):
        return False
    a, b = _selection(x), _selection(e)
    if a is None or b is None or a[0] != b[0]:
        return False
    if not a[1] or a[1] & {".", "./...", "..."}:
        return True
    if not b[1]:
        return False

    def within(op: str) -> bool:
        op = op.split("::", 1)[0]
        return any(same_file(op, o) or any(t.startswith(o.lstrip("/") + "/") for t in suffixes(op)) for o in a[1])

    return all(within(op) for op in b[1])


def _failure_of_test_run(events: Sequence[Event], i: int, walk: _Walk) -> Failure:
    e = events[i]
    key = command_key(e.command)
    resolved_by: int | None = None
    if not _flaky(events, i):
        for j in range(i + 1, len(events)):
            x = events[j]
            if not is_test_run(x) or not walk.changed_between(i, j) or not walk.fresh[j] or walk.flipped[j]:
                continue
            same = command_key(x.command) == key
            fewer = e.tests is not None and x.tests is not None and x.tests.failed < e.tests.failed
            if (same and (passed(x) or fewer)) or (passed(x) and covers(x, e)):
                resolved_by = j
                break
    counts = f"{e.tests.failed} failed" if e.tests is not None else f"exit {e.exit_code}"
    return Failure(
        i,
        f"failing test run `{e.command}` ({counts})",
        resolved_by,
        resolved_by is None and _last_of_key(events, i, key),
    )


def _failure_of_command(events: Sequence[Event], i: int, walk: _Walk) -> Failure:
    key = command_key(events[i].command)
    resolved_by = None
    if not _flaky(events, i):
        resolved_by = next(
            (
                j
                for j in range(i + 1, len(events))
                if events[j].kind == "run"
                and command_key(events[j].command) == key
                and passed(events[j])
                and walk.changed_between(i, j)
                and walk.fresh[j]
                and not walk.flipped[j]
            ),
            None,
        )
    return Failure(
        i,
        f"failed command `{events[i].command}` (exit {events[i].exit_code})",
        resolved_by,
        resolved_by is None and _last_of_key(events, i, key),
    )


def failures_met(events: Sequence[Event]) -> list[Failure]:
    """Every failure on the task's path, in order, with what resolved it (issue 37: no-op actions never pay).

    Met: failing test runs (not those on code the agent had just reverted, to see a test fail without its
    fix) and failed commands on the code (builds, scripts; not reads, searches, navigation or probes). A
    rejected edit changed nothing and is no failure of the work. A failure is resolved only by a later
    run, after a change, that passes (or, of the same command, fails less): the same command, or for a
    test run one that runs a superset of its tests. A pass of the same code that just failed resolves
    nothing, and a failure whose identical re-run passed with nothing changed is never resolved.
    """
    out: list[Failure] = []
    walk = _Walk.of(events)
    for i, e in enumerate(events):
        if is_test_run(e) and failed(e):
            if not on_reverted_code(events, i):
                out.append(_failure_of_test_run(events, i, walk))
        elif e.kind == "run" and failed(e) and on_task_path(e):
            out.append(_failure_of_command(events, i, walk))
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
