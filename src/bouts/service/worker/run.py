"""Running a Celery worker process: what ``bouts worker`` does, with the scorer passed in (the
fault-injection tests run it with the instant fake). The process also runs a recovery pass
(``bouts.service.recovery``), so jobs whose worker died are handed back even with no API up."""

from __future__ import annotations

import multiprocessing
import os
import sys

from bouts.service.config import ServiceSettings
from bouts.service.jobs import Scorer, pipeline_scorer


def run_worker(settings: ServiceSettings, *, concurrency: int = 1, loglevel: str = "INFO",
               scorer: Scorer = pipeline_scorer) -> None:  # fmt: skip
    """Consume ``settings.queue`` until stopped. SIGTERM is a bounded shutdown
    (``bouts.service.worker.shutdown``): no new task; the running one finishes within
    ``shutdown_grace_s`` or is handed back at once, first in line; the process exits within
    ``exit_bound_s``. SIGTERM is Celery's warm shutdown (not remapped to SIGQUIT, the cold one,
    which sleeps out the whole grace in a signal handler before anything is told to stop)."""
    os.environ.pop("REMAP_SIGTERM", None)  # read by billiard when it is first imported
    common = sys.modules.get("billiard.common")
    if common is not None and getattr(common, "REMAP_SIGTERM", None):
        raise RuntimeError("REMAP_SIGTERM was set when celery was imported: bouts worker handles SIGTERM itself")
    _metrics_dir()  # before anything imports prometheus_client: the pool processes share it
    from bouts.service import logs
    from bouts.service.jobs import score_config
    from bouts.service.worker import shutdown
    from bouts.service.worker.celery_app import create_celery

    logs.configure(settings.log_format)
    score_config(settings)  # a wrong scoring setting stops the start, naming it
    app = create_celery(settings, scorer=scorer)
    if settings.metrics_port:
        from bouts.service.metrics import serve_worker_metrics

        serve_worker_metrics(settings.metrics_port)
    shutdown.forward_sigterm(settings.shutdown_grace_s)
    # The recovery pass runs in a spawned process, not a thread: prefork forks pool processes (again
    # whenever one dies), and a fork taken while a thread holds a lock can leave the child stuck.
    spawn = multiprocessing.get_context("spawn")
    spawn.Process(target=_recovery_loop, args=(settings, os.getpid()), name="bouts-recovery", daemon=True).start()
    app.worker_main(["worker", "-Q", settings.queue, "-c", str(concurrency), "--loglevel", loglevel, "-P", "prefork",
                     "--without-gossip", "--without-mingle", "-n", f"bouts-{os.getpid()}@%h"])  # fmt: skip


def _recovery_loop(settings: ServiceSettings, parent: int) -> None:
    """The worker's recovery pass (``bouts.service.recovery``) every ``lease_s / 4``, while the worker lives."""
    import logging
    import time

    from bouts.service import logs
    from bouts.service.publish import CeleryDispatcher
    from bouts.service.recovery import RecoveryPass
    from bouts.service.storage import open_repository

    logs.configure(settings.log_format)
    repo = open_repository(settings.database_url, migrate_schema=False)
    recovery = RecoveryPass(repo, CeleryDispatcher(settings, repo), settings.lease_s)
    while os.getppid() == parent:
        time.sleep(recovery.period_s)
        try:
            recovery.run()
        except Exception as exc:  # the database or the broker is down: the next pass retries
            logging.getLogger(__name__).warning("recovery pass failed: %s: %s", type(exc).__name__, exc)


def _metrics_dir() -> None:
    """A fresh multiprocess directory for this worker's metrics (``bouts.service.metrics``): its pool
    processes, the ones that run jobs, write their counts there; the main process serves them."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR") or "prometheus_client" in sys.modules:
        return  # set by the operator (kept), or too late to switch this process over
    import tempfile

    # local disk, not the shared data dir: the files are memory-mapped
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix=f"bouts-metrics-{os.getpid()}-")
