"""A ``bouts worker`` stopped with SIGTERM (docs/service.md, "Stopping a worker"): bounded, and
the running job is handed back at once instead of when its lease runs out.

1. The main process stops taking tasks (Celery's warm shutdown) and tells its pool processes to stop
   with ``STOP_SIGNAL`` (SIGUSR2; ``forward_sigterm``). A pool process ignores SIGTERM while it runs
   a job, as it did under ``REMAP_SIGTERM``: the sandbox and the runner signal process groups, and a
   SIGTERM sent to the worker's whole group (systemd) reaches the main process anyway.
2. A pool process running a job (``guard``) gives it ``shutdown_grace_s`` to finish. A job that
   finishes is recorded as usual. One that does not is handed back at once: ``running → queued``,
   guarded by its claim (a completion racing it writes nothing, so it is scored exactly once),
   published again first in line (it keeps its place ahead of jobs that arrived after it), and the
   pool process exits, which stops the scoring (the sandbox dies with its parent).
3. The main process exits once its pool processes are gone. The bound is ``exit_bound_s``: past
   it the main process kills what is left (a job not handed back is then handed back by its lease,
   as for a machine that died) and exits.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator

from bouts.service import jobs

log = logging.getLogger(__name__)
STOP_SIGNAL = signal.SIGUSR2
"""How the main process tells a pool process to stop (never sent by anything else here)."""
STOP_MARGIN_S = 15.0
"""What the hand-back, the publish and the process's exit may take after the grace."""
HANDED_BACK = "the worker was stopped (SIGTERM) before the job finished; handed back"

_stopping = threading.Event()
"""Set in a pool process once it was told to stop; it starts no job after that."""
_wake: list[threading.Event] = []
"""The running job's watcher's wake-up (at most one: a pool process runs one job at a time)."""


def exit_bound_s(grace_s: float) -> float:
    """How long a worker may take to exit after SIGTERM."""
    return grace_s + STOP_MARGIN_S


def stopping() -> bool:
    return _stopping.is_set()


def _on_stop(signum: int, frame: object) -> None:
    _stopping.set()
    for wake in list(_wake):
        wake.set()


@contextlib.contextmanager
def guard(grace_s: float, republish: Callable[[], None]) -> Iterator[None]:
    """Run one job in a pool process so that ``STOP_SIGNAL`` gives it ``grace_s`` to finish, then
    hands it back (``republish`` publishes it again, first in line) and ends the process."""
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = (signal.signal(STOP_SIGNAL, _on_stop), signal.signal(signal.SIGTERM, signal.SIG_IGN))
    done, wake = threading.Event(), threading.Event()
    _wake.append(wake)
    if _stopping.is_set():
        wake.set()
    watcher = threading.Thread(target=_watch, args=(done, wake, grace_s, republish), name="bouts-stop", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        wake.set()
        _wake.remove(wake)
        if previous is not None:
            signal.signal(STOP_SIGNAL, previous[0])
            signal.signal(signal.SIGTERM, previous[1])


def _watch(done: threading.Event, wake: threading.Event, grace_s: float, republish: Callable[[], None]) -> None:
    wake.wait()
    if done.is_set() or done.wait(grace_s):
        return
    handed = 0
    for store, claim in jobs.working():
        try:
            handed += bool(store.release(claim, HANDED_BACK))
        except Exception:  # the database is down: the job's lease hands it back later
            log.exception("could not hand back the running job at shutdown")
    if not handed:  # it finished meanwhile, or another claim owns it now
        return
    publisher = threading.Thread(target=_republish, args=(republish,), name="bouts-republish", daemon=True)
    publisher.start()
    publisher.join(timeout=STOP_MARGIN_S / 3)  # a broker that does not answer: a recovery pass republishes
    log.warning("stopped before the job finished (grace %g s): handed back, first in line", grace_s)
    for handler in logging.getLogger().handlers:
        handler.flush()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # stops the scoring still running on the main thread (its completion would be refused)


def _republish(republish: Callable[[], None]) -> None:
    try:
        republish()
    except Exception:  # the broker is down: a recovery pass publishes the queued job again
        log.exception("could not publish the handed-back job again")


def forward_sigterm(grace_s: float) -> None:
    """In the worker's main process: on Celery's shutdown, tell the pool processes to stop
    (``STOP_SIGNAL``) and arm the bound (``exit_bound_s``)."""
    from celery import signals

    def on_shutdown(**_: object) -> None:
        from billiard.process import active_children

        for child in active_children():
            with contextlib.suppress(OSError):
                os.kill(child.pid, STOP_SIGNAL)  # type: ignore[arg-type]
        timer = threading.Timer(exit_bound_s(grace_s), _past_bound)
        timer.daemon = True
        timer.start()

    signals.worker_shutting_down.connect(on_shutdown, weak=False)


def _past_bound() -> None:
    from billiard.process import active_children

    left = active_children()
    for child in left:
        with contextlib.suppress(OSError):
            os.kill(child.pid, signal.SIGKILL)  # type: ignore[arg-type]
    log.error("worker still running past its bound after SIGTERM: %d pool process(es) killed", len(left))
    final = threading.Timer(5.0, os._exit, args=(1,))
    final.daemon = True
    final.start()
