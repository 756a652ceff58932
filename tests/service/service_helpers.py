"""Helpers of the service tests (a uniquely named module: every test directory has its own conftest)."""

from __future__ import annotations

import contextlib
import io
import os
import socket
import tarfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from fastapi.testclient import TestClient

REPO = Path(__file__).resolve().parents[2]
CHALLENGE = REPO / "examples" / "inventory-ledger"
OPERATOR_KEY = "bk_" + "0" * 16 + "_operator-secret-for-tests-only"
# The local servers CI runs on this machine kind; overridable for other set-ups.
PG_HOST, PG_PORT = os.environ.get("BOUTS_TEST_PG_HOST", "127.0.0.1"), int(os.environ.get("BOUTS_TEST_PG_PORT", "5432"))
REDIS_HOST = os.environ.get("BOUTS_TEST_REDIS_HOST", "127.0.0.1")
REDIS_PORT = int(os.environ.get("BOUTS_TEST_REDIS_PORT", "6379"))


def tar_gz(files: dict[str, bytes | str], *, top: str = "submission") -> bytes:
    """A .tar.gz of ``files`` (path → content) under one top directory."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for rel, content in files.items():
            data = content.encode() if isinstance(content, str) else content
            info = tarfile.TarInfo(f"{top}/{rel}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def dir_tar_gz(directory: Path, **overrides: str) -> bytes:
    """A .tar.gz of a submission directory, with some files replaced (e.g. submission.toml)."""
    files: dict[str, bytes | str] = {
        str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()
    }
    files.update(overrides)
    return tar_gz(files)


def tiny_submission(agent: str, iteration: int = 1, *, challenge: str = "inventory-ledger", **extra: str) -> bytes:
    """A minimal valid submission (enough for the loader and the instant scorer)."""
    toml = f'agent = "{agent}"\nchallenge = "{challenge}"\niteration = {iteration}\nelapsed_s = {iteration * 10}\n'
    return tar_gz({"submission.toml": toml, "code/ledger.py": "VALUE = 1\n", **extra})


FIXTURE_FORCE = "test fixture: scored by a fake or seeded; the launch check is tested in test_service_launch.py"
"""The reason test fixtures force a challenge open with (docs/service.md, "Launch gate")."""


def force_open(client: TestClient | str, challenge: str = "inventory-ledger", key: str = OPERATOR_KEY) -> None:
    """Force ``challenge`` open through the API (a TestClient, or a live server's base URL)."""
    url, body, headers = f"/api/v1/challenges/{challenge}/force-open", {"reason": FIXTURE_FORCE}, {"X-API-Key": key}
    if isinstance(client, str):
        import httpx

        r = httpx.post(client + url, json=body, headers=headers, timeout=30)
    else:
        r = client.post(url, json=body, headers=headers)
    assert r.status_code == 200 and r.json()["open"], r.text


def wait_terminal(client: TestClient, submission_id: str, key: str, timeout: float = 120) -> dict[str, object]:
    deadline = time.monotonic() + timeout
    while True:
        r = client.get(f"/api/v1/submissions/{submission_id}", headers={"X-API-Key": key})
        if r.status_code == 429:  # polling like a well-behaved client: wait as the server says
            time.sleep(min(float(r.headers.get("Retry-After", "1")), 5.0))
            continue
        assert r.status_code == 200, r.text
        body = r.json()
        if body["state"] in ("scored", "failed_infra", "rejected") or time.monotonic() > deadline:
            return body
        time.sleep(0.1)


def wait_job(client: TestClient, url: str, key: str, timeout: float = 120) -> dict[str, object]:
    """Poll a check run or a re-score (``url``) until it is done, failed_infra or rejected."""
    deadline = time.monotonic() + timeout
    while True:
        r = client.get(url, headers={"X-API-Key": key})
        assert r.status_code == 200, r.text
        body = r.json()
        if body["state"] in ("done", "failed_infra", "rejected") or time.monotonic() > deadline:
            return body  # type: ignore[no-any-return]
        time.sleep(0.1)


@contextlib.contextmanager
def pg_database(prefix: str = "bouts_svc") -> Iterator[str]:
    """A fresh database on the local PostgreSQL server (its SQLAlchemy URL), dropped afterwards."""
    import uuid

    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = f"host={PG_HOST} port={PG_PORT} user=postgres dbname=postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+psycopg://postgres@{PG_HOST}:{PG_PORT}/{name}"
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def answers(host: str, port: int) -> bool:
    """Whether a server accepts connections at ``host:port``."""
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


MakeClient = Callable[..., TestClient]
"""The ``make_client`` fixture: ``make_client(scorer=..., **setting_overrides)``."""


def agent_key(client: TestClient, agent: str) -> str:
    r = client.post("/api/v1/keys", json={"role": "agent", "agent": agent}, headers={"X-API-Key": OPERATOR_KEY})
    assert r.status_code == 201, r.text
    return str(r.json()["key"])


@contextlib.contextmanager
def live_server(app: object) -> Iterator[str]:
    """Serve ``app`` with uvicorn on a free loopback port in a thread; yields the base URL."""
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",  # type: ignore[arg-type]
                                           backlog=4096, timeout_keep_alive=30))  # fmt: skip
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=60)


class IdleDispatcher:
    """A dispatcher that runs nothing: jobs stay queued (for tests of queue states)."""

    name = "idle"

    def enqueue(self, job_id: str, kind: str = "score") -> None:
        pass

    def close(self) -> None:
        pass
