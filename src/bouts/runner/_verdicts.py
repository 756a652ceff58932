"""Turn what the driver reported (and what the sandbox saw) into one outcome per test id.

Pure: records and facts in, results and stability signals out. Nothing reported is ever
upgraded: an id that never reports is missing, crashed or timed out, never passed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from bouts.models.challenge import Severity, Suite
from bouts.models.results import AssertionCount, Outcome, StabilitySignals, TestResult
from bouts.runner._channel import Record

_OUT_OF_MEMORY = re.compile(r"(E\s+)?MemoryError\b")
"""A collection error that is the memory limit (RLIMIT_AS) biting while the code was imported."""


@dataclass(frozen=True)
class RunEnd:
    """How the sandboxed driver ended, as the host saw it."""

    timed_out: bool
    exit_code: int | None
    signal: int | None
    protocol_violations: int = 0
    forbidden_calls: tuple[str, ...] = ()
    """Seccomp kills the sandbox saw from outside (``SandboxResult.forbidden_calls``)."""


def file_of(node_id: str) -> str:
    """The test file of a pytest node id (``tests/x/test_a.py::t[1]`` → ``tests/x/test_a.py``)."""
    return node_id.split("::", 1)[0]


def to_result(
    node: str,
    outcome: Outcome,
    detail: str,
    duration: float,
    *,
    file_suite: Mapping[str, Suite],
    severity_of: Callable[[str], Severity | None],
) -> TestResult | None:
    """One :class:`TestResult`, or ``None`` when ``node`` is not in a file we asked for."""
    suite = file_suite.get(file_of(node))
    if suite is None:
        return None
    return TestResult(
        id=node,
        suite=suite,
        outcome=outcome,
        duration_s=duration,
        detail=detail,
        severity=severity_of(node) if suite == "adversarial" else None,
    )


def _end_reason(end: RunEnd) -> str:
    if end.timed_out:
        return "the suite hit its wall timeout"
    if end.signal is not None:
        return f"the test run was killed by signal {end.signal}"
    return f"the test run exited with code {end.exit_code}"


def assemble(
    records: Sequence[Record],
    *,
    file_suite: Mapping[str, Suite],
    expected_ids: Sequence[str] | None,
    end: RunEnd,
    severity_of: Callable[[str], Severity | None],
    golden: Mapping[str, Sequence[str]] | None = None,
) -> tuple[list[TestResult], StabilitySignals]:
    """Results for every expected (or collected) id, plus the stability signals of the run.

    ``severity_of`` gives an adversarial test id's severity. With ``expected_ids`` (from the
    reference solution) only those ids (and file-level collection errors) are graded: a
    submission cannot add tests. ``golden`` holds the reference's ``bouts_expect`` digests per id:
    a passed test whose digests differ is failed. Results come out in a stable order.
    """
    allowed = set(expected_ids) if expected_ids is not None else None
    results: dict[str, TestResult] = {}
    warnings: list[str] = []
    crashes: list[str] = []
    collected: list[str] | None = None
    collect_errors: dict[str, str] = {}
    done: Record | None = None

    def put(node: str, outcome: Outcome, detail: str, duration: float = 0.0) -> None:
        if node in results:
            return  # a second report for the same id: the first one stands
        if allowed is not None and node not in allowed and "::" in node:
            return  # not a test of the reference suite: it cannot count
        result = to_result(node, outcome, detail, duration, file_suite=file_suite, severity_of=severity_of)
        if result is not None:  # None: not a file we asked for
            results[node] = result

    for rec in records:
        if rec.kind == "collected" and collected is None:
            collected = list(rec.ids)
        elif rec.kind == "collect_error":
            collect_errors[file_of(rec.id)] = rec.detail
            put(rec.id, Outcome.ERROR, f"collection error: {rec.detail}")
            if _OUT_OF_MEMORY.match(rec.detail):  # a crash of the run, not a clean collection error
                crashes.append(f"crashed: {rec.id}: out of memory while importing (MemoryError)")
        elif rec.kind == "result" and rec.outcome is not None:
            outcome, detail = rec.outcome, rec.detail
            want = (golden or {}).get(rec.id)
            if outcome is Outcome.PASSED and want and tuple(want) != rec.observations:
                outcome, detail = Outcome.FAILED, "a bouts_expect value differs from the reference solution's"
            put(rec.id, outcome, detail, rec.duration_s)
            warnings.extend(rec.warnings)
            if rec.outcome in (Outcome.TIMEOUT, Outcome.CRASHED):
                crashes.append(f"{rec.outcome.value}: {rec.id}: {rec.detail}")
        elif rec.kind == "warning":
            warnings.append(rec.detail)
        elif rec.kind == "done":
            done = rec
        elif rec.kind == "crash":
            crashes.append(f"crash: {rec.detail}")
        elif rec.kind in ("invalid", "violation"):
            crashes.append(f"protocol violation on the result channel: {rec.detail}")

    reason = _end_reason(end)
    died = end.timed_out or done is None
    for node in collected or []:
        if node not in results:
            if end.timed_out:
                put(node, Outcome.TIMEOUT, f"not run: {reason}")
            else:
                put(node, Outcome.CRASHED, f"never reported: {reason}")
    for node in expected_ids or []:
        if node in results:
            continue
        if file_of(node) in collect_errors:
            put(node, Outcome.ERROR, f"collection error: {collect_errors[file_of(node)]}")
        else:
            put(node, Outcome.MISSING, "expected test never reported")
    if collected is None:
        # Collection never finished (an import killed the run?): no file may silently vanish.
        for path in file_suite:
            if not any(file_of(r) == path for r in results):
                put(path, Outcome.ERROR, f"collection did not complete: {reason}")

    if end.timed_out:
        crashes.append("timeout: the suite hit its wall timeout and was killed")
    elif died:
        crashes.append(f"crash: {reason} before the suite finished")
    elif end.exit_code != 0 or end.signal is not None:
        crashes.append(f"bad exit: {reason} after the suite")
    if end.protocol_violations:
        crashes.append(f"protocol violation: {end.protocol_violations} oversized record(s)")
    stability = StabilitySignals(warnings=sorted(set(w for w in warnings if w)), crashes=crashes)
    order = {node: i for i, node in enumerate([*(expected_ids or []), *(collected or [])])}
    ranked = sorted(results.values(), key=lambda r: (order.get(r.id, len(order)), r.id))
    return ranked, stability


def counts_by_suite(counts: Iterable[tuple[Suite, int, int]]) -> list[AssertionCount]:
    """Each suite's externalised and total assertions, summed over its files' ``(suite,
    externalised, total)`` (the Python and JavaScript rewrites' counts alike), by suite name."""
    totals: dict[Suite, list[int]] = {}
    for suite, done, total in counts:
        acc = totals.setdefault(suite, [0, 0])
        acc[0] += done
        acc[1] += total
    return [AssertionCount(suite=s, externalised=d, total=t) for s, (d, t) in sorted(totals.items())]
