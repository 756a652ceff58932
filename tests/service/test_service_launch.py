"""The launch gate (issue 16 item 2; docs/service.md, "Launch gate"), on SQLite and PostgreSQL: a
registered challenge takes no upload until the latest launch check of its current version passed,
or an operator forced it open (who, when, why: on the API object and the challenge page). The
checks here go through the real check-run state machine (queued → running → done) with the verdict
written by the test in place of a worker; ``test_service_flow.py`` opens a challenge with a check
that really runs the reference."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from service_helpers import CHALLENGE, OPERATOR_KEY, IdleDispatcher, agent_key, tiny_submission

from bouts.service.api import create_app
from bouts.service.config import ServiceSettings
from bouts.service.storage import Repository

OP = {"X-API-Key": OPERATOR_KEY}
BASE = "/api/v1/challenges/inventory-ledger"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestClient]:
    """Registered, not opened; nothing runs the queue (the test gives each check its verdict)."""
    db = {"db_url": request.getfixturevalue("pg_url")} if request.param == "postgres" else {}
    settings = ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY, rate_per_minute=6000,
                               rate_burst=1000, upload_rate_per_minute=6000, **db)  # fmt: skip
    with TestClient(create_app(settings, dispatcher=IdleDispatcher())) as c:
        assert c.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=OP).status_code == 201
        yield c


def _repo(client: TestClient) -> Repository:
    return client.app.state.ctx.repo  # type: ignore[attr-defined,no-any-return]


def _upload(client: TestClient, iteration: int = 1) -> dict[str, object]:
    files = {"archive": ("s.tar.gz", tiny_submission("alice", iteration), "application/gzip")}
    r = client.post(f"{BASE}/submissions", headers=OP, files=files)
    return {"status": r.status_code, **r.json()}


def _check(client: TestClient, *, runs: int, launch: bool | None, seeds: tuple[int, ...] = ()) -> str:
    """Ask for a check through the API; ``launch`` None leaves it queued, else it runs to that verdict."""
    r = client.post(f"{BASE}/checks", headers=OP, json={"runs": runs, "anchors": False, "fresh_seeds": list(seeds)})
    assert r.status_code == 202, r.text
    check_id = str(r.json()["id"])
    if launch is not None:
        checks = _repo(client).checks
        claim = checks.claim(check_id)
        assert claim is not None and checks.complete(claim, '{"schema": "bouts.check/1"}', launch)
    return check_id


def _gate(client: TestClient) -> dict[str, object]:
    body = client.get(BASE).json()
    gate = body["launch_gate"]
    assert body["open"] is (body["active"] and gate["open"])
    return gate  # type: ignore[no-any-return]


def test_a_registered_challenge_takes_no_upload_until_a_launch_check_passes(client: TestClient) -> None:
    gate = _gate(client)
    assert gate["state"] == "unchecked" and gate["open"] is False and gate["check"] is None
    refused = _upload(client)
    assert refused["status"] == 409 and refused["field"] == "challenge"
    assert "not open for submissions" in str(refused["detail"]) and "no launch check" in str(refused["detail"])
    assert "/checks" in str(refused["detail"]) and "/force-open" in str(refused["detail"])

    pending = _check(client, runs=1, launch=None)
    assert pending in str(_upload(client)["detail"]) and _gate(client)["pending"]["id"] == pending  # type: ignore[index]

    failed = _check(client, runs=1, launch=False, seeds=(5,))
    refused = _upload(client)
    detail = str(refused["detail"])
    assert refused["status"] == 409 and failed in detail and "refused the launch" in detail
    assert f"/api/v1/checks/{failed}/report" in detail and " UTC" in detail
    assert _gate(client)["state"] == "failed" and _gate(client)["check"]["id"] == failed  # type: ignore[index]

    static = _check(client, runs=0, launch=True)  # skipped the reference: not a launch check
    assert _gate(client)["check"]["id"] == failed and _upload(client)["status"] == 409, static  # type: ignore[index]

    passed = _check(client, runs=2, launch=True)
    gate = _gate(client)
    assert gate["open"] is True and gate["state"] == "passed" and gate["check"]["id"] == passed  # type: ignore[index]
    assert gate["check"]["launch"] is True and gate["check"]["runs"] == 2 and gate["forced"] is None  # type: ignore[index]
    assert _upload(client)["status"] == 202


def test_the_latest_finished_check_decides(client: TestClient) -> None:
    _check(client, runs=1, launch=True)
    assert _upload(client, 1)["status"] == 202
    failed = _check(client, runs=1, launch=False, seeds=(9,))
    refused = _upload(client, 2)
    assert refused["status"] == 409 and failed in str(refused["detail"])
    _check(client, runs=1, launch=None, seeds=(10,))  # still queued: the failed verdict stands
    assert _gate(client)["state"] == "failed" and _upload(client, 2)["status"] == 409


def test_an_operator_forces_it_open_with_a_reason_that_is_shown(client: TestClient) -> None:
    agent = {"X-API-Key": agent_key(client, "alice")}
    why = {"reason": "reference flaky on the CI sandbox; checked by hand on 2026-12-03"}
    assert client.post(f"{BASE}/force-open", headers=agent, json=why).status_code == 403
    assert client.post(f"{BASE}/force-open", json=why).status_code == 401
    too_short = ({"reason": "x"}, {"reason": "because"}, {"reason": "flaky-reference"}, {"reason": "1234 5678 9012"})
    for body in ({}, {"reason": ""}, {"reason": "   "}, {"reason": "x", "by": "someone"}, *too_short):
        r = client.post(f"{BASE}/force-open", headers=OP, json=body)
        assert r.status_code == 422, (body, r.text)
    assert client.post("/api/v1/challenges/nope/force-open", headers=OP, json=why).status_code == 404
    assert _upload(client)["status"] == 409

    failed = _check(client, runs=1, launch=False)
    r = client.post(f"{BASE}/force-open", headers=OP, json=why)
    assert r.status_code == 200 and r.json()["open"] is True
    gate = r.json()["launch_gate"]
    assert gate["state"] == "forced" and gate["check"]["id"] == failed
    assert gate["forced"]["by"] == "operator (bootstrap)" and gate["forced"]["reason"] == why["reason"]
    assert gate["forced"]["at"].endswith("Z") or gate["forced"]["at"].endswith("+00:00")
    assert _upload(client)["status"] == 202

    page = client.get("/challenges/inventory-ledger").text
    assert "open to submissions" in page and "forced by operator (bootstrap): " + why["reason"] in page
    assert "refused the launch" in page and failed[:12] in page
    index = client.get("/").text
    assert "forced" in index

    # The force holds for the version it was given on: a changed challenge is closed again.
    assert client.delete(f"{BASE}/force-open", headers=agent).status_code == 403
    r = client.delete(f"{BASE}/force-open", headers=OP)
    assert r.status_code == 200 and r.json()["open"] is False and r.json()["launch_gate"]["forced"] is None
    assert _upload(client, 2)["status"] == 409


def test_a_new_version_is_closed_until_it_is_checked_or_forced(client: TestClient, tmp_path: Path) -> None:
    _check(client, runs=1, launch=True)
    client.post(f"{BASE}/force-open", headers=OP, json={"reason": "both"})
    assert _upload(client, 1)["status"] == 202
    changed = tmp_path / "inventory-ledger"
    shutil.copytree(CHALLENGE, changed, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    (changed / "NOTES.txt").write_text("a changed challenge is a new version\n")
    r = client.post("/api/v1/challenges", headers=OP, json={"path": str(changed)})
    assert r.status_code == 201 and r.json()["versions"] == 2
    assert r.json()["open"] is False and r.json()["launch_gate"]["state"] == "unchecked"
    assert r.json()["launch_gate"]["forced"] is None and _upload(client, 2)["status"] == 409
    _check(client, runs=1, launch=True)
    assert _upload(client, 2)["status"] == 202


def test_the_operators_switch_still_closes_an_open_challenge(client: TestClient) -> None:
    _check(client, runs=1, launch=True)
    r = client.patch(BASE, headers=OP, json={"active": False})
    assert r.status_code == 200 and r.json()["open"] is False and r.json()["launch_gate"]["open"] is True
    refused = _upload(client)
    assert refused["status"] == 409 and "is not accepting submissions" in str(refused["detail"])
    assert "closed" in client.get("/challenges/inventory-ledger").text
