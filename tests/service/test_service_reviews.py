"""The review queue for operators (issue 18, item 6): its page (items, escalation level, every
decision with who and why) and ``bouts review`` against the running service's queue."""

from __future__ import annotations

import html
import json

from fastapi.testclient import TestClient
from service_helpers import OPERATOR_KEY, MakeClient, agent_key, live_server
from service_web_helpers import SCRIPT, card, decide_review, seed
from typer.testing import CliRunner

from bouts.calibration.review import item_id
from bouts.cli.main import app as cli
from bouts.service.storage import Repository

OP = {"X-API-Key": OPERATOR_KEY}


def _repo(client: TestClient) -> Repository:
    return client.app.state.ctx.repo  # type: ignore[attr-defined,no-any-return]


def test_review_page_shows_items_levels_and_decisions_to_operators_only(make_client: MakeClient) -> None:
    client = make_client()
    repo = _repo(client)
    decided = card("alpha", 1, 90, objective=95.0, integrity=20.0, diverge=True)
    seed(repo, decided)
    decide_review(repo, decided, 35.0, reason="tests were special-cased")
    waiting = card(SCRIPT, 1, 80, objective=90.0, integrity=30.0, diverge=True)
    seed(repo, waiting)

    assert client.get("/reviews").status_code == 401
    assert client.get("/reviews", headers={"X-API-Key": agent_key(client, "alpha")}).status_code == 403
    page = client.get("/reviews", headers=OP)
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    text = html.unescape(page.text)
    assert item_id(waiting) in text and item_id(decided) not in text  # open items by default
    assert "<script>" not in page.text and SCRIPT in text  # the agent's name is escaped
    assert "1 (statistical flag)" in text or "level 1" in text
    everything = html.unescape(client.get("/reviews?status=all", headers=OP).text)
    assert item_id(decided) in everything and "tests were special-cased" in everything
    assert "decided" in everything and "→ 35" in everything and "by operator" in everything


def test_bouts_review_works_on_the_service_queue(make_client: MakeClient) -> None:
    """``bouts review list|show|escalate|decide --url`` read and decide the queue the service keeps
    (it used to read only a local file store)."""
    client = make_client()
    repo = _repo(client)
    divergent = card("beta", 1, 88, objective=92.0, integrity=25.0, diverge=True)
    seed(repo, divergent)
    target = item_id(divergent)
    runner = CliRunner()
    with live_server(client.app) as url:
        remote = ["--url", url, "--key", OPERATOR_KEY]
        listed = runner.invoke(cli, ["review", "list", "--json", *remote])
        assert listed.exit_code == 0, listed.output
        assert [i["id"] for i in json.loads(listed.stdout)] == [target]
        up = runner.invoke(cli, ["review", "escalate", target, "--reason", "rubric needed", *remote])
        assert up.exit_code == 0 and "level 2" in up.stdout, up.output
        done = runner.invoke(cli, ["review", "decide", target, "--reason", "confirmed", "--score", "40", *remote])
        assert done.exit_code == 0 and "current score 40" in done.stdout, done.output
        shown = runner.invoke(cli, ["review", "show", target, "--json", *remote])
        assert [e["kind"] for e in json.loads(shown.stdout)["history"]] == ["opened", "escalated", "decided"]
        refused = runner.invoke(cli, ["review", "list", "--url", url, "--key", agent_key(client, "beta")])
        assert refused.exit_code == 2 and "403" in refused.output
    item = repo.reviews.get(target)
    assert item is not None and item.status == "decided" and item.level == 2


def test_a_level_3_decision_through_the_api_records_its_outcome(make_client: MakeClient) -> None:
    """Seed 002's arbitration ends in one of three outcomes; the API takes it as the CLI does, and
    refuses a level-3 decision without one (422, naming the item)."""
    client = make_client()
    repo = _repo(client)
    divergent = card("gamma", 1, 88, objective=92.0, integrity=25.0, diverge=True)
    seed(repo, divergent)
    target = item_id(divergent)
    for version in (1, 2):
        up = client.post("/api/v1/reviews/decisions", headers=OP, json={
            "item_id": target, "action": "escalate", "reason": "up", "expected_version": version})  # fmt: skip
        assert up.status_code == 200, up.text
    body = {"item_id": target, "action": "decide", "reason": "arbitrated", "score": 50, "expected_version": 3}
    refused = client.post("/api/v1/reviews/decisions", headers=OP, json=body)
    assert refused.status_code == 422 and "needs an outcome" in refused.text
    with live_server(client.app) as url:  # the CLI against the service sends the outcome as the API takes it
        remote = ["--url", url, "--key", OPERATOR_KEY]
        done = CliRunner().invoke(cli, ["review", "decide", target, "--reason", "arbitrated", "--score", "50",
                                        "--outcome", "rubric_fixed", *remote])  # fmt: skip
        assert done.exit_code == 0, done.output
    stored = repo.reviews.get(target)
    assert stored is not None and stored.history[-1].outcome == "rubric_fixed"
