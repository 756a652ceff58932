"""The Celery app: one task, ``bouts.score_submission``, a thin driver around ``run_job``.

Reliability settings (why: ``docs/service.md``): tasks are acknowledged late and rejected (so
requeued) when their worker process is lost; each worker prefetches one task at a time; an
unacknowledged task whose whole worker machine died comes back after ``visibility_timeout_s``.
Duplicate deliveries are harmless: the database guards every state transition.
"""

from __future__ import annotations

import logging

from celery import Celery, Task

from bouts.service.config import ServiceSettings
from bouts.service.jobs import Scorer, pipeline_scorer, retry_delay, run_job, score_config
from bouts.service.storage import Repository, open_repository

TASK_NAME = "bouts.score_submission"
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
    """A Celery app for ``settings`` with the scoring task registered."""
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

    @app.task(name=TASK_NAME, bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
    def score_submission(self: Task, submission_id: str) -> str:
        try:
            outcome = run_job(repository(), submission_id, scorer=scorer, config=score_config(settings),
                              max_attempts=settings.max_retries + 1)  # fmt: skip
        except Exception as exc:  # the database or the disk, not the scoring: try again later
            log.exception("submission %s: job failed before it could record an outcome", submission_id)
            delay = retry_delay(self.request.retries + 1, settings.retry_backoff_s)
            raise self.retry(exc=exc, countdown=delay, max_retries=STORAGE_RETRIES) from exc
        log.info("submission %s: %s (attempt %s)", submission_id, outcome.kind, outcome.attempt)
        if outcome.kind == "retry":
            raise self.retry(countdown=retry_delay(outcome.attempt, settings.retry_backoff_s))
        return outcome.kind

    return app
