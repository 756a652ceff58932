"""Leases on running jobs, shared by every job table (submissions, check runs, re-scores).

A claim stamps ``heartbeat_at``; the worker running the job stamps it again every few seconds
(``beat``). A running job whose stamp is older than the lease has lost its worker (the process or
the machine died, the broker will not say so for an hour): ``expire`` moves it back to ``queued``
so it is shown as waiting and can be handed out again. Every move is a compare-and-set on
``(state, attempt)``, so a worker that was only slow writes nothing once it is superseded.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, timedelta
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from bouts.service.storage.models import CheckRunRow, RescoreRow, SubmissionRow, utcnow

JobModel = type[SubmissionRow] | type[CheckRunRow] | type[RescoreRow]


def alive(row: Any, lease_s: float) -> bool:
    """Whether ``row`` (state, heartbeat_at) is running under a live lease: its worker stamped it
    less than ``lease_s`` ago (never, without a lease)."""
    if lease_s <= 0 or row.state != "running" or row.heartbeat_at is None:
        return False
    stamped = row.heartbeat_at if row.heartbeat_at.tzinfo else row.heartbeat_at.replace(tzinfo=UTC)
    return bool(stamped > utcnow() - timedelta(seconds=lease_s))


def beat(sessions: sessionmaker[Session], model: JobModel, job_id: str, attempt: int) -> bool:
    """Stamp a running job's heartbeat; False once the claim is no longer the current one."""
    with sessions.begin() as session:
        moved = session.execute(
            update(model).where(model.id == job_id, model.state == "running", model.attempt == attempt)
            .values(heartbeat_at=utcnow())
        )  # fmt: skip
        return moved.rowcount == 1  # type: ignore[attr-defined, no-any-return]


def hand_back(sessions: sessionmaker[Session], model: JobModel, job_ids: Sequence[str], error: str) -> list[str]:
    """running → queued for jobs this process knows nothing runs any more (its pool process died,
    it is shutting down); the ids moved."""
    moved: list[str] = []
    with sessions.begin() as session:
        for job_id in job_ids:
            result = session.execute(
                update(model).where(model.id == job_id, model.state == "running")
                .values(state="queued", last_error=error, heartbeat_at=None)
            )  # fmt: skip
            if result.rowcount == 1:  # type: ignore[attr-defined]
                moved.append(job_id)
    return moved


def expire(sessions: sessionmaker[Session], model: JobModel, lease_s: float) -> list[str]:
    """running → queued for every job whose heartbeat is older than ``lease_s``; the ids moved."""
    cutoff = utcnow() - timedelta(seconds=lease_s)
    stale = or_(model.heartbeat_at < cutoff, (model.heartbeat_at.is_(None) & (model.started_at < cutoff)))
    with sessions() as session:
        candidates = list(session.execute(select(model.id, model.attempt).where(model.state == "running", stale)))
    moved: list[str] = []
    with sessions.begin() as session:
        for job_id, attempt in candidates:
            result = session.execute(
                update(model).where(model.id == job_id, model.state == "running", model.attempt == attempt, stale)
                .values(state="queued", heartbeat_at=None,
                        last_error=f"attempt {attempt} lost its worker (no heartbeat for {lease_s:g} s)")
            )  # fmt: skip
            if result.rowcount == 1:  # type: ignore[attr-defined]
                moved.append(job_id)
    return moved
