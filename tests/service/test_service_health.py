"""Health that tells the truth (issue 18, item 3): liveness and readiness apart; readiness and every
other route answer 503 naming the dependency that is down; a bounded, graceful shutdown that hands
running jobs back; the CLI's one-line errors with the documented exit codes."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import psycopg
import pytest
from fastapi.testclient import TestClient
from service_helpers import CHALLENGE, OPERATOR_KEY, PG_HOST, PG_PORT, IdleDispatcher, force_open, tiny_submission
from sqlalchemy.engine import make_url

from bouts.service.api import create_app
from bouts.service.config import ServiceSettings
from bouts.service.dispatch import LocalPoolDispatcher
from bouts.service.fakes import instant_scorer
from bouts.service.health import unavailable
from bouts.service.storage import open_repository

BOUTS = Path(sys.executable).parent / "bouts"
OP = {"X-API-Key": OPERATOR_KEY}


def test_liveness_and_readiness_when_all_is_well(client: TestClient) -> None:
    assert client.get("/api/v1/health/live").json()["status"] == "alive"
    ready = client.get("/api/v1/health/ready").json()
    assert ready["status"] == "ok" and ready["checks"] == {"database": "ok", "broker": "n/a"}
    assert client.get("/api/v1/health").json() == ready


@pytest.mark.postgres
def test_database_down_is_503_naming_it_on_readiness_and_every_route(tmp_path: Path, pg_url: str) -> None:
    """The database stops accepting connections (as when its server is down): liveness still
    answers, readiness and the other routes answer 503 with the same message, never a bare 500;
    when it is back, so is the service."""
    settings = ServiceSettings(data_dir=tmp_path / "data", db_url=pg_url, operator_key=OPERATOR_KEY)
    name = make_url(pg_url).database
    admin = f"host={PG_HOST} port={PG_PORT} user=postgres dbname=postgres"
    with TestClient(create_app(settings, dispatcher=IdleDispatcher()), raise_server_exceptions=False) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=OP)
        force_open(client)
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
        try:
            assert client.get("/api/v1/health/live").status_code == 200
            for url, headers in [("/api/v1/health/ready", {}), ("/api/v1/health", {}),
                                 ("/api/v1/challenges", {}), ("/api/v1/submissions", OP), ("/", {}),
                                 ("/api/v1/challenges/inventory-ledger/leaderboard", {})]:  # fmt: skip
                r = client.get(url, headers=headers)
                assert r.status_code == 503, (url, r.status_code, r.text)
                assert r.json()["detail"] == unavailable("database") and r.json()["field"] == "database", url
                assert r.headers["retry-after"]
            upload = {"archive": ("s.tar.gz", tiny_submission("a"), "application/gzip")}
            r = client.post("/api/v1/challenges/inventory-ledger/submissions", headers=OP, files=upload)
            assert r.status_code == 503 and r.json()["field"] == "database", r.text
        finally:
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        assert client.get("/api/v1/health/ready").status_code == 200
        assert client.get("/api/v1/challenges").status_code == 200
        assert not any((settings.data_dir / "submissions").glob("*"))  # the refused upload left nothing


def test_broker_down_is_503_naming_it_and_uploads_still_wait_queued(tmp_path: Path) -> None:
    settings = ServiceSettings(data_dir=tmp_path / "data", broker_url="redis://127.0.0.1:1/0",
                               operator_key=OPERATOR_KEY)  # fmt: skip
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        r = client.get("/api/v1/health/ready")
        assert r.status_code == 503 and r.json() == {"detail": unavailable("broker"), "field": "broker"}
        assert client.get("/api/v1/health/live").status_code == 200
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=OP)
        force_open(client)
        upload = {"archive": ("s.tar.gz", tiny_submission("a"), "application/gzip")}
        r = client.post("/api/v1/challenges/inventory-ledger/submissions", headers=OP, files=upload)
        assert r.status_code == 202 and r.json()["state"] == "queued"  # published once the broker is back


def test_shutdown_takes_no_new_job_and_hands_back_the_running_one(tmp_path: Path) -> None:
    """SIGTERM on the embedded server closes the dispatcher: nothing waiting starts, the running
    job (one that never ends) gets ``shutdown_grace_s``, then its process is stopped and the job is
    handed back ``queued`` for the next start. (It used to start another job and exit minutes later.)"""
    settings = ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY, local_workers=1,
                               shutdown_grace_s=0.5)  # fmt: skip
    repo = open_repository(settings.database_url)
    with TestClient(create_app(settings, repo=repo, dispatcher=IdleDispatcher())) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=OP)
        force_open(client)
        ids = [client.post("/api/v1/challenges/inventory-ledger/submissions", headers=OP, files={"archive": (
                   "s.tar.gz", tiny_submission("a", i, **({"code/STALL": ""} if i == 1 else {})), "application/gzip")}
               ).json()["id"] for i in (1, 2, 3)]  # fmt: skip
    dispatcher = LocalPoolDispatcher(settings, repo, instant_scorer)
    for sid in ids:
        dispatcher.enqueue(sid)
    _wait(lambda: repo.submissions.get(ids[0]).state == "running", "the first job to start")
    closed = threading.Thread(target=dispatcher.close)
    closed.start()
    closed.join(timeout=120)
    assert not closed.is_alive(), "close did not return"
    states = [(i.state, i.attempt) for i in map(repo.submissions.get, ids)]
    assert states == [("queued", 1), ("queued", 0), ("queued", 0)], states
    assert "stopped" in (repo.submissions.get(ids[0]).last_error or "")


@pytest.mark.parametrize("command", [["key", "agent", "--agent", "a"], ["serve", "--port", "1"],
                                     ["worker", "--broker-url", "redis://127.0.0.1:1/0"], ["leaderboard", "x"]])
def test_cli_with_an_unreachable_database_prints_one_line_and_exits_3(command: list[str], tmp_path: Path) -> None:
    url = "postgresql+psycopg://bouts:hunter2@127.0.0.1:1/bouts"
    done = subprocess.run([str(BOUTS), *command, "--db-url", url], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)  # fmt: skip
    assert done.returncode == 3, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: database postgresql+psycopg://bouts:***@127.0.0.1:1/bouts")
    assert "hunter2" not in done.stderr and "Traceback" not in done.stderr


def _wait(predicate, what: str, timeout: float = 120) -> None:  # type: ignore[no-untyped-def]
    import time

    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
