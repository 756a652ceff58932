"""The Celery app: one task per job kind (``bouts.score_submission``, ``bouts.check_challenge``,
``bouts.rescore_submission``), each a thin driver around ``bouts.service.dispatch.run_kind``.

Reliability settings (why: ``docs/service.md``): tasks are acknowledged late and rejected (so
requeued) when their worker process is lost; each worker prefetches one task at a time; an
unacknowledged task whose whole worker machine died comes back after ``visibility_timeout_s``.
Duplicate deliveries are harmless: the database guards every state transition.
"""

from __future__ import annotations

import logging

from celery import Celery, Task

from bouts.service.config import ServiceSettings
from bouts.service.dispatch import run_kind
from bouts.service.jobs import JobKind, Scorer, pipeline_scorer, retry_delay, score_config
from bouts.service.storage import Repository, open_repository

TASK_NAMES: dict[JobKind, str] = {
    "score": "bouts.score_submission",
    "check": "bouts.check_challenge",
    "rescore": "bouts.rescore_submission",
}
TASK_NAME = TASK_NAMES["score"]
STORAGE_RETRIES = 10
"""Retries of a task whose job failed outside the scoring (database unreachable, disk full)."""
log = logging.getLogger(__name__)


def transport_options(settings: ServiceSettings) -> dict[str, object]:
    """Redis transport: redeliver a dead worker's task after the visibility timeout, and look for
    such tasks often enough that the timeout, not kombu's default ~100 s sweep, sets the delay. The
    unacked bookkeeping is named after the queue, so deployments sharing a Redis DB stay apart."""
    return {
        "visibility_timeout": settings.visibility_timeout_s,
        "unacked_restore_interval": max(1, min(10, settings.visibility_timeout_s // 2)),
        "unacked_restore_throttle": 1,
        "unacked_key": f"{settings.queue}:unacked",
        "unacked_index_key": f"{settings.queue}:unacked_index",
        "unacked_mutex_key": f"{settings.queue}:unacked_mutex",
    }


def create_celery(settings: ServiceSettings, scorer: Scorer = pipeline_scorer) -> Celery:
    """A Celery app for ``settings`` with a task registered for every job kind."""
    app = Celery("bouts", broker=settings.broker_url, backend=settings.result_backend or None)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        task_acks_on_failure_or_timeout=True,
        worker_prefetch_multiplier=1,
        task_default_queue=settings.queue,
        task_ignore_result=not settings.result_backend,
        task_serializer="json",
        accept_content=["json"],
        broker_transport_options=transport_options(settings),
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
    )
    repos: dict[str, Repository] = {}

    def repository() -> Repository:
        # Opened lazily inside each worker process (never inherited across a fork).
        if "repo" not in repos:
            repos["repo"] = open_repository(settings.database_url, migrate_schema=False)
        return repos["repo"]

    def register(kind: JobKind) -> None:
        @app.task(name=TASK_NAMES[kind], bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
        def run(self: Task, job_id: str) -> str:
            try:
                outcome = run_kind(kind, repository(), job_id, scorer=scorer, config=score_config(settings),
                                   max_attempts=settings.max_retries + 1)  # fmt: skip
            except Exception as exc:  # the database or the disk, not the job: try again later
                log.exception("%s job %s failed before it could record an outcome", kind, job_id)
                delay = retry_delay(self.request.retries + 1, settings.retry_backoff_s)
                raise self.retry(exc=exc, countdown=delay, max_retries=STORAGE_RETRIES) from exc
            log.info("%s job %s: %s (attempt %s)", kind, job_id, outcome.kind, outcome.attempt)
            if outcome.kind == "retry":
                raise self.retry(countdown=retry_delay(outcome.attempt, settings.retry_backoff_s))
            return outcome.kind

    for kind in TASK_NAMES:
        register(kind)
    return app
