"""Where scoring jobs run. ``Dispatcher`` is the contract the API relies on: ``enqueue`` may be
called any number of times for one submission (duplicates are harmless: ``run_job`` is idempotent).

- ``LocalPoolDispatcher``: the embedded default, a process pool inside ``bouts serve``; retries
  with backoff are timers in the server; on start, every unfinished submission is enqueued again.
- ``CeleryDispatcher``: publishes a task to the broker; ``bouts worker`` processes score it.
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Protocol

from bouts.pipeline import ScoreConfig
from bouts.service.config import ServiceSettings
from bouts.service.jobs import JobOutcome, Scorer, pipeline_scorer, retry_delay, run_job, score_config
from bouts.service.storage import Repository, open_repository

log = logging.getLogger(__name__)


class Dispatcher(Protocol):
    name: str

    def enqueue(self, submission_id: str) -> None: ...

    def close(self) -> None: ...


# -- the local process pool ---------------------------------------------------------------------
_process_repo: dict[str, Repository] = {}


def _pool_job(db_url: str, submission_id: str, scorer: Scorer, config: ScoreConfig, max_attempts: int) -> JobOutcome:
    """Runs in a pool process: one repository per process, opened on first use."""
    repo = _process_repo.get(db_url)
    if repo is None:
        repo = _process_repo[db_url] = open_repository(db_url, migrate_schema=False)
    return run_job(repo, submission_id, scorer=scorer, config=config, max_attempts=max_attempts)


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
        self._errors: dict[str, int] = {}
        self._closed = False
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        # spawn: the server runs threads; forking a threaded process can copy held locks.
        return ProcessPoolExecutor(self.settings.local_workers, mp_context=multiprocessing.get_context("spawn"))

    def recover(self) -> int:
        """Enqueue every unfinished submission (after a restart); how many."""
        pending = self.repo.submissions.pending()
        for submission_id in pending:
            self.enqueue(submission_id)
        return len(pending)

    def enqueue(self, submission_id: str) -> None:
        with self._lock:
            if self._closed:
                return
            args = (_pool_job, self._url, submission_id, self.scorer, self.config, self.settings.max_retries + 1)
            try:
                future = self._pool.submit(*args)
            except BrokenProcessPool:  # a pool process died (OOM kill): start a new pool
                self._pool = self._new_pool()
                future = self._pool.submit(*args)
        future.add_done_callback(lambda f: self._done(submission_id, f))

    def _done(self, submission_id: str, future: Future[JobOutcome]) -> None:
        if future.cancelled():
            return
        exc = future.exception()
        if exc is not None:
            if isinstance(exc, BrokenProcessPool):
                with self._lock:
                    if not self._closed and getattr(self._pool, "_broken", False):
                        self._pool = self._new_pool()
            errors = self._errors[submission_id] = self._errors.get(submission_id, 0) + 1
            log.error("local job for %s failed (%s): %s", submission_id, errors, exc)
            if errors <= self.settings.max_retries + 1:
                self._later(submission_id, retry_delay(errors, self.settings.retry_backoff_s))
            return
        outcome = future.result()
        if outcome.kind == "retry":
            self._later(submission_id, retry_delay(outcome.attempt, self.settings.retry_backoff_s))

    def _later(self, submission_id: str, delay: float) -> None:
        def fire() -> None:
            self._timers.discard(timer)
            self.enqueue(submission_id)

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
    """Publishes ``bouts.score_submission`` tasks; ``bouts worker`` consumes them."""

    name = "celery"

    def __init__(self, settings: ServiceSettings) -> None:
        from bouts.service.worker.celery_app import create_celery

        self.settings = settings
        self.app = create_celery(settings)

    def enqueue(self, submission_id: str) -> None:
        from bouts.service.worker.celery_app import TASK_NAME

        self.app.send_task(TASK_NAME, args=[submission_id], queue=self.settings.queue)

    def recover(self, repo: Repository) -> int:
        """Publish again every queued submission (duplicates are harmless); how many. Running ones
        are left to the broker, which redelivers a dead worker's task: publishing them again would
        have a live worker's scoring done twice (still stored once)."""
        pending = repo.submissions.pending(states=("queued",))
        for submission_id in pending:
            self.enqueue(submission_id)
        return len(pending)

    def close(self) -> None:
        self.app.close()
