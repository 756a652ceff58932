"""Where jobs run. ``Dispatcher`` is the contract the API relies on: ``enqueue`` may be called any
number of times for one job (duplicates are harmless: every job is guarded by the database). A job
is a ``kind`` and an id: ``score`` a submission (``run_job``), ``check`` a challenge version
(``run_check_job``), ``rescore`` a submission (``run_rescore_job``).

- ``LocalPoolDispatcher``: the embedded default, a process pool inside ``bouts serve``; retries
  with backoff are timers in the server; on start, every unfinished job is enqueued again.
- ``CeleryDispatcher``: publishes a task to the broker (again, with backoff, while the broker is
  down); ``bouts worker`` processes score it.
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Protocol

from bouts.pipeline import ScoreConfig
from bouts.service.calibration import run_check_job
from bouts.service.config import ServiceSettings
from bouts.service.jobs import JobKind, JobOutcome, Scorer, pipeline_scorer, retry_delay, run_job, score_config
from bouts.service.rescoring import run_rescore_job
from bouts.service.storage import Repository, open_repository

log = logging.getLogger(__name__)


class Dispatcher(Protocol):
    name: str

    def enqueue(self, job_id: str, kind: JobKind = "score") -> None: ...

    def close(self) -> None: ...


def run_kind(kind: JobKind, repo: Repository, job_id: str, *, scorer: Scorer, config: ScoreConfig,
             max_attempts: int) -> JobOutcome:  # fmt: skip
    """Run one job of ``kind``: what every dispatcher's worker calls."""
    runner = {"score": run_job, "check": run_check_job, "rescore": run_rescore_job}[kind]
    return runner(repo, job_id, scorer=scorer, config=config, max_attempts=max_attempts)


def pending_jobs(repo: Repository, states: tuple[str, ...] = ("queued", "running")) -> list[tuple[JobKind, str]]:
    """Every unfinished job of every kind, oldest first within a kind."""
    return [
        *(("score", i) for i in repo.submissions.pending(states=states)),
        *(("check", i) for i in repo.checks.pending(states=states)),
        *(("rescore", i) for i in repo.rescores.pending(states=states)),
    ]


# -- the local process pool ---------------------------------------------------------------------
_process_repo: dict[str, Repository] = {}


def _pool_job(kind: JobKind, db_url: str, job_id: str, scorer: Scorer, config: ScoreConfig,
              max_attempts: int) -> JobOutcome:  # fmt: skip
    """Runs in a pool process: one repository per process, opened on first use."""
    repo = _process_repo.get(db_url)
    if repo is None:
        repo = _process_repo[db_url] = open_repository(db_url, migrate_schema=False)
    return run_kind(kind, repo, job_id, scorer=scorer, config=config, max_attempts=max_attempts)


class LocalPoolDispatcher:
    """Scores in ``settings.local_workers`` processes of this machine."""

    name = "local-pool"

    def __init__(self, settings: ServiceSettings, repo: Repository, scorer: Scorer = pipeline_scorer) -> None:
        self.settings = settings
        self.repo = repo
        self.scorer = scorer
        self.config = score_config(settings)
        self._url = repo.engine.url.render_as_string(hide_password=False)
        self._lock = threading.Lock()
        self._timers: set[threading.Timer] = set()
        self._errors: dict[tuple[JobKind, str], int] = {}
        self._closed = False
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        # spawn: the server runs threads; forking a threaded process can copy held locks.
        return ProcessPoolExecutor(self.settings.local_workers, mp_context=multiprocessing.get_context("spawn"))

    def recover(self) -> int:
        """Enqueue every unfinished job (after a restart); how many."""
        pending = pending_jobs(self.repo)
        for kind, job_id in pending:
            self.enqueue(job_id, kind)
        return len(pending)

    def enqueue(self, job_id: str, kind: JobKind = "score") -> None:
        with self._lock:
            if self._closed:
                return
            args = (_pool_job, kind, self._url, job_id, self.scorer, self.config, self.settings.max_retries + 1)
            try:
                future = self._pool.submit(*args)
            except BrokenProcessPool:  # a pool process died (OOM kill): start a new pool
                self._pool = self._new_pool()
                future = self._pool.submit(*args)
        future.add_done_callback(lambda f: self._done((kind, job_id), f))

    def _done(self, job: tuple[JobKind, str], future: Future[JobOutcome]) -> None:
        if future.cancelled():
            return
        exc = future.exception()
        if exc is not None:
            if isinstance(exc, BrokenProcessPool):
                with self._lock:
                    if not self._closed and getattr(self._pool, "_broken", False):
                        self._pool = self._new_pool()
            errors = self._errors[job] = self._errors.get(job, 0) + 1
            log.error("local %s job %s failed (%s): %s", job[0], job[1], errors, exc)
            if errors <= self.settings.max_retries + 1:
                self._later(job, retry_delay(errors, self.settings.retry_backoff_s))
            return
        outcome = future.result()
        if outcome.kind == "retry":
            self._later(job, retry_delay(outcome.attempt, self.settings.retry_backoff_s))

    def _later(self, job: tuple[JobKind, str], delay: float) -> None:
        def fire() -> None:
            self._timers.discard(timer)
            self.enqueue(job[1], job[0])

        timer = threading.Timer(delay, fire)
        timer.daemon = True
        with self._lock:
            if self._closed:
                return
            self._timers.add(timer)
        timer.start()

    def close(self) -> None:
        """Stop taking jobs; running ones finish or are redone at the next start (they stay queued)."""
        with self._lock:
            self._closed = True
            for timer in list(self._timers):
                timer.cancel()
        self._pool.shutdown(wait=True, cancel_futures=True)


# -- Celery -------------------------------------------------------------------------------------
class CeleryDispatcher:
    """Publishes one task per job (``bouts.score_submission``, ``bouts.check_challenge``,
    ``bouts.rescore_submission``); ``bouts worker`` consumes them.

    A publish that fails (the broker is down) is not lost: the job is stored ``queued`` already, and
    this dispatcher publishes it again on a timer with backoff (1 s doubling to ``MAX_RETRY_S``)
    until the broker takes it. Jobs another process failed to publish are published at its restart
    (``recover``)."""

    name = "celery"
    MAX_RETRY_S = 60.0

    def __init__(self, settings: ServiceSettings) -> None:
        from bouts.service.worker.celery_app import create_celery

        self.settings = settings
        self.app = create_celery(settings)
        self._lock = threading.Lock()
        self._unsent: dict[tuple[JobKind, str], None] = {}
        self._timer: threading.Timer | None = None
        self._delay = 1.0
        self._closed = False

    def enqueue(self, job_id: str, kind: JobKind = "score") -> None:
        try:
            self._publish(kind, job_id)
        except Exception as exc:  # the broker's own errors vary by transport
            log.warning("could not publish %s job %s (%s); retrying", kind, job_id, exc)
            with self._lock:
                self._unsent[(kind, job_id)] = None
            self._schedule()

    @property
    def unsent(self) -> list[tuple[JobKind, str]]:
        """Jobs waiting for the broker, oldest first."""
        with self._lock:
            return list(self._unsent)

    def _publish(self, kind: JobKind, job_id: str) -> None:
        from bouts.service.worker.celery_app import TASK_NAMES

        self.app.send_task(TASK_NAMES[kind], args=[job_id], queue=self.settings.queue)

    def _schedule(self) -> None:
        with self._lock:
            if self._closed or self._timer is not None or not self._unsent:
                return
            self._timer = threading.Timer(self._delay, self._retry)
            self._timer.daemon = True
            self._delay = min(self.MAX_RETRY_S, self._delay * 2)
            self._timer.start()

    def _retry(self) -> None:
        with self._lock:
            self._timer = None
            pending = list(self._unsent)
        for kind, job_id in pending:
            try:
                self._publish(kind, job_id)
            except Exception as exc:
                log.warning("broker still refuses %s job %s (%s)", kind, job_id, exc)
                break
            with self._lock:
                self._unsent.pop((kind, job_id), None)
        with self._lock:
            if not self._unsent:
                self._delay = 1.0
        self._schedule()

    def recover(self, repo: Repository) -> int:
        """Publish again every queued job (duplicates are harmless); how many. Running ones are
        left to the broker, which redelivers a dead worker's task: publishing them again would have
        a live worker's job done twice (still stored once)."""
        pending = pending_jobs(repo, states=("queued",))
        for kind, job_id in pending:
            self.enqueue(job_id, kind)
        return len(pending)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
        self.app.close()
