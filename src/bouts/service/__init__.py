"""The Bouts service: storage, HTTP API and distributed scoring around ``bouts.pipeline.score``.

Layout (design notes: ``docs/service.md``)::

    config.py     typed settings (the CLI driver reads the environment and builds them)
    storage/      SQLAlchemy 2 models, the repository, API-key hashing
    migrations/   Alembic migrations, applied on start
    intake.py     accepting an uploaded archive (validation, storing, enqueueing)
    jobs.py       the idempotent job state machine shared by every dispatcher; scoring a submission
    calibration.py  ``bouts stats`` over stored scorecards; ``bouts check`` as a job
    rescoring.py  re-scoring a stored submission as a job, with its trail
    dispatch.py   where jobs run: a local process pool, or Celery
    broker.py     the broker's names (task names, priorities, task ids), shared by publish.py and worker/
    api/          the FastAPI app (JSON API + server-rendered page skeleton)
    worker/       the Celery app and its task
"""

# The front door is the service's modules and packages, each imported by name (docs/service.md).
__all__ = [
    "agent_runs",
    "api",
    "broker",
    "calibration",
    "challenges",
    "client",
    "config",
    "dispatch",
    "errors",
    "fakes",
    "health",
    "intake",
    "jobs",
    "launch",
    "limits",
    "migrations",
    "publish",
    "recovery",
    "rescoring",
    "standings",
    "storage",
    "views",
    "worker",
]
