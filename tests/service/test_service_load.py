"""500 concurrent submissions through a real server on loopback: none lost, no 5xx, each scored
exactly once. Scoring is the instant fake (the point is the queue and the storage, not the sandbox)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
import pytest
from service_helpers import CHALLENGE, OPERATOR_KEY, force_open, live_server, tiny_submission
from sqlalchemy import func, select

from bouts.service.api import create_app
from bouts.service.config import ServiceSettings
from bouts.service.fakes import instant_scorer
from bouts.service.storage.models import ScorecardRow

pytestmark = pytest.mark.slow_io  # a load test: 501 uploads through a live server and the pool, minutes

N_AGENTS, N_ITERATIONS = 167, 3  # 501 submissions (the challenge allows 3 iterations per agent)
DEADLINE_S = 240


async def _flood(base: str, keys: dict[str, str]) -> list[httpx.Response]:
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=200)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=120) as client:

        async def one(agent: str, iteration: int) -> httpx.Response:
            return await client.post(
                "/api/v1/challenges/inventory-ledger/submissions", headers={"X-API-Key": keys[agent]},
                files={"archive": ("s.tar.gz", tiny_submission(agent, iteration), "application/gzip")},
            )  # fmt: skip

        jobs = [one(agent, it) for it in range(1, N_ITERATIONS + 1) for agent in keys]
        return await asyncio.gather(*jobs)


def _run(settings: ServiceSettings) -> dict[str, float]:
    app = create_app(settings, scorer=instant_scorer)
    repo = app.state.ctx.repo
    keys = {f"agent-{i:03d}": repo.catalog.create_key("agent", f"agent-{i:03d}") for i in range(N_AGENTS)}
    with live_server(app) as base:
        r = httpx.post(f"{base}/api/v1/challenges", json={"path": str(CHALLENGE)}, headers={"X-API-Key": OPERATOR_KEY})
        assert r.status_code == 201, r.text
        force_open(base)
        started = time.monotonic()
        responses = asyncio.run(_flood(base, keys))
        accepted = time.monotonic() - started
        codes = sorted({r.status_code for r in responses})
        assert codes == [202], [(r.status_code, r.text[:200]) for r in responses if r.status_code != 202][:5]
        ids = {r.json()["id"] for r in responses}
        assert len(ids) == N_AGENTS * N_ITERATIONS
        while time.monotonic() - started < DEADLINE_S:
            if not repo.submissions.pending():
                break
            time.sleep(0.25)
        scored = time.monotonic() - started
        states = {s.state for s in repo.submissions.list(limit=1000)}
        assert states == {"scored"} and len(repo.submissions.list(limit=1000)) == len(ids)
        with repo.engine.connect() as conn:
            assert conn.scalar(select(func.count()).select_from(ScorecardRow)) == len(ids)  # scored exactly once
        board = httpx.get(f"{base}/api/v1/challenges/inventory-ledger/leaderboard").json()["standings"]
        assert len(board) == N_AGENTS and all(len(s["history"]) == N_ITERATIONS for s in board)
    print(f"\n500 submissions: accepted in {accepted:.1f}s, all scored in {scored:.1f}s")
    return {"accepted_s": accepted, "scored_s": scored}


def _settings(tmp_path: Path, **overrides: object) -> ServiceSettings:
    return ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY, local_workers=2,
                           rate_per_minute=100_000, rate_burst=10_000, upload_rate_per_minute=100_000,
                           **overrides)  # type: ignore[arg-type]  # fmt: skip


def test_500_concurrent_submissions_sqlite(tmp_path: Path) -> None:
    _run(_settings(tmp_path))


@pytest.mark.postgres
def test_500_concurrent_submissions_postgres(tmp_path: Path, pg_url: str) -> None:
    _run(_settings(tmp_path, db_url=pg_url))
