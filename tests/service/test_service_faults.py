"""Fault injection (issue 18, item 7): kill a pool process, kill a worker, restart the API, drop
the broker, drop the database. Whatever happens, every accepted submission ends ``scored`` exactly
once (one scorecard), within a generous bound. Small numbers (a handful of submissions, the
instant fake scorer, a 2 s lease) so it runs in CI; nothing is timed: every wait is on a condition.

The Celery scenarios run real ``bouts worker`` processes (``fault_worker.py``) on the local
PostgreSQL and Redis, each reached through a TCP proxy (``service_faults.TcpProxy``) that can drop
the server for these processes only, as a network partition or a crashed server would.
"""

from __future__ import annotations

import os
import subprocess
import time
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


# -- liveness by heartbeat (issue 41) -----------------------------------------------------------
def _workers_ready(log: Path, n: int) -> bool:
    """Whether ``n`` workers logging to ``log`` are consuming (Celery logs "<name> ready.")."""
    return log.exists() and log.read_text(errors="replace").count(" ready.") >= n


def _holder(workers: list[subprocess.Popen[bytes]], repo: Repository, submission_id: str) -> subprocess.Popen[bytes]:
    """The worker whose pool process is scoring ``submission_id`` (the fake wrote its pid)."""
    marker = Path(f"{repo.submissions.get(submission_id).archive_path}.stalled")
    wait_for(lambda: marker.read_text().strip() != "", "the stalling process to write its pid")
    group = os.getpgid(int(marker.read_text()))
    return next(w for w in workers if w.pid == group)


@pytest.mark.postgres
@pytest.mark.redis
def test_a_killed_workers_job_is_scored_again_within_seconds(
    cluster: tuple[ServiceSettings, TcpProxy, TcpProxy], tmp_path: Path
) -> None:
    """Two workers with the default liveness settings (a heartbeat every 2 s, dead after 8 s without
    one); the one scoring a job is SIGKILLed: the other scores it again within 15 s of the kill
    (the issue's acceptance bound: 8 s without a heartbeat, a recovery pass every 2 s, a publish)."""
    settings = cluster[0].with_overrides(lease_s=ServiceSettings().lease_s)
    log = tmp_path / "workers.log"
    with TestClient(create_app(settings)) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=OP)
        force_open(client)
        repo = client.app.state.ctx.repo  # type: ignore[attr-defined]
        workers = [start_worker(settings, log), start_worker(settings, log)]
        try:
            wait_for(lambda: _workers_ready(log, 2), "both workers to consume")
            stalled = _upload(client, 1, **{"code/STALL_ONCE": ""})
            wait_for(lambda: stalling(repo, stalled), "a worker to take the job and stall")
            kill(_holder(workers, repo, stalled))
            wait_for(lambda: repo.submissions.get(stalled).state == "scored", "the job scored again", timeout=15)
            _scored_once(repo, [stalled])
            assert repo.submissions.get(stalled).attempt == 2
        finally:
            for worker in workers:
                kill(worker)


@pytest.mark.postgres
@pytest.mark.redis
def test_a_scoring_finished_during_a_database_outage_is_saved_not_scored_again(
    cluster: tuple[ServiceSettings, TcpProxy, TcpProxy], tmp_path: Path
) -> None:
    """A 15 s database outage (every process reaches PostgreSQL through the dropped proxy; the lease
    is 2 s, so every heartbeat is far past it) while a scoring runs, and the scoring finishes during
    it: the worker keeps the result and saves it when the database answers again. Nothing is handed
    back (attempt 1), and no submission is scored twice (the fake counts its scorings on disk)."""
    settings, db_proxy, _ = cluster
    log = tmp_path / "workers.log"
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=OP)
        force_open(client)
        repo = client.app.state.ctx.repo  # type: ignore[attr-defined]
        workers = [start_worker(settings, log), start_worker(settings, log)]
        try:
            wait_for(lambda: _workers_ready(log, 2), "both workers to consume")
            held = _upload(client, 1, **{"code/HOLD": "", "code/COUNT": ""})
            ids = [held] + [_upload(client, i, **{"code/COUNT": ""}) for i in range(2, 2 + N)]
            archive = repo.submissions.get(held).archive_path
            wait_for(lambda: Path(f"{archive}.held").exists(), "the held scoring to start")
            db_proxy.drop()
            assert client.get("/api/v1/challenges").status_code == 503
            Path(f"{archive}.release").touch()  # the scoring finishes while the database is away
            time.sleep(15)  # the outage's length (what happens meanwhile is not timed)
            db_proxy.restore()
            _scored_once(repo, ids)
            assert repo.submissions.get(held).attempt == 1  # never taken for dead
            for sid in ids:
                scorings = Path(f"{repo.submissions.get(sid).archive_path}.scorings").read_text().split()
                assert len(scorings) == 1, f"{sid} was scored {len(scorings)} times"
        finally:
            for worker in workers:
                kill(worker)


@pytest.mark.postgres
@pytest.mark.redis
def test_after_redis_lost_its_data_hand_backs_are_scored_before_the_backlog(
    cluster: tuple[ServiceSettings, TcpProxy, TcpProxy], tmp_path: Path
) -> None:
    """A backlog waits (no worker), then a newer job is claimed by a worker that vanishes (the test
    claims it and never stamps its heartbeat again): it is handed back. Redis then loses everything.
    The queue rebuilt from the database puts the hand-back first, then the backlog oldest first: a
    single worker scores the hand-back before any of the backlog, which is older than it."""
    import redis

    settings, _, _ = cluster
    log = tmp_path / "workers.log"
    with TestClient(create_app(settings)) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=OP)
        force_open(client)
        repo = client.app.state.ctx.repo  # type: ignore[attr-defined]
        backlog = [_upload(client, i) for i in range(2, 2 + N)]
        handed = _upload(client, 1)
        assert repo.submissions.claim(handed, lease_s=settings.lease_s) is not None  # the worker that vanishes
        wait_for(lambda: repo.submissions.get(handed).state == "queued", "the recovery pass to hand it back")
        direct = redis.Redis(host=REDIS_HOST, port=REDIS_PORT, db=11)
        keys = direct.keys(f"{settings.queue}*")
        assert keys  # the backlog and the hand-back were in Redis
        direct.delete(*keys)  # Redis restarted with nothing
        worker = start_worker(settings, log)
        try:
            _scored_once(repo, [handed, *backlog])
        finally:
            kill(worker)
    started = {sid: repo.submissions.get(sid).started_at for sid in [handed, *backlog]}
    assert all(started[handed] < started[b] for b in backlog), started
    assert [repo.submissions.get(b).attempt for b in backlog] == [1] * N
