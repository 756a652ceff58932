"""Roles, keys, rate limits, security headers and 500s without traces."""

from __future__ import annotations

from fastapi.testclient import TestClient
from service_helpers import CHALLENGE, OPERATOR_KEY, MakeClient, agent_key, tiny_submission, wait_terminal

from bouts.service.api.middleware import SECURITY_HEADERS

SUBMIT = "/api/v1/challenges/inventory-ledger/submissions"


def _upload(client: TestClient, key: str | None, data: bytes, name: str = "s.tar.gz") -> object:
    headers = {"X-API-Key": key} if key else {}
    return client.post(SUBMIT, headers=headers, files={"archive": (name, data, "application/gzip")})


def test_agent_cannot_manage_challenges_or_keys(client: TestClient) -> None:
    key = agent_key(client, "alice")
    h = {"X-API-Key": key}
    assert client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=h).status_code == 403
    assert client.patch("/api/v1/challenges/inventory-ledger", json={"active": False}, headers=h).status_code == 403
    assert client.post("/api/v1/keys", json={"role": "operator"}, headers=h).status_code == 403
    assert client.get("/api/v1/flags", headers=h).status_code == 403


def test_public_cannot_submit_and_wrong_keys_are_refused(client: TestClient) -> None:
    assert _upload(client, None, tiny_submission("alice")).status_code == 401  # type: ignore[attr-defined]
    bogus = "bk_" + "1" * 16 + "_not-a-real-secret-at-all"
    assert client.get("/api/v1/whoami", headers={"X-API-Key": bogus}).status_code == 401
    assert client.get("/api/v1/whoami", headers={"Authorization": "Bearer garbage"}).status_code == 401
    assert client.get("/api/v1/whoami").json()["role"] == "public"


def test_agent_submits_only_as_itself_and_reads_only_its_own(client: TestClient) -> None:
    alice, bob = agent_key(client, "alice"), agent_key(client, "bob")
    r = _upload(client, alice, tiny_submission("bob"))
    assert r.status_code == 403 and r.json()["field"].endswith("submission.toml:agent")  # type: ignore[attr-defined]
    r = _upload(client, alice, tiny_submission("alice"))
    sid = r.json()["id"]  # type: ignore[attr-defined]
    assert wait_terminal(client, sid, alice)["state"] == "scored"
    assert client.get(f"/api/v1/submissions/{sid}", headers={"X-API-Key": bob}).status_code == 404
    assert [s["id"] for s in client.get("/api/v1/submissions", headers={"X-API-Key": bob}).json()] == []
    assert client.get(f"/api/v1/submissions/{sid}", headers={"X-API-Key": OPERATOR_KEY}).status_code == 200
    # the public reads scorecards and the leaderboard
    assert client.get(f"/api/v1/submissions/{sid}/scorecard").status_code == 200
    assert client.get("/api/v1/challenges/inventory-ledger/leaderboard").json()["standings"][0]["agent"] == "alice"


def test_revoked_key_stops_working(client: TestClient) -> None:
    r = client.post("/api/v1/keys", json={"role": "agent", "agent": "carol"}, headers={"X-API-Key": OPERATOR_KEY})
    key = r.json()["key"]
    assert client.get("/api/v1/whoami", headers={"X-API-Key": key}).json()["agent"] == "carol"
    key_id = key.split("_")[1]
    assert client.delete(f"/api/v1/keys/{key_id}", headers={"X-API-Key": OPERATOR_KEY}).status_code == 204
    assert client.get("/api/v1/whoami", headers={"X-API-Key": key}).status_code == 401


def test_keys_are_stored_hashed(client: TestClient) -> None:
    key = agent_key(client, "dave")
    repo = client.app.state.ctx.repo  # type: ignore[attr-defined]
    with repo.engine.connect() as conn:
        dump = "\n".join(str(row) for row in conn.exec_driver_sql("SELECT * FROM api_keys"))
    assert key.split("_", 2)[2] not in dump and OPERATOR_KEY.split("_", 2)[2] not in dump
    assert "scrypt$" in dump


def test_rate_limit_per_key(make_client: MakeClient) -> None:
    client = make_client(rate_per_minute=1, rate_burst=3)
    key = agent_key(client, "eve")
    codes = [client.get("/api/v1/whoami", headers={"X-API-Key": key}).status_code for _ in range(5)]
    assert codes[:3] == [200, 200, 200] and codes[3:] == [429, 429]
    limited = client.get("/api/v1/whoami", headers={"X-API-Key": key})
    assert int(limited.headers["retry-after"]) >= 1
    # another caller has its own bucket
    assert client.get("/api/v1/whoami", headers={"X-API-Key": OPERATOR_KEY}).status_code == 200


def test_security_headers_everywhere_and_no_trace_in_500(client: TestClient) -> None:
    @client.app.get("/boom")  # type: ignore[attr-defined]
    def boom() -> None:
        raise RuntimeError("secret internal detail /etc/passwd")

    for path in ("/api/v1/health", "/openapi.json", "/", "/api/v1/nope", "/boom", "/challenges/inventory-ledger"):
        r = client.get(path)
        for header, value in SECURITY_HEADERS.items():
            assert r.headers.get(header) == value, (path, header)
        assert r.headers.get("x-request-id")
    assert client.get("/").status_code == 200 and "inventory-ledger" in client.get("/").text
    assert client.get("/challenges/inventory-ledger").status_code == 200
    r = client.get("/boom")
    assert r.status_code == 500
    assert r.json() == {"detail": "internal server error", "request_id": r.headers["x-request-id"]}
    assert "secret internal detail" not in r.text and "Traceback" not in r.text


def test_review_queue_escalates_and_decides(client: TestClient) -> None:
    """A scorecard with the judge_divergence flag opens a level-1 item; operators escalate and decide it
    (who/when/why/before/after recorded); the decision moves the leaderboard; agents see no queue."""
    key = agent_key(client, "frank")
    sid = _upload(client, key, tiny_submission("frank", **{"code/DIVERGE": ""})).json()["id"]  # type: ignore[attr-defined]
    assert wait_terminal(client, sid, key)["state"] == "scored"
    h = {"X-API-Key": OPERATOR_KEY}
    assert client.get("/api/v1/reviews", headers={"X-API-Key": key}).status_code == 403
    (item,) = client.get("/api/v1/reviews", headers=h).json()
    assert item["level"] == 1 and item["status"] == "open" and item["version"] == 1
    assert [f["code"] for f in client.get("/api/v1/flags", headers=h).json()] == ["judge_divergence"]
    act = {"item_id": item["id"], "reason": "needs the rubric", "action": "escalate", "expected_version": 1}
    assert client.post("/api/v1/reviews/decisions", headers=h, json=act).json()["level"] == 2
    stale = client.post("/api/v1/reviews/decisions", headers=h, json=act)  # decided on version 1 again
    assert stale.status_code == 409 and stale.json()["field"] == "expected_version"
    decide = {"item_id": item["id"], "reason": "tests were gamed", "action": "decide", "score": 12,
              "expected_version": 2}  # fmt: skip
    decided = client.post("/api/v1/reviews/decisions", headers=h, json=decide).json()
    last = decided["item"]["history"][-1]
    assert decided["status"] == "decided" and last["before"] == item["original"] and last["after"] == 12
    assert last["actor"] == "operator (bootstrap)" and last["reason"] == "tests were gamed"
    assert client.get("/api/v1/challenges/inventory-ledger/leaderboard").json()["standings"][0]["final"] == 12
    repo = client.app.state.ctx.repo  # type: ignore[attr-defined]
    with repo.engine.connect() as conn:
        kinds = [r[0] for r in conn.exec_driver_sql("SELECT kind FROM review_events ORDER BY seq")]
    assert kinds == ["opened", "escalated", "decided"]


def test_review_page_form_decides_level_3_with_its_outcome(client: TestClient) -> None:
    """Level 3 (human arbitration) is decided through the page's form only with an outcome (seed 002:
    both valid / rubric fixed / judge bug); the form offers the three, a decision without one is refused
    with the field named, and the recorded outcome shows in the item's history."""
    key = agent_key(client, "grace")
    sid = _upload(client, key, tiny_submission("grace", **{"code/DIVERGE": ""})).json()["id"]  # type: ignore[attr-defined]
    assert wait_terminal(client, sid, key)["state"] == "scored"
    h = {"X-API-Key": OPERATOR_KEY}
    (item,) = client.get("/api/v1/reviews", headers=h).json()
    for version in (1, 2):  # 1 -> 2 -> 3
        act = {"item_id": item["id"], "reason": "up", "action": "escalate", "expected_version": version}
        assert client.post("/api/v1/reviews/decisions", headers=h, json=act).status_code == 200
    page = client.post("/reviews", data={"key": OPERATOR_KEY}, headers={"Accept": "text/html"})
    assert page.status_code == 200
    assert 'name="outcome"' in page.text and 'value="judge_bug"' in page.text
    form = {"item_id": item["id"], "action": "decide", "reason": "the judge misread the rubric",
            "expected_version": "3", "score": "40", "key": OPERATOR_KEY}  # fmt: skip
    refused = client.post("/reviews/decisions", data=form, headers={"Accept": "application/json"})
    assert refused.status_code == 422 and "outcome" in refused.text
    done = client.post("/reviews/decisions", data={**form, "outcome": "judge_bug", "status": "all"},
                       headers={"Accept": "text/html"})  # fmt: skip
    assert done.status_code == 200 and "(judge_bug)" in done.text
    (decided,) = client.get("/api/v1/reviews", headers=h, params={"status": "decided"}).json()
    assert decided["item"]["history"][-1]["outcome"] == "judge_bug"
