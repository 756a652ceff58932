"""Recovery in seconds: a pass in every ``bouts serve`` (a thread) and every ``bouts worker`` (a
process) that, every ``lease_s / 4`` (the heartbeat's period), hands back the running jobs whose
worker stopped stamping its heartbeat for ``lease_s`` (its process or its machine died:
``bouts.service.storage.leases``) and gives them to the dispatcher first in line, then asks the
dispatcher to take any queued job it lost (``resync``: a retry timer that died with a process, a
broker that restarted empty). Every step is guarded by the database, so any number of these
passes may run at once: only one hands a job back, duplicates are skipped by the claim.

A database outage stops every heartbeat, dead worker or not. A pass that could not reach the
database therefore hands nothing back until it has seen the database answer for a whole lease:
the workers that lived through the outage stamp their heartbeats again (and save what they
finished meanwhile, ``bouts.service.jobs.save_patiently``) instead of being taken for dead.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from bouts.service import metrics
from bouts.service.dispatch import job_store
from bouts.service.jobs import JobKind
from bouts.service.storage import Repository

log = logging.getLogger(__name__)
KINDS: tuple[JobKind, ...] = ("score", "check", "rescore")


def reap(repo: Repository, dispatcher: Any, lease_s: float, *, expire: bool = True) -> int:
    """One pass: hand back every job whose heartbeat is older than ``lease_s`` and enqueue it first
    (unless ``expire`` is False); then resync. How many jobs were handed back or re-enqueued."""
    count = 0
    for kind in KINDS if expire else ():
        for job_id in job_store(repo, kind).expire(lease_s):
            log.warning("%s job %s lost its worker (no heartbeat for %g s); handed back", kind, job_id, lease_s)
            metrics.handed_back(kind, "heartbeat")
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


class RecoveryPass:
    """``reap`` with the memory of database outages (see the module docstring)."""

    def __init__(self, repo: Repository, dispatcher: Any, lease_s: float, clock: Any = time.monotonic) -> None:
        self.repo = repo
        self.dispatcher = dispatcher
        self.lease_s = lease_s
        self.clock = clock
        self.answering_since = float("-inf")
        """When the database last started answering this pass (never failed: always)."""
        self.period_s = max(0.5, lease_s / 4)

    def run(self) -> int:
        from bouts.service.storage.db import DATABASE_DOWN

        now = self.clock()
        try:
            self.repo.submissions.pending(states=("running",))  # does the database answer?
        except DATABASE_DOWN as exc:
            if self.answering_since != float("inf"):
                log.warning("database unreachable (%s): no job is handed back until it answers for %g s",
                            type(exc).__name__, self.lease_s)  # fmt: skip
            self.answering_since = float("inf")
            raise
        if self.answering_since == float("inf"):
            self.answering_since = now
        return reap(self.repo, self.dispatcher, self.lease_s, expire=now - self.answering_since >= self.lease_s)


class Reaper:
    """Runs a ``RecoveryPass`` every ``lease_s / 4`` seconds on a daemon thread until ``stop``, and
    ``sweep`` (the API's sweep of what interrupted uploads left behind) every ``sweep_every_s``."""

    def __init__(self, repo: Repository, dispatcher: Any, lease_s: float, *,
                 sweep: Callable[[], object] | None = None, sweep_every_s: float = 300.0) -> None:  # fmt: skip
        self.recovery = RecoveryPass(repo, dispatcher, lease_s)
        self.sweep = sweep
        self.sweep_every_s = sweep_every_s
        self._swept = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bouts-reaper", daemon=True)

    def start(self) -> Reaper:
        self._thread.start()
        return self

    def _run(self) -> None:
        every = min(self.recovery.period_s, self.sweep_every_s) if self.sweep is not None else self.recovery.period_s
        passed = time.monotonic()
        while not self._stop.wait(every):
            if time.monotonic() - passed >= self.recovery.period_s - 1e-3:
                passed = time.monotonic()
                try:
                    self.recovery.run()
                except Exception as exc:  # the database or the broker is down: the next pass retries
                    log.warning("recovery pass failed: %s: %s", type(exc).__name__, exc)
            if self.sweep is not None and time.monotonic() - self._swept >= self.sweep_every_s:
                self._swept = time.monotonic()
                try:
                    self.sweep()
                except Exception as exc:
                    log.warning("sweeping interrupted uploads failed: %s: %s", type(exc).__name__, exc)

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)
