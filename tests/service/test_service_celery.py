"""Distributed scoring on real Redis and PostgreSQL with real ``bouts worker`` processes.

- A worker killed with SIGKILL mid-score (the whole worker: main process and pool child, as when a
  machine dies, or only the pool child): its heartbeat stops, so the recovery pass hands the job
  back after the lease (2 s here; the broker's visibility timeout is 10 minutes and plays no part)
  and publishes it first in line; the submission is scored exactly once.
- Infrastructure failures are retried by Celery with backoff, then marked failed_infra, never scored.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from service_helpers import CHALLENGE, OPERATOR_KEY, agent_key, dir_tar_gz, force_open, tiny_submission
from sqlalchemy import func, select

from bouts.service.api import create_app
from bouts.service.config import ServiceSettings
from bouts.service.storage.models import ScorecardRow

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
BOUTS = Path(sys.executable).parent / "bouts"


@pytest.fixture
def celery_settings(tmp_path: Path, pg_url: str, redis_url: str) -> ServiceSettings:
    return ServiceSettings(
        data_dir=tmp_path / "data", db_url=pg_url, broker_url=redis_url, queue=f"bouts-test-{uuid.uuid4().hex[:8]}",
        visibility_timeout_s=600, lease_s=2.0, retry_backoff_s=0.2, max_retries=2, operator_key=OPERATOR_KEY,
        rate_per_minute=60_000, rate_burst=1000,
    )  # fmt: skip


def _env(settings: ServiceSettings) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"BOUTS_DATA_DIR": str(settings.data_dir), "BOUTS_DB_URL": settings.db_url,
                "BOUTS_BROKER_URL": settings.broker_url, "BOUTS_QUEUE": settings.queue,
                "BOUTS_VISIBILITY_TIMEOUT_S": str(settings.visibility_timeout_s),
                "BOUTS_RETRY_BACKOFF_S": str(settings.retry_backoff_s),
                "BOUTS_MAX_RETRIES": str(settings.max_retries), "BOUTS_SANDBOX": settings.sandbox,
                "BOUTS_LEASE_S": str(settings.lease_s)})  # fmt: skip
    return env


def _start_worker(settings: ServiceSettings, log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([str(BOUTS), "worker", "--concurrency", "1", "--loglevel", "INFO"],
                            env=_env(settings), stdout=log.open("ab"), stderr=subprocess.STDOUT,
                            start_new_session=True)  # fmt: skip


def _stop(worker: subprocess.Popen[bytes]) -> None:
    if worker.poll() is None:
        os.killpg(worker.pid, signal.SIGTERM)
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()


@pytest.fixture
def workers(celery_settings: ServiceSettings, tmp_path: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for w in started:
        _stop(w)


def _wait(predicate, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def _pool_child(pid: int) -> int:
    """The worker's one pool process (not its spawned recovery process or resource tracker)."""
    rows = subprocess.run(["ps", "-o", "pid=,args=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    children = [line.split(None, 1) for line in rows.splitlines() if line.strip()]
    forked = [int(p) for p, args in children if "multiprocessing" not in args]
    assert len(forked) == 1, children
    return forked[0]


@pytest.mark.sandbox
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed (scripts/setup installs it)")
@pytest.mark.parametrize("kill", ["whole-worker", "pool-process"])
def test_worker_killed_mid_score_loses_nothing_and_scores_once(
    celery_settings: ServiceSettings, workers: list[subprocess.Popen[bytes]], tmp_path: Path, kill: str
) -> None:
    """whole-worker: main process and pool child (a machine lost): handed back when the lease runs
    out and scored by a fresh worker. pool-process: only the child scoring it: handed back the same
    way and redone by the same worker's new child."""
    log = tmp_path / "worker.log"
    with TestClient(create_app(celery_settings)) as client:
        assert client.get("/api/v1/health").json()["dispatcher"] == "celery"
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers={"X-API-Key": OPERATOR_KEY})
        force_open(client)
        key = agent_key(client, "anchor-high")
        upload = {"archive": ("high.tar.gz", dir_tar_gz(CHALLENGE / "anchors" / "high"), "application/gzip")}
        sid = client.post("/api/v1/challenges/inventory-ledger/submissions", headers={"X-API-Key": key},
                          files=upload).json()["id"]  # fmt: skip
        repo = client.app.state.ctx.repo  # type: ignore[attr-defined]

        workers.append(_start_worker(celery_settings, log))
        _wait(lambda: repo.submissions.get(sid).state == "running", 60, "the first worker to claim")
        time.sleep(1.5)  # well inside the scoring (it takes several seconds)
        if kill == "whole-worker":
            os.killpg(workers[0].pid, signal.SIGKILL)
            workers[0].wait()
        else:
            os.kill(_pool_child(workers[0].pid), signal.SIGKILL)
        killed_at = time.monotonic()
        info = repo.submissions.get(sid)
        assert info.state == "running" and info.attempt == 1 and repo.submissions.scorecard(sid) is None

        if kill == "whole-worker":
            workers.append(_start_worker(celery_settings, log))
        _wait(lambda: repo.submissions.get(sid).attempt == 2, 60, "the job to be handed back and claimed again")
        redone_in = time.monotonic() - killed_at
        _wait(lambda: repo.submissions.get(sid).state == "scored", 300, "the second worker to score")
        info = repo.submissions.get(sid)
        assert info.attempt == 2 and info.final is not None and info.final >= 75
        with repo.engine.connect() as conn:
            assert conn.scalar(select(func.count()).select_from(ScorecardRow)) == 1
        time.sleep(2)  # nothing redelivered afterwards writes a second scorecard
        with repo.engine.connect() as conn:
            assert conn.scalar(select(func.count()).select_from(ScorecardRow)) == 1
        card = client.get(f"/api/v1/submissions/{sid}/scorecard").json()["scorecard"]
        assert card["final"] == info.final
    print(f"\n{kill} SIGKILLed mid-score; claimed again {redone_in:.1f}s after the kill (attempt 2, 1 scorecard)")


def test_infra_failures_retried_by_celery_then_failed(
    celery_settings: ServiceSettings, workers: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    """A worker whose sandbox is broken (an unknown backend stands in for it) never scores the agent."""
    broken = ServiceSettings(**{**celery_settings.__dict__, "sandbox": "no-such-sandbox"})
    with TestClient(create_app(broken)) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers={"X-API-Key": OPERATOR_KEY})
        force_open(client)
        key = agent_key(client, "a")
        upload = {"archive": ("s.tar.gz", tiny_submission("a"), "application/gzip")}
        sid = client.post("/api/v1/challenges/inventory-ledger/submissions", headers={"X-API-Key": key},
                          files=upload).json()["id"]  # fmt: skip
        repo = client.app.state.ctx.repo  # type: ignore[attr-defined]
        workers.append(_start_worker(broken, tmp_path / "worker.log"))
        _wait(lambda: repo.submissions.get(sid).state not in ("queued", "running"), 90, "retries to run out")
        info = repo.submissions.get(sid)
        assert info.state == "failed_infra" and info.attempt == broken.max_retries + 1 and info.final is None
        assert repo.submissions.scorecard(sid) is None


@pytest.mark.sandbox
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed (scripts/setup installs it)")
def test_checks_and_rescores_run_on_celery_workers(
    celery_settings: ServiceSettings, workers: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    """The other job kinds go through the same broker and workers: a static check (no sandbox) and a
    re-score of a really scored submission, which adds scorecard version 2."""
    op = {"X-API-Key": OPERATOR_KEY}
    with TestClient(create_app(celery_settings)) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=op)
        force_open(client)
        key = agent_key(client, "a")
        upload = {"archive": ("s.tar.gz", tiny_submission("a"), "application/gzip")}
        sid = client.post("/api/v1/challenges/inventory-ledger/submissions", headers={"X-API-Key": key},
                          files=upload).json()["id"]  # fmt: skip
        check = client.post("/api/v1/challenges/inventory-ledger/checks", headers=op,
                            json={"runs": 0, "anchors": False}).json()  # fmt: skip
        repo = client.app.state.ctx.repo  # type: ignore[attr-defined]
        workers.append(_start_worker(celery_settings, tmp_path / "worker.log"))
        _wait(lambda: repo.checks.get(check["id"]).state == "done", 90, "the check")
        assert client.get(f"/api/v1/checks/{check['id']}/report", headers=op).json()["schema"] == "bouts.check/1"
        _wait(lambda: repo.submissions.get(sid).state == "scored", 180, "the scoring")
        job = client.post(f"/api/v1/submissions/{sid}/rescores", headers=op, json={"reason": "engine fix"}).json()
        _wait(lambda: repo.rescores.get(job["id"]).state == "done", 180, "the re-score")
        done = repo.rescores.get(job["id"])
        assert (done.before_version, done.after_version, done.attempt) == (1, 2, 1)
        assert [s.version for s in repo.submissions.scorecard_history(sid)] == [1, 2]
