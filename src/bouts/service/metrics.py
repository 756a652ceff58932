"""What to watch the service by: Prometheus metrics (``prometheus_client``), served by the API at
``GET /metrics`` and by each ``bouts worker`` on ``BOUTS_METRICS_PORT`` (docs/service.md, "Metrics").

Two sources, so every number is counted once and where it is true:

- **The database** (``DatabaseCollector``, read at each scrape of the API): how many jobs of each
  kind are in each state (``bouts_jobs``) and the queue's depth and age (``bouts_queue_depth``,
  ``bouts_queue_oldest_seconds``). Every API process answers the same numbers: aggregate with
  ``max``, not ``sum``.
- **The process that did it** (counters and histograms here): jobs finished by outcome and how long
  they took, failures by kind, jobs handed back and why, LLM tokens and cost, HTTP requests. Each
  event is counted by exactly one process (the one whose compare-and-set won): aggregate with
  ``sum``. The local pool's outcomes are counted by the server that dispatched them; a Celery
  worker's pool processes write to the worker's multiprocess directory
  (``PROMETHEUS_MULTIPROC_DIR``, set by ``bouts worker`` before anything imports the client), which
  its main process serves.

``prometheus_client`` is imported on first use, never at import of this module.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bouts.models.scorecard import Scorecard
    from bouts.service.storage import Repository

DURATION_BUCKETS = (0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200, 3600, float("inf"))
"""Seconds: an instant fake scores in milliseconds, a real scoring in tens of seconds, an agent run in minutes."""
HTTP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, float("inf"))
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


@dataclass(frozen=True)
class Usage:
    """LLM tokens and cost one job spent: its LLM judges' and, for a recorded run, its agent's."""

    judges_in: int = 0
    judges_out: int = 0
    judges_cost_usd: float = 0.0
    agent_in: int = 0
    agent_out: int = 0
    agent_cost_usd: float = 0.0

    @classmethod
    def of(cls, card: Scorecard | None, run_summary: dict[str, Any] | None = None) -> Usage:
        judges = card.llm_usage if card is not None else None
        agent = (run_summary or {}).get("usage") or {}
        return cls(
            judges_in=judges.tokens_in if judges else 0, judges_out=judges.tokens_out if judges else 0,
            judges_cost_usd=judges.cost_usd if judges else 0.0,
            agent_in=int(agent.get("tokens_in") or 0), agent_out=int(agent.get("tokens_out") or 0),
            agent_cost_usd=float(agent.get("cost_usd") or 0.0),
        )  # fmt: skip


@dataclass
class _Metrics:
    outcomes: Any = None
    durations: Any = None
    failures: Any = None
    handed_back: Any = None
    tokens: Any = None
    cost: Any = None
    requests: Any = None
    latency: Any = None
    publish_failures: Any = None
    extra: dict[str, Any] = field(default_factory=dict)


_lock = threading.Lock()
_metrics: _Metrics | None = None


def _m() -> _Metrics:
    global _metrics
    with _lock:
        if _metrics is None:
            from prometheus_client import Counter, Histogram

            _metrics = _Metrics(
                outcomes=Counter("bouts_job_outcomes", "Jobs that ran to an outcome, by kind and outcome",
                                 ["kind", "outcome"]),
                durations=Histogram("bouts_job_duration_seconds", "How long a job's work took (claim to outcome)",
                                    ["kind", "outcome"], buckets=DURATION_BUCKETS),
                failures=Counter("bouts_job_failures", "Job failures by kind: infra (retried), failed_infra "
                                 "(gave up), rejected (the submission), storage (the outcome could not be saved)",
                                 ["kind", "failure"]),
                handed_back=Counter("bouts_jobs_handed_back", "Running jobs handed back to the queue, by why: "
                                    "heartbeat (its worker died), pool_died, shutdown", ["kind", "reason"]),
                tokens=Counter("bouts_llm_tokens", "LLM tokens spent, by who (judges, agent) and direction",
                               ["source", "direction"]),
                cost=Counter("bouts_llm_cost_usd", "LLM cost in USD at the configured prices", ["source"]),
                requests=Counter("bouts_http_requests", "HTTP requests answered", ["method", "route", "status"]),
                latency=Histogram("bouts_http_request_duration_seconds", "HTTP request latency", ["route"],
                                  buckets=HTTP_BUCKETS),
                publish_failures=Counter("bouts_publish_failures", "Jobs the broker refused (retried on a timer)",
                                         ["kind"]),
            )  # fmt: skip
        return _metrics


FAILURES = {"retry": "infra", "failed_infra": "failed_infra", "rejected": "rejected"}


def job_finished(kind: str, outcome: str, seconds: float, usage: Usage | None = None) -> None:
    """Count one job's outcome (``bouts.service.jobs.JobOutcome.kind``), its duration and its spend."""
    m = _m()
    m.outcomes.labels(kind=kind, outcome=outcome).inc()
    if outcome not in ("skipped", "stale"):
        m.durations.labels(kind=kind, outcome=outcome).observe(max(0.0, seconds))
    if outcome in FAILURES:
        m.failures.labels(kind=kind, failure=FAILURES[outcome]).inc()
    if usage is not None:
        for source, tin, tout, cost in (("judges", usage.judges_in, usage.judges_out, usage.judges_cost_usd),
                                        ("agent", usage.agent_in, usage.agent_out, usage.agent_cost_usd)):  # fmt: skip
            if tin:
                m.tokens.labels(source=source, direction="in").inc(tin)
            if tout:
                m.tokens.labels(source=source, direction="out").inc(tout)
            if cost:
                m.cost.labels(source=source).inc(cost)


def job_error(kind: str) -> None:
    """A job whose outcome could not be recorded (the database or the disk failed): it is retried."""
    _m().failures.labels(kind=kind, failure="storage").inc()


def handed_back(kind: str, reason: str, n: int = 1) -> None:
    if n:
        _m().handed_back.labels(kind=kind, reason=reason).inc(n)


def publish_failed(kind: str) -> None:
    _m().publish_failures.labels(kind=kind).inc()


def http_request(method: str, route: str, status: int, seconds: float) -> None:
    m = _m()
    m.requests.labels(method=method, route=route, status=str(status)).inc()
    m.latency.labels(route=route).observe(seconds)


class DatabaseCollector:
    """``bouts_jobs{kind,state}``, ``bouts_queue_depth{kind}`` and ``bouts_queue_oldest_seconds{kind}``,
    read from the database at each scrape (a few grouped counts)."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo

    def collect(self) -> Iterable[Any]:
        from prometheus_client.core import GaugeMetricFamily

        from bouts.service.storage.models import CheckRunRow, RescoreRow, SubmissionRow, utcnow

        jobs = GaugeMetricFamily("bouts_jobs", "Jobs stored, by kind and state", labels=["kind", "state"])
        depth = GaugeMetricFamily("bouts_queue_depth", "Jobs waiting to run (state queued)", labels=["kind"])
        oldest = GaugeMetricFamily("bouts_queue_oldest_seconds", "Age of the oldest queued job (0: none)",
                                   labels=["kind"])  # fmt: skip
        from sqlalchemy import func, select
        from sqlalchemy.orm import Session

        now = utcnow()
        with Session(self.repo.engine) as session:
            for kind, model in (("score", SubmissionRow), ("check", CheckRunRow), ("rescore", RescoreRow)):
                counts = dict(session.execute(select(model.state, func.count()).group_by(model.state)).all())
                for state in _STATES[kind]:
                    jobs.add_metric([kind, state], counts.get(state, 0))
                depth.add_metric([kind], counts.get("queued", 0))
                first = session.scalar(select(func.min(model.created_at)).where(model.state == "queued"))
                if first is not None and first.tzinfo is None:
                    first = first.replace(tzinfo=UTC)
                oldest.add_metric([kind], (now - first).total_seconds() if first is not None else 0.0)
        yield from (jobs, depth, oldest)


_STATES = {
    "score": ("queued", "running", "scored", "failed_infra", "rejected"),
    "check": ("queued", "running", "done", "failed_infra", "rejected"),
    "rescore": ("queued", "running", "done", "failed_infra", "rejected"),
}


def render(repo: Repository | None = None) -> bytes:
    """This process's metrics in Prometheus' text format, with the database's when ``repo`` is given
    (and the multiprocess directory's, when ``PROMETHEUS_MULTIPROC_DIR`` is set)."""
    import os

    from prometheus_client import REGISTRY, CollectorRegistry, generate_latest

    _m()
    registry: Any = REGISTRY
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    out = generate_latest(registry)
    if repo is not None:
        db = CollectorRegistry()
        db.register(DatabaseCollector(repo))  # type: ignore[arg-type]
        out += generate_latest(db)
    return out


def serve_worker_metrics(port: int) -> None:
    """A worker's ``/metrics`` on ``port`` (its pool processes' counts, through the multiprocess
    directory ``bouts worker`` set up)."""
    from prometheus_client import CollectorRegistry, multiprocess, start_http_server

    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    start_http_server(port, registry=registry)
