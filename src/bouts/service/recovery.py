"""Recovery in seconds: a thread in every ``bouts serve`` (and ``bouts worker``) that, every half
lease, hands back the running jobs whose worker stopped stamping its heartbeat (its process or its
machine died: ``bouts.service.storage.leases``) and gives them to the dispatcher first in line,
then asks the dispatcher to take any queued job it lost (``resync``: a retry timer that died with
a process, a broker that restarted empty). Every step is guarded by the database, so any number
of these threads may run at once: only one hands a job back, duplicates are skipped by the claim.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from bouts.service.dispatch import job_store
from bouts.service.jobs import JobKind
from bouts.service.storage import Repository

log = logging.getLogger(__name__)
KINDS: tuple[JobKind, ...] = ("score", "check", "rescore")


def reap(repo: Repository, dispatcher: Any, lease_s: float) -> int:
    """One pass: hand back every job whose lease ran out and enqueue it first; then resync. How
    many jobs were handed back or re-enqueued."""
    count = 0
    for kind in KINDS:
        for job_id in job_store(repo, kind).expire(lease_s):
            log.warning("%s job %s lost its worker (no heartbeat for %g s); handed back", kind, job_id, lease_s)
            _enqueue_first(dispatcher, job_id, kind)
            count += 1
    resync = getattr(dispatcher, "resync", None)
    if resync is not None:
        count += resync()
    return count


def _enqueue_first(dispatcher: Any, job_id: str, kind: JobKind) -> None:
    try:
        dispatcher.enqueue(job_id, kind, first=True)
    except TypeError:  # a dispatcher without priorities
        dispatcher.enqueue(job_id, kind)


class Reaper:
    """Runs ``reap`` every ``lease_s / 2`` seconds on a daemon thread until ``stop``."""

    def __init__(self, repo: Repository, dispatcher: Any, lease_s: float) -> None:
        self.repo = repo
        self.dispatcher = dispatcher
        self.lease_s = lease_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bouts-reaper", daemon=True)

    def start(self) -> Reaper:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(max(0.5, self.lease_s / 2)):
            try:
                reap(self.repo, self.dispatcher, self.lease_s)
            except Exception as exc:  # the database or the broker is down: the next pass retries
                log.warning("recovery pass failed: %s: %s", type(exc).__name__, exc)

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)
