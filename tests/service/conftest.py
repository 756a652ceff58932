"""Fixtures of the service tests: settings over a temp data dir, an app with its client, and the real
PostgreSQL/Redis servers (tests that need them skip, with the reason, when they do not answer)."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from multiprocessing.context import BaseContext
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from service_helpers import (
    CHALLENGE,
    FIXTURE_FORCE,
    OPERATOR_KEY,
    PG_HOST,
    PG_PORT,
    REDIS_HOST,
    REDIS_PORT,
    MakeClient,
    answers,
    pg_database,
)

from bouts.service.api import create_app
from bouts.service.config import ServiceSettings
from bouts.service.dispatch import LocalPoolDispatcher
from bouts.service.fakes import instant_scorer
from bouts.service.jobs import Scorer


@pytest.fixture
def settings(tmp_path: Path) -> ServiceSettings:
    return ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY, sandbox="bubblewrap",
                           local_workers=2, retry_backoff_s=0.05, rate_per_minute=6000, rate_burst=1000,
                           upload_rate_per_minute=6000)  # fmt: skip


@pytest.fixture(scope="session")
def pool_context() -> BaseContext:
    """The local pool's processes start from a forkserver that imported the service once, not by
    spawning an interpreter that imports it again for every app (about 1.3 CPU-s each). Each app
    still gets its own pool of fresh processes, stopped when the app stops. The forkserver's
    environment is the session's: a test that sets a variable for the pool's processes builds its
    own app without ``make_client``, and its pool spawns as in production."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["bouts.service.dispatch", "bouts.service.fakes"])
    return context


@pytest.fixture
def make_client(
    settings: ServiceSettings, pool_context: BaseContext, monkeypatch: pytest.MonkeyPatch
) -> Iterator[MakeClient]:
    """``make_client(scorer=..., **setting_overrides)``: a started app with inventory-ledger registered."""
    clients: list[TestClient] = []
    monkeypatch.setattr(LocalPoolDispatcher, "mp_context", pool_context)

    def make(scorer: Scorer = instant_scorer, **overrides: object) -> TestClient:
        app = create_app(settings.with_overrides(**overrides), scorer=scorer)
        client = TestClient(app, raise_server_exceptions=False)
        client.__enter__()
        clients.append(client)
        r = client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers={"X-API-Key": OPERATOR_KEY})
        assert r.status_code in (200, 201), r.text
        # through the repository, not the route: the operator's rate-limit bucket stays the test's
        client.app.state.ctx.repo.catalog.force_open("inventory-ledger", by="test fixture", reason=FIXTURE_FORCE)  # type: ignore[attr-defined]
        return client

    yield make
    for c in clients:
        c.__exit__(None, None, None)


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client()


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh database on the local PostgreSQL server, dropped afterwards."""
    if not answers(PG_HOST, PG_PORT):
        pytest.skip(f"no PostgreSQL server answers at {PG_HOST}:{PG_PORT}")
    with pg_database() as url:
        yield url


@pytest.fixture
def redis_url() -> str:
    if not answers(REDIS_HOST, REDIS_PORT):
        pytest.skip(f"no Redis server answers at {REDIS_HOST}:{REDIS_PORT}")
    return f"redis://{REDIS_HOST}:{REDIS_PORT}/11"


