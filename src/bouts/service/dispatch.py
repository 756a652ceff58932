"""Where jobs run. ``Dispatcher`` is the contract the API relies on: ``enqueue`` may be called any
number of times for one job (duplicates are harmless: every job is guarded by the database). A job
is a ``kind`` and an id: ``score`` a submission (``run_job``), ``check`` a challenge version
(``run_check_job``), ``rescore`` a submission (``run_rescore_job``).

- ``LocalPoolDispatcher`` (here): the embedded default, a process pool inside ``bouts serve``.
- ``CeleryDispatcher`` (``bouts.service.publish``): publishes a task to the broker; ``bouts worker``
  processes run it.

Both keep a job's place: a job handed back (its process died, its lease ran out, a retry) goes
ahead of jobs that arrived after it. Recovery (``bouts.service.recovery``) hands back jobs whose
worker stopped stamping its heartbeat and gives the dispatcher what it lost.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import multiprocessing
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from concurrent.futures.process import BrokenProcessPool
from typing import Protocol

from bouts.pipeline import ScoreConfig
from bouts.service import metrics
from bouts.service.calibration import run_check_job
from bouts.service.config import ServiceSettings
from bouts.service.jobs import JobKind, JobOutcome, Scorer, pipeline_scorer, retry_delay, run_job, score_config
from bouts.service.rescoring import run_rescore_job
from bouts.service.storage import Repository, open_repository

log = logging.getLogger(__name__)
Job = tuple[JobKind, str]


class Dispatcher(Protocol):
    name: str

    def enqueue(self, job_id: str, kind: JobKind = "score") -> None: ...

    def close(self) -> None: ...


def run_kind(kind: JobKind, repo: Repository, job_id: str, *, scorer: Scorer, config: ScoreConfig,
             max_attempts: int, lease_s: float = 0.0) -> JobOutcome:  # fmt: skip
    """Run one job of ``kind``: what every dispatcher's worker calls."""
    runner = {"score": run_job, "check": run_check_job, "rescore": run_rescore_job}[kind]
    return runner(repo, job_id, scorer=scorer, config=config, max_attempts=max_attempts, lease_s=lease_s)


def job_store(repo: Repository, kind: JobKind):  # type: ignore[no-untyped-def]
    """The table of a job kind (``Submissions``, ``CheckRuns``, ``Rescores``)."""
    return {"score": repo.submissions, "check": repo.checks, "rescore": repo.rescores}[kind]


def pending_jobs(repo: Repository, states: tuple[str, ...] = ("queued", "running")) -> list[Job]:
    """Every unfinished job of every kind, oldest first within a kind."""
    return [
        *(("score", i) for i in repo.submissions.pending(states=states)),
        *(("check", i) for i in repo.checks.pending(states=states)),
        *(("rescore", i) for i in repo.rescores.pending(states=states)),
    ]


# -- the local process pool ---------------------------------------------------------------------
_process_repo: dict[str, Repository] = {}


def _pool_job(kind: JobKind, db_url: str, job_id: str, scorer: Scorer, config: ScoreConfig,
              max_attempts: int, lease_s: float) -> JobOutcome:  # fmt: skip
    """Runs in a pool process: one repository per process, opened on first use."""
    repo = _process_repo.get(db_url)
    if repo is None:
        repo = _process_repo[db_url] = open_repository(db_url, migrate_schema=False)
    return run_kind(kind, repo, job_id, scorer=scorer, config=config, max_attempts=max_attempts, lease_s=lease_s)


class LocalPoolDispatcher:
    """Runs jobs in ``settings.local_workers`` processes of this machine.

    Jobs wait here, ordered by when this dispatcher first saw them, and go to the pool only when a
    process is free: a job handed back keeps its place, and on shutdown nothing waiting starts.
    A pool process that dies mid-job (OOM kill, SIGKILL) breaks the pool: every job it was running
    is handed back (``queued`` again at once, never left showing ``running``) and runs first in a
    new pool. ``close`` lets running jobs finish for ``shutdown_grace_s``, then stops the pool's
    processes and hands their jobs back for the next start.
    """

    name = "local-pool"
    mp_context: multiprocessing.context.BaseContext = multiprocessing.get_context("spawn")
    """spawn: the server runs threads; forking a threaded process can copy held locks. (A test suite
    may hand a forkserver context that preloads this module: the same fresh processes, started from
    an imported service instead of importing it again for each pool.)"""

    def __init__(self, settings: ServiceSettings, repo: Repository, scorer: Scorer = pipeline_scorer) -> None:
        self.settings = settings
        self.repo = repo
        self.scorer = scorer
        self.config = score_config(settings)
        self._url = repo.engine.url.render_as_string(hide_password=False)
        self._lock = threading.Lock()
        self._waiting: list[tuple[int, JobKind, str]] = []
        self._order: dict[Job, int] = {}
        self._seq = itertools.count()
        self._running: dict[Future[JobOutcome], Job] = {}
        self._timers: set[threading.Timer] = set()
        self._delayed: set[Job] = set()
        """Jobs waiting out a retry backoff: ``resync`` must not run them early."""
        self._errors: dict[Job, int] = {}
        self._closed = False
        self._finished: list[Future[JobOutcome]] = []
        self._finished_lock = threading.Lock()
        """Guards ``_finished`` alone: a done-callback runs at once, on the submitting thread, when
        the job is already over — while that thread holds ``_lock`` (which is not reentrant)."""
        self._wake = threading.Event()
        self._pool = self._new_pool()
        # Completions are handled, and the pool fed, on this thread: never on the pool's own
        # management thread, which must not block on the database or submit to itself.
        self._feeder = threading.Thread(target=self._run_feeder, name="bouts-local-pool", daemon=True)
        self._feeder.start()

    def _new_pool(self) -> ProcessPoolExecutor:
        # Each process seats the LLM panel (BOUTS_LLM_PANEL) in its own judge registry as it starts.
        return ProcessPoolExecutor(self.settings.local_workers, mp_context=self.mp_context,
                                   initializer=score_config, initargs=(self.settings,))  # fmt: skip

    def recover(self) -> int:
        """After a (re)start: hand back the jobs the previous process was running (on one machine
        nothing else runs them), then enqueue every unfinished job, oldest first; how many."""
        for kind, job_id in pending_jobs(self.repo, states=("running",)):
            job_store(self.repo, kind).hand_back([job_id], "the server restarted while it ran")
        return self.resync()

    def resync(self) -> int:
        """Enqueue every queued job of the database this dispatcher does not hold (a retry whose
        timer was lost, a job the database refused to hand out while it was down); how many."""
        pending = pending_jobs(self.repo, states=("queued",))
        for kind, job_id in pending:
            self.enqueue(job_id, kind)
        return len(pending)

    def enqueue(self, job_id: str, kind: JobKind = "score", *, first: bool = False) -> None:
        """Queue a job here (once: a job already waiting or running is not added again). Its place
        is when this dispatcher first saw it, so ``first`` changes nothing: a handed-back job
        already goes ahead of newer ones."""
        job = (kind, job_id)
        with self._lock:
            if (self._closed or job in self._delayed or job in self._running.values()
                    or any(w[1:] == job for w in self._waiting)):  # fmt: skip
                return
            order = self._order.setdefault(job, next(self._seq))
            heapq.heappush(self._waiting, (order, kind, job_id))
            self._feed()

    def _feed(self) -> None:
        """Hand waiting jobs to free pool processes (under the lock)."""
        while not self._closed and self._waiting and len(self._running) < self.settings.local_workers:
            _, kind, job_id = heapq.heappop(self._waiting)
            args = (_pool_job, kind, self._url, job_id, self.scorer, self.config, self.settings.max_retries + 1,
                    self.settings.lease_s)  # fmt: skip
            try:
                future = self._pool.submit(*args)
            except BrokenProcessPool:  # a process died since: start a new pool
                self._pool = self._new_pool()
                future = self._pool.submit(*args)
            self._running[future] = (kind, job_id)
            future.add_done_callback(self._finish)

    def _finish(self, future: Future[JobOutcome]) -> None:
        with self._finished_lock:
            self._finished.append(future)
        self._wake.set()

    def _run_feeder(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            with self._finished_lock:
                finished, self._finished = self._finished, []
            for future in finished:
                try:
                    self._done(future)
                except Exception:
                    log.exception("local pool bookkeeping failed")
            with self._lock:
                if self._closed and not self._running:
                    return
                self._feed()

    def _done(self, future: Future[JobOutcome]) -> None:
        with self._lock:
            job = self._running.pop(future, None)
        if job is None or future.cancelled():
            return
        exc = future.exception()
        if isinstance(exc, BrokenProcessPool):
            self._lost(job)
            return
        if exc is not None:  # the job could not record an outcome (the database is down)
            metrics.job_error(job[0])
            errors = self._errors[job] = self._errors.get(job, 0) + 1
            log.error("local %s job %s failed (%s): %s", job[0], job[1], errors, exc)
            self._later(job, retry_delay(errors, self.settings.retry_backoff_s, cap_s=60.0))
            return
        outcome = future.result()
        metrics.job_finished(job[0], outcome.kind, outcome.seconds, outcome.usage)
        if outcome.kind == "retry":
            self._later(job, retry_delay(outcome.attempt, self.settings.retry_backoff_s))
        else:
            with self._lock:
                self._order.pop(job, None)
                self._errors.pop(job, None)

    def _lost(self, job: Job) -> None:
        """The pool broke under ``job``: hand it back now and run it first in a new pool."""
        with self._lock:
            if self._closed:
                return
            if getattr(self._pool, "_broken", False):
                self._pool = self._new_pool()
        try:
            moved = job_store(self.repo, job[0]).hand_back([job[1]], "its pool process died mid-job")
            metrics.handed_back(job[0], "pool_died", len(moved))
        except Exception:  # the database is down too: recovery hands it back later
            log.exception("could not hand back %s job %s", *job)
        log.warning("local %s job %s lost its pool process; running it again first", *job)
        self.enqueue(job[1], job[0])

    def _later(self, job: Job, delay: float) -> None:
        def fire() -> None:
            with self._lock:
                self._timers.discard(timer)
                self._delayed.discard(job)
            self.enqueue(job[1], job[0])

        timer = threading.Timer(delay, fire)
        timer.daemon = True
        with self._lock:
            if self._closed:
                return
            self._timers.add(timer)
            self._delayed.add(job)
        timer.start()

    def close(self) -> None:
        """Stop taking jobs; let running ones finish within ``shutdown_grace_s``, then stop the
        pool's processes and hand their jobs back (``queued``, first in line at the next start)."""
        with self._lock:
            self._closed = True
            for timer in list(self._timers):
                timer.cancel()
            self._waiting.clear()
            running = dict(self._running)
        _, unfinished = wait_futures(list(running), timeout=self.settings.shutdown_grace_s)
        if unfinished:
            for process in list(getattr(self._pool, "_processes", {}).values()):
                process.kill()  # no public way to stop a busy ProcessPoolExecutor before 3.14
            for kind, job_id in {running[f] for f in unfinished}:
                try:
                    moved = job_store(self.repo, kind).hand_back([job_id], "the server stopped while it ran")
                    metrics.handed_back(kind, "shutdown", len(moved))
                except Exception:
                    log.exception("could not hand back %s job %s at shutdown", kind, job_id)
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._wake.set()
        self._feeder.join(timeout=5)
