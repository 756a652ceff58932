"""``CeleryDispatcher``: the API side of distributed scoring. It publishes one task per job
(``bouts.score_submission``, ``bouts.check_challenge``, ``bouts.rescore_submission``) and knows
which jobs the broker holds, so a restart or a broker that lost its data (Redis keeps nothing on
disk here) is repaired by publishing exactly the jobs that are missing, never the whole queue again.

- A publish that fails (the broker is down) is not lost: the job is stored ``queued`` already, and
  it is published again on a timer with backoff (1 s doubling to ``MAX_RETRY_S``).
- Order: a new job is published at priority ``NEW_PRIORITY``; a job handed back (its worker died,
  its lease ran out) or found missing at ``FIRST_PRIORITY``, which Redis serves first: it keeps
  its place ahead of work that arrived after it.
- ``held()``: the job ids in the broker's queue and its unacknowledged set (Redis only; another
  transport answers None and ``resync`` falls back to publishing only what failed to publish).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

from bouts.service import metrics
from bouts.service.broker import FIRST_PRIORITY, NEW_PRIORITY, PRIORITY_STEPS, TASK_NAMES, task_id
from bouts.service.config import ServiceSettings
from bouts.service.jobs import JobKind
from bouts.service.storage import Repository

if TYPE_CHECKING:
    from celery import Celery

log = logging.getLogger(__name__)
Job = tuple[JobKind, str]
RESYNC_MIN_AGE_S = 10.0
"""A queued job younger than this may be on its way to the broker right now: not republished yet."""


def job_of(task: str) -> Job | None:
    parts = task.split(".")
    if len(parts) == 3 and parts[0] in ("score", "check", "rescore"):
        return parts[0], parts[1]  # type: ignore[return-value]
    return None


class CeleryDispatcher:
    """Publishes jobs to the broker; ``bouts worker`` consumes them."""

    name = "celery"
    MAX_RETRY_S = 60.0

    def __init__(self, settings: ServiceSettings, repo: Repository | None = None, app: Celery | None = None) -> None:
        from bouts.service.worker.celery_app import create_celery

        self.settings = settings
        self.repo = repo
        self.app = app or create_celery(settings)
        self._lock = threading.Lock()
        self._unsent: dict[Job, int] = {}
        self._timer: threading.Timer | None = None
        self._delay = 1.0
        self._closed = False

    def enqueue(self, job_id: str, kind: JobKind = "score", *, first: bool = False) -> None:
        """Publish a job (``first``: ahead of newer work); on failure keep it for the retry timer."""
        priority = FIRST_PRIORITY if first else NEW_PRIORITY
        try:
            self._publish(kind, job_id, priority)
        except Exception as exc:  # the broker's own errors vary by transport
            log.warning("could not publish %s job %s (%s); retrying", kind, job_id, exc)
            metrics.publish_failed(kind)
            with self._lock:
                self._unsent[(kind, job_id)] = priority
            self._schedule()

    @property
    def unsent(self) -> list[Job]:
        """Jobs waiting for the broker, oldest first."""
        with self._lock:
            return list(self._unsent)

    def _publish(self, kind: JobKind, job_id: str, priority: int = NEW_PRIORITY) -> None:
        self.app.send_task(TASK_NAMES[kind], args=[job_id], queue=self.settings.queue, priority=priority,
                           task_id=task_id(kind, job_id))  # fmt: skip

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
            pending = list(self._unsent.items())
        for (kind, job_id), priority in pending:
            try:
                self._publish(kind, job_id, priority)
            except Exception as exc:
                log.warning("broker still refuses %s job %s (%s)", kind, job_id, exc)
                break
            with self._lock:
                self._unsent.pop((kind, job_id), None)
        with self._lock:
            if not self._unsent:
                self._delay = 1.0
        self._schedule()

    def held(self) -> set[Job] | None:
        """The jobs the broker holds (queued or delivered and not yet acknowledged); None when the
        transport cannot be read (not Redis). Raises when the broker does not answer."""
        if not self.settings.broker_url.startswith(("redis://", "rediss://", "unix://")):
            return None
        import redis

        queue = self.settings.queue
        client = redis.Redis.from_url(self.settings.broker_url, socket_timeout=5, socket_connect_timeout=5)
        try:
            raw: list[bytes] = []
            for pri in PRIORITY_STEPS:
                raw.extend(client.lrange(f"{queue}\x06\x16{pri}" if pri else queue, 0, -1))
            unacked = client.hvals(f"{queue}:unacked")
        finally:
            client.close()
        return set(_jobs(_headers(raw), _headers(json.loads(v)[0] for v in unacked)))

    def recover(self, repo: Repository | None = None) -> int:
        """After a start: publish the queued jobs the broker does not hold (none twice); how many."""
        return self.resync(repo, min_age_s=0.0)

    def resync(self, repo: Repository | None = None, *, min_age_s: float = RESYNC_MIN_AGE_S) -> int:
        """Publish every queued job older than ``min_age_s`` the broker lost (it restarted empty,
        or a publish failed in a process that then died), rebuilding the queue in the order it had:
        jobs that ran before (handed back, retried) first, at ``FIRST_PRIORITY``, then the jobs
        that never ran, at ``NEW_PRIORITY``, each oldest first; how many. Without a way to read the
        broker, only the jobs this process failed to publish wait for the retry timer."""
        from bouts.service.dispatch import pending_jobs

        repo = repo or self.repo
        assert repo is not None
        held = self.held()
        if held is None:
            return 0
        with self._lock:
            held |= set(self._unsent)
        missing = [job for job in pending_jobs(repo, states=("queued",)) if job not in held]
        ordered = rebuild_order(repo, missing, min_age_s)
        for first, (kind, job_id) in ordered:
            self.enqueue(job_id, kind, first=first)
        return len(ordered)

    def ready(self) -> None:
        """Raise unless the broker answers."""
        with self.app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
        self.app.close()


def _headers(messages: Iterable[object]) -> Iterable[dict[str, object]]:
    for message in messages:
        try:
            body = json.loads(message) if isinstance(message, bytes | str) else message
            yield body["headers"]  # type: ignore[index]
        except (ValueError, KeyError, TypeError):
            continue


def _jobs(*header_sets: Iterable[dict[str, object]]) -> Iterable[Job]:
    for headers in header_sets:
        for h in headers:
            job = job_of(str(h.get("id", "")))
            if job is not None:
                yield job


def rebuild_order(repo: Repository, jobs: Iterable[Job], min_age_s: float = 0.0) -> list[tuple[bool, Job]]:
    """``jobs`` in the order a lost queue is published again, each with whether it goes first:
    those that ran before (``attempt`` > 0: handed back, or waiting out a retry) ahead of those that
    never ran, each group oldest first, across kinds; jobs younger than ``min_age_s`` left out."""
    from bouts.service.dispatch import job_store
    from bouts.service.storage.models import utcnow

    now = utcnow()
    found: list[tuple[bool, object, Job]] = []
    for job in jobs:
        info = job_store(repo, job[0]).get(job[1])
        if info is None or info.state != "queued":
            continue
        created = info.created_at if info.created_at.tzinfo else info.created_at.replace(tzinfo=now.tzinfo)
        if (now - created).total_seconds() < min_age_s:
            continue
        found.append((info.attempt > 0, created, job))
    found.sort(key=lambda f: (not f[0], f[1]))
    return [(ran, job) for ran, _, job in found]
