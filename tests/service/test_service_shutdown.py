"""A ``bouts worker`` stopped with SIGTERM mid-job (issue 18 item 3; docs/service.md, "Stopping a
worker"), on real PostgreSQL and Redis with a real worker process (``fault_worker.py``, the instant
fake scorer): it takes no new job, hands the running one back at once (``queued`` again, not
``running`` until a lease runs out: the lease here is ten minutes and plays no part), exits within
its bound, and a new worker scores the job exactly once, ahead of the job that arrived after it.
Every wait is on a condition; the one bound asserted is the worker's documented exit bound."""

from __future__ import annotations

import os
import signal
import subprocess
import uuid
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from service_faults import kill, stalling, start_worker, wait_for
from service_helpers import CHALLENGE, OPERATOR_KEY, force_open, tiny_submission
from sqlalchemy import func, select

from bouts.service.api import create_app
from bouts.service.config import ServiceSettings
from bouts.service.storage import Repository
from bouts.service.storage.models import ScorecardRow
from bouts.service.worker.shutdown import HANDED_BACK, exit_bound_s

pytestmark = [pytest.mark.postgres, pytest.mark.redis]
OP = {"X-API-Key": OPERATOR_KEY}
GRACE_S = 1.0


def _upload(client: TestClient, agent: str, **extra: str) -> str:
    upload = {"archive": ("s.tar.gz", tiny_submission(agent, 1, **extra), "application/gzip")}
    r = client.post("/api/v1/challenges/inventory-ledger/submissions", headers=OP, files=upload)
    assert r.status_code == 202, r.text
    return str(r.json()["id"])


def _scorecards(repo: Repository, sid: str) -> int:
    with repo.engine.connect() as conn:
        return int(conn.execute(select(func.count()).where(ScorecardRow.submission_id == sid)).scalar_one())


@pytest.mark.parametrize("signalled", ["main-process", "process-group"])
def test_sigterm_hands_the_running_job_back_at_once_and_exits(
    tmp_path: Path, pg_url: str, redis_url: str, signalled: str
) -> None:
    settings = ServiceSettings(data_dir=tmp_path / "data", db_url=pg_url, broker_url=redis_url,
                               queue=f"bouts-test-{uuid.uuid4().hex[:8]}", lease_s=600.0, shutdown_grace_s=GRACE_S,
                               retry_backoff_s=0.2, max_retries=2, operator_key=OPERATOR_KEY,
                               rate_per_minute=60_000, rate_burst=1000)  # fmt: skip
    log = tmp_path / "workers.log"
    with TestClient(create_app(settings)) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=OP)
        force_open(client)
        repo: Repository = client.app.state.ctx.repo  # type: ignore[attr-defined]
        stalled = _upload(client, "slow", **{"code/STALL_ONCE": ""})  # blocks its first scoring until stopped
        first = start_worker(settings, log)
        try:
            wait_for(lambda: stalling(repo, stalled), "the worker to take the job and stall")
            later = _upload(client, "later")  # arrives after it; this worker has no room for it
            if signalled == "main-process":
                os.kill(first.pid, signal.SIGTERM)
            else:
                os.killpg(first.pid, signal.SIGTERM)  # as systemd stops a unit
            try:
                first.wait(timeout=exit_bound_s(GRACE_S))
            except subprocess.TimeoutExpired:
                pytest.fail(f"the worker did not exit within {exit_bound_s(GRACE_S)} s of SIGTERM:\n{log.read_text()}")
        finally:
            kill(first)
        handed = repo.submissions.get(stalled)
        assert (handed.state, handed.attempt, handed.last_error) == ("queued", 1, HANDED_BACK), log.read_text()
        assert repo.submissions.get(later).attempt == 0, "a stopping worker took a new job"
        assert _scorecards(repo, stalled) == 0

        second = start_worker(settings, log)
        try:
            wait_for(lambda: all(repo.submissions.get(i).state == "scored" for i in (stalled, later)),
                     "the new worker to score both")  # fmt: skip
        finally:
            kill(second, signal.SIGTERM)
        again, after = repo.submissions.get(stalled), repo.submissions.get(later)
        assert again.attempt == 2 and _scorecards(repo, stalled) == 1 and _scorecards(repo, later) == 1
        assert again.started_at is not None and after.started_at is not None
        assert again.started_at <= after.started_at, "the handed-back job lost its place"
