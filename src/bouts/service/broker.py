"""The broker's vocabulary, shared by the side that publishes jobs (``publish``) and the workers' Celery
app (``worker.celery_app``): each job kind's task name, the priorities, and task ids that name their job."""

from __future__ import annotations

import uuid

from bouts.service.jobs import JobKind

TASK_NAMES: dict[JobKind, str] = {
    "score": "bouts.score_submission",
    "check": "bouts.check_challenge",
    "rescore": "bouts.rescore_submission",
}
PRIORITY_STEPS = [0, 3, 6, 9]
"""kombu's Redis priority lists: 0 is served first."""
FIRST_PRIORITY, NEW_PRIORITY = 0, 6


def task_id(kind: JobKind, job_id: str) -> str:
    """A task id naming its job, so the broker's contents can be read back as jobs."""
    return f"{kind}.{job_id}.{uuid.uuid4().hex[:8]}"
