"""The Celery app: one task per job kind (``bouts.score_submission``, ``bouts.check_challenge``,
``bouts.rescore_submission``), each a thin driver around ``bouts.service.dispatch.run_kind``.

Reliability settings (why: ``docs/service.md``): tasks are acknowledged late; each worker
prefetches one task at a time; a running job's heartbeat (every ``lease_s / 4``) is its lease, so a
job whose pool process or whole worker died is handed back and published first in line by the
recovery pass of any ``bouts serve`` or ``bouts worker`` within about 1.5 leases
(``bouts.service.recovery``), not after the broker's ``visibility_timeout_s``, which stays as a
backstop. A lost task's own message is acknowledged, not requeued at the back of the queue.
Duplicate deliveries are harmless: the database guards every state transition, and a job whose
worker is alive (fresh heartbeat) is not claimed twice. SIGTERM: stop taking tasks, let the
running one finish for ``shutdown_grace_s``, else hand it back at once, first in line, and exit
(``bouts.service.worker.shutdown``).
"""

from __future__ import annotations

import logging

from celery import Celery, Task

from bouts.pipeline import ScoreConfig
from bouts.service import metrics
from bouts.service.broker import FIRST_PRIORITY, NEW_PRIORITY, PRIORITY_STEPS, TASK_NAMES, task_id
from bouts.service.config import ServiceSettings
from bouts.service.dispatch import run_kind
from bouts.service.jobs import JobKind, Scorer, pipeline_scorer, retry_delay, score_config
from bouts.service.storage import Repository, open_repository
from bouts.service.worker import shutdown

TASK_NAME = TASK_NAMES["score"]
STORAGE_RETRIES = 10
"""Retries of a task whose job failed outside the scoring (database unreachable, disk full); after
them the job is still stored queued, and a recovery pass publishes it again."""
STORAGE_RETRY_CAP_S = 30.0
log = logging.getLogger(__name__)


def transport_options(settings: ServiceSettings) -> dict[str, object]:
    """Redis transport: redeliver a dead worker's task after the visibility timeout, and look for
    such tasks often enough that the timeout, not kombu's default ~100 s sweep, sets the delay. The
    unacked bookkeeping is named after the queue, so deployments sharing a Redis DB stay apart."""
    return {
        "priority_steps": PRIORITY_STEPS,
        "queue_order_strategy": "priority",
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
        task_reject_on_worker_lost=False,
        task_acks_on_failure_or_timeout=True,
        worker_prefetch_multiplier=1,
        worker_soft_shutdown_timeout=settings.shutdown_grace_s,
        worker_enable_soft_shutdown_on_idle=True,
        task_default_priority=NEW_PRIORITY,
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

    configs: dict[str, ScoreConfig] = {}

    def config() -> ScoreConfig:
        # Once per pool process: it seats the LLM panel (BOUTS_LLM_PANEL) in this process's registry.
        if "config" not in configs:
            configs["config"] = score_config(settings)
        return configs["config"]

    def register(kind: JobKind) -> None:
        @app.task(name=TASK_NAMES[kind], bind=True, acks_late=True, reject_on_worker_lost=False, max_retries=None)
        def run(self: Task, job_id: str) -> str:
            def republish() -> None:  # first in line: a handed-back job keeps its place
                self.app.send_task(TASK_NAMES[kind], args=[job_id], queue=settings.queue, priority=FIRST_PRIORITY,
                                   task_id=task_id(kind, job_id))  # fmt: skip

            if shutdown.stopping():  # this pool process is stopping: the job goes back, untouched
                republish()
                return "handed_back"
            try:
                with shutdown.guard(settings.shutdown_grace_s, republish):
                    outcome = run_kind(kind, repository(), job_id, scorer=scorer, config=config(),
                                       max_attempts=settings.max_retries + 1, lease_s=settings.lease_s)  # fmt: skip
            except Exception as exc:  # the database or the disk, not the job: try again later
                log.exception("%s job %s failed before it could record an outcome", kind, job_id)
                metrics.job_error(kind)
                # capped at 30 s: once the database is back, work resumes within seconds
                delay = retry_delay(self.request.retries + 1, settings.retry_backoff_s, cap_s=STORAGE_RETRY_CAP_S)
                raise self.retry(exc=exc, countdown=delay, max_retries=STORAGE_RETRIES) from exc
            log.info("%s job %s: %s (attempt %s)", kind, job_id, outcome.kind, outcome.attempt)
            metrics.job_finished(kind, outcome.kind, outcome.seconds, outcome.usage)
            if outcome.kind == "retry":
                raise self.retry(
                    countdown=retry_delay(outcome.attempt, settings.retry_backoff_s), priority=FIRST_PRIORITY
                )  # a retried job keeps its place
            return outcome.kind

    for kind in TASK_NAMES:
        register(kind)
    return app
