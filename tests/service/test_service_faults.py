"""Fault injection (issue 18, item 7): kill a pool process, kill a worker, restart the API, drop
the broker, drop the database. Whatever happens, every accepted submission ends ``scored`` exactly
once (one scorecard), within a generous bound. Small numbers (a handful of submissions, the
instant fake scorer, a 2 s lease) so it runs in CI; nothing is timed: every wait is on a condition.

The Celery scenarios run real ``bouts worker`` processes (``fault_worker.py``) on the local
PostgreSQL and Redis, each reached through a TCP proxy (``service_faults.TcpProxy``) that can drop
the server for these processes only, as a network partition or a crashed server would.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from service_faults import TcpProxy, kill, stalling, start_worker, wait_for
from service_helpers import (
    CHALLENGE,
    OPERATOR_KEY,
    PG_HOST,
    PG_PORT,
    REDIS_HOST,
    REDIS_PORT,
    force_open,
    tiny_submission,
)
from sqlalchemy import func, select
from sqlalchemy.engine import make_url

from bouts.service.api import create_app
from bouts.service.config import ServiceSettings
from bouts.service.fakes import instant_scorer
from bouts.service.storage import Repository, open_repository
from bouts.service.storage.models import ScorecardRow

OP = {"X-API-Key": OPERATOR_KEY}
N = 4
"""Submissions per scenario besides the one a fault hits."""


def _upload(client: TestClient, n: int, **extra: str) -> str:
    """Submission ``n``: its own agent's first iteration (challenges cap iterations per agent)."""
    upload = {"archive": ("s.tar.gz", tiny_submission(f"agent-{n}", 1, **extra), "application/gzip")}
    r = client.post("/api/v1/challenges/inventory-ledger/submissions", headers=OP, files=upload)
    assert r.status_code == 202, r.text
    return str(r.json()["id"])


def _scored_once(repo: Repository, ids: list[str]) -> None:
    """The suite's invariant: every submission scored, each with exactly one scorecard."""
    wait_for(lambda: all(repo.submissions.get(i).state == "scored" for i in ids), "every submission to be scored")
    with repo.engine.connect() as conn:
        query = select(ScorecardRow.submission_id, func.count()).group_by(ScorecardRow.submission_id)
        counts = {sid: n for sid, n in conn.execute(query)}
    assert {i: counts.get(i, 0) for i in ids} == dict.fromkeys(ids, 1)


# -- the embedded local pool --------------------------------------------------------------------
@pytest.mark.slow_io  # kills a pool process, then restarts the API and its pool: seconds
def test_local_pool_process_killed_and_api_restarted(tmp_path: Path) -> None:
    """A pool process SIGKILLed mid-score, then the server restarted while another job never
    finishes its first run: both are handed back and every submission is scored once."""
    settings = ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY, local_workers=1,
                               retry_backoff_s=0.05, shutdown_grace_s=0.5, lease_s=2.0)  # fmt: skip
    repo = open_repository(settings.database_url)
    with TestClient(create_app(settings, repo=repo, scorer=instant_scorer)) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=OP)
        force_open(client)
        ids = [_upload(client, 1, **{"code/KILL_WORKER": ""}), _upload(client, 2, **{"code/STALL_ONCE": ""})]
        ids += [_upload(client, i) for i in range(3, 3 + N)]
        wait_for(lambda: stalling(repo, ids[1]), "the stalling job to start")
    # the server stopped with that job running: it was handed back, not left "running"
    assert repo.submissions.get(ids[1]).state == "queued"
    with TestClient(create_app(settings, repo=repo, scorer=instant_scorer)):
        _scored_once(repo, ids)
    assert repo.submissions.get(ids[0]).attempt == 2


# -- Celery on PostgreSQL and Redis, through proxies --------------------------------------------
@pytest.fixture
def cluster(tmp_path: Path, pg_url: str, redis_url: str) -> Iterator[tuple[ServiceSettings, TcpProxy, TcpProxy]]:
    db_proxy, broker_proxy = TcpProxy((PG_HOST, PG_PORT)), TcpProxy((REDIS_HOST, REDIS_PORT))
    db = make_url(pg_url).set(host="127.0.0.1", port=db_proxy.port).render_as_string(hide_password=False)
    settings = ServiceSettings(
        data_dir=tmp_path / "data", db_url=db, broker_url=f"redis://127.0.0.1:{broker_proxy.port}/11",
        queue=f"bouts-faults-{uuid.uuid4().hex[:8]}", lease_s=2.0, retry_backoff_s=0.2, max_retries=3,
        shutdown_grace_s=1.0, operator_key=OPERATOR_KEY, rate_per_minute=60_000, rate_burst=1000,
    )  # fmt: skip
    yield settings, db_proxy, broker_proxy
    db_proxy.close()
    broker_proxy.close()




@pytest.mark.postgres
@pytest.mark.redis
def test_worker_killed_and_api_restarted(cluster: tuple[ServiceSettings, TcpProxy, TcpProxy], tmp_path: Path) -> None:
    settings, _, _ = cluster
    log = tmp_path / "workers.log"
    with TestClient(create_app(settings)) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=OP)
        force_open(client)
        repo = client.app.state.ctx.repo  # type: ignore[attr-defined]
        stalled = _upload(client, 1, **{"code/STALL_ONCE": ""})
        worker = start_worker(settings, log)
        try:
            wait_for(lambda: stalling(repo, stalled), "the worker to take the job and stall")
            ids = [stalled] + [_upload(client, i) for i in range(2, 2 + N)]
            kill(worker)  # the whole worker, as a machine lost mid-score
        finally:
            kill(worker)
    with TestClient(create_app(settings)) as client:  # the API restarted meanwhile
        repo = client.app.state.ctx.repo  # type: ignore[attr-defined]
        worker = start_worker(settings, log)
        try:
            _scored_once(repo, ids)
        finally:
            kill(worker)
    assert repo.submissions.get(stalled).attempt == 2


@pytest.mark.postgres
@pytest.mark.redis
def test_broker_dropped_and_restarted_empty(
    cluster: tuple[ServiceSettings, TcpProxy, TcpProxy], tmp_path: Path
) -> None:
    """The broker goes away while submissions arrive (they are stored queued, 202 all the same),
    then comes back having lost everything it held: every submission is still scored once."""
    import redis

    settings, _, broker_proxy = cluster
    with TestClient(create_app(settings)) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=OP)
        force_open(client)
        repo = client.app.state.ctx.repo  # type: ignore[attr-defined]
        worker = start_worker(settings, tmp_path / "workers.log")
        try:
            ids = [_upload(client, 1)]
            _scored_once(repo, ids)
            broker_proxy.drop()
            assert client.get("/api/v1/health/ready").status_code == 503
            ids += [_upload(client, i) for i in range(2, 2 + N)]
            direct = redis.Redis(host=REDIS_HOST, port=REDIS_PORT, db=11)
            keys = direct.keys(f"{settings.queue}*")
            if keys:
                direct.delete(*keys)  # and it restarted with nothing
            broker_proxy.restore()
            _scored_once(repo, ids)
            assert client.get("/api/v1/health/ready").status_code == 200
        finally:
            kill(worker)


@pytest.mark.postgres
@pytest.mark.redis
def test_database_dropped_mid_run(cluster: tuple[ServiceSettings, TcpProxy, TcpProxy], tmp_path: Path) -> None:
    """The database goes away while a worker scores: the API answers 503 naming it, the worker's
    job cannot record its outcome and is tried again; once the database is back, all scored once."""
    settings, db_proxy, _ = cluster
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=OP)
        force_open(client)
        repo = client.app.state.ctx.repo  # type: ignore[attr-defined]
        stalled = _upload(client, 1, **{"code/STALL_ONCE": ""})
        ids = [stalled] + [_upload(client, i) for i in range(2, 2 + N)]
        worker = start_worker(settings, tmp_path / "workers.log")
        try:
            wait_for(lambda: stalling(repo, stalled), "the worker to take the job and stall")
            db_proxy.drop()
            r = client.get("/api/v1/challenges")
            assert r.status_code == 503 and r.json()["field"] == "database"
            kill(worker)  # it dies while the database is away: nothing could record its end
            worker = start_worker(settings, tmp_path / "workers.log")
            db_proxy.restore()
            _scored_once(repo, ids)
        finally:
            kill(worker)
