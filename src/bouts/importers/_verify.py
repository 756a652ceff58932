"""Verify at import: each task's reference runs against its own visible and hidden tests in the
sandbox, and no test the reference fails is ever shipped (docs/importers.md, "Verified at import").

The runner decides a challenge's assertions outside, from the reference's golden run
(docs/sandbox.md, "Decided outside"): a test the reference fails would fail every submission. So a
failing example is dropped with its reason, and a task left with no visible or no hidden test is
excluded. A sandbox that breaks is an :class:`~bouts.errors.InfrastructureError`, raised, never
a task's failure.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bouts.importers._batch import run_batch
from bouts.importers._model import ImportedChallenge
from bouts.importers._reference import run_reference
from bouts.models.results import Outcome
from bouts.runner import RunOptions
from bouts.sandbox import Sandbox

SCHEMA = "bouts.import-report/1"
REASON_CHARS = 200


class DroppedExample(BaseModel):
    """One test the reference failed, left out of the challenge."""

    model_config = ConfigDict(frozen=True)
    challenge: str
    suite: Literal["visible", "hidden"]
    test: str
    """The test function (``test_example_2``)."""
    reason: str
    """The outcome and the first line of its detail (``failed: AssertionError``)."""


class ExcludedTask(BaseModel):
    """A task not imported: its reference fails every visible or every hidden test."""

    model_config = ConfigDict(frozen=True)
    challenge: str
    line: int
    """Line of the dataset file the task came from."""
    reason: str


class ImportReport(BaseModel):
    """What ``bouts import`` did (printed, and written by ``--report FILE``)."""

    model_config = ConfigDict(populate_by_name=True)
    schema_: str = Field(SCHEMA, alias="schema")
    dataset: str
    source: str
    tasks_read: int
    imported: int
    visible_tests: int
    """Visible tests kept, over the imported challenges."""
    hidden_tests: int
    verified: bool
    """False with ``--no-verify``: nothing was run, nothing dropped."""
    dropped: list[DroppedExample] = Field(default_factory=list)
    excluded: list[ExcludedTask] = Field(default_factory=list)
    verify_seconds: float = 0.0


@dataclass(frozen=True)
class Verdict:
    """One task after verification: the challenge to write (``None`` if excluded) and why."""

    challenge: ImportedChallenge | None
    dropped: tuple[DroppedExample, ...]
    excluded: ExcludedTask | None


def verify_challenges(
    challenges: Sequence[ImportedChallenge],
    *,
    sandbox: Sandbox,
    jobs: int = 2,
    batch: int = 50,
    options: RunOptions | None = None,
    on_verified: Callable[[Verdict], None] | None = None,
) -> list[Verdict]:
    """Run each challenge's reference against its visible and hidden tests (``jobs`` runs at
    once, one test worker each) and return, in order, what to keep of each.

    ``batch`` > 1 runs that many tasks in one sandbox run (``_batch.py``: each task's test
    modules load its own reference as ``solution``); a task whose batched run is not clean is
    run again on its own, so a batch never decides a drop or an exclusion."""
    options = options or RunOptions(workers=1)
    with tempfile.TemporaryDirectory(prefix="bouts-verify-") as tmp:

        def one(challenge: ImportedChallenge) -> Verdict:
            verdict = verify_one(challenge, Path(tmp), sandbox=sandbox, options=options)
            if on_verified is not None:
                on_verified(verdict)
            return verdict

        def group(chunk: Sequence[ImportedChallenge]) -> list[Verdict]:
            clean = run_batch(chunk, Path(tmp), sandbox=sandbox, options=options)
            out = []
            for challenge in chunk:
                if challenge.id in clean:
                    verdict = Verdict(challenge, (), None)
                    if on_verified is not None:
                        on_verified(verdict)
                    out.append(verdict)
                else:
                    out.append(one(challenge))
            return out

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            if batch <= 1 or any(c.layout is None for c in challenges):
                return list(pool.map(one, challenges))
            chunks = [challenges[i : i + batch] for i in range(0, len(challenges), batch)]
            return [v for verdicts in pool.map(group, chunks) for v in verdicts]


def verify_one(challenge: ImportedChallenge, workdir: Path, *, sandbox: Sandbox, options: RunOptions) -> Verdict:
    """Write ``challenge`` under ``workdir``, run its reference, and drop what the reference fails."""
    report = run_reference(challenge.files, workdir / challenge.id, sandbox=sandbox, options=options)
    paths = challenge.layout.paths if challenge.layout else {}
    expected = {
        (suite, f"test_{name}")
        for suite, tests in (("visible", _tests(challenge, "visible")), ("hidden", _tests(challenge, "hidden")))
        for name in tests
    }
    failures: dict[tuple[str, str], str] = {}
    seen: set[tuple[str, str]] = set()
    module_errors: dict[str, str] = {}
    for result in report.results:
        reason = _reason(result.outcome, result.detail)
        if "::" not in result.id:  # the module itself failed (collection error): every test of its suite
            if result.outcome is not Outcome.PASSED:
                module_errors[result.suite] = reason
            continue
        key = (result.suite, result.id.split("::")[-1].split("[")[0])
        seen.add(key)
        if result.outcome is not Outcome.PASSED:
            failures[key] = reason
    for key in sorted(expected - seen):
        failures[key] = module_errors.get(key[0], f"not reported by the run of {paths.get(key[0], key[0])}")
    dropped = tuple(
        DroppedExample(challenge=challenge.id, suite=suite, test=test, reason=failures[(suite, test)])  # type: ignore[arg-type]
        for suite, test in sorted(failures, key=lambda k: (k[0] != "visible", _order(challenge, k)))
    )
    if not dropped:
        return Verdict(challenge, (), None)
    kept = challenge.without(failures.keys())
    empty = [s for s, n in (("visible", kept.visible_tests), ("hidden", kept.hidden_tests)) if n == 0]
    if empty:
        why = "; ".join(sorted({d.reason for d in dropped if d.suite in empty}))
        reason = f"the reference fails every {' and every '.join(empty)} test ({why})"
        return Verdict(None, dropped, ExcludedTask(challenge=challenge.id, line=challenge.line, reason=reason))
    return Verdict(kept, dropped, None)


def _tests(challenge: ImportedChallenge, suite: str) -> list[str]:
    if challenge.layout is None:
        return []
    return [name for name, _ in (challenge.layout.visible if suite == "visible" else challenge.layout.hidden)]


def _order(challenge: ImportedChallenge, key: tuple[str, str]) -> int:
    names = [f"test_{n}" for n in _tests(challenge, key[0])]
    return names.index(key[1]) if key[1] in names else len(names)


def _reason(outcome: Outcome, detail: str) -> str:
    first = next((line.strip() for line in detail.splitlines() if line.strip()), "")
    text = f"{outcome.value}: {first}" if first else outcome.value
    return text if len(text) <= REASON_CHARS else text[: REASON_CHARS - 1] + "…"


def summarise(
    verdicts: Sequence[Verdict], *, dataset: str, source: str, tasks_read: int, seconds: float
) -> ImportReport:
    kept = [v.challenge for v in verdicts if v.challenge is not None]
    return ImportReport(
        dataset=dataset,
        source=source,
        tasks_read=tasks_read,
        imported=len(kept),
        visible_tests=sum(c.visible_tests for c in kept),
        hidden_tests=sum(c.hidden_tests for c in kept),
        verified=True,
        dropped=[d for v in verdicts for d in v.dropped],
        excluded=[v.excluded for v in verdicts if v.excluded is not None],
        verify_seconds=round(seconds, 1),
    )
