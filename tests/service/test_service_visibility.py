"""Hidden tests' names while a challenge is open (issue 18, item 6): agents and the public see how
many held-back tests passed, not which, nor a pre-built adversarial test's failure message, so they
cannot iterate against them; configurable per challenge (``reveal_hidden``); operators see all."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from service_helpers import OPERATOR_KEY, MakeClient, agent_key
from service_web_helpers import card, seed

from bouts.models import scorecard as sc

OP = {"X-API-Key": OPERATOR_KEY}
HIDDEN = "tests/hidden/test_ledger_hidden.py::test_value_swap_keeps_totals"
PREBUILT = "tests/adversarial/test_attacks.py::test_negative_quantity_rejected"
LEAK = "assert ledger.total('sku-7') == 1234"


@pytest.fixture
def scored(make_client: MakeClient) -> tuple[TestClient, str, dict[str, str]]:
    client = make_client()
    base = card("agent-x", 1, 70)
    tests = [*base.tests,
             sc.TestOutcomeModel(id=HIDDEN, suite="hidden", outcome="failed", detail="AssertionError"),
             sc.TestOutcomeModel(id=PREBUILT, suite="adversarial", outcome="failed", detail=LEAK, severity="high")]
    math = [*base.math, f"hidden failed: {HIDDEN}", "test_value_swap_keeps_totals failed in phase 2"]
    sid = seed(client.app.state.ctx.repo, base.model_copy(update={"tests": tests, "math": math}))  # type: ignore[attr-defined]
    return client, sid, {"public": "", "agent": agent_key(client, "agent-x"), "operator": OPERATOR_KEY}


def _card(client: TestClient, sid: str, key: str) -> str:
    r = client.get(f"/api/v1/submissions/{sid}/scorecard", headers={"X-API-Key": key} if key else {})
    assert r.status_code == 200, r.text
    return json.dumps(r.json()["scorecard"])


def test_open_challenge_shows_outcomes_by_label_only(scored: tuple[TestClient, str, dict[str, str]]) -> None:
    client, sid, keys = scored
    for role in ("public", "agent"):
        shown = _card(client, sid, keys[role])
        assert "test_value_swap_keeps_totals" not in shown and "test_negative_quantity_rejected" not in shown, role
        assert LEAK not in shown and "test_scale" not in shown
        tests = json.loads(shown)["tests"]
        assert [(t["id"], t["outcome"]) for t in tests if t["suite"] != "visible"] == [
            ("hidden-1", "failed"), ("hidden-2", "failed"), ("adversarial-1", "failed")]
        assert "hidden failed: hidden-2" in shown and "hidden-2 failed in phase 2" in shown
        page = client.get(f"/submissions/{sid}", headers={"X-API-Key": keys[role]} if keys[role] else {}).text
        assert "test_value_swap_keeps_totals" not in page and LEAK not in page
    operator = _card(client, sid, keys["operator"])
    assert HIDDEN in operator and PREBUILT in operator and LEAK in operator


@pytest.mark.parametrize(("policy", "active", "names_shown"), [
    ("after-close", False, True), ("never", False, False), ("always", True, True), ("after-close", True, False)])
def test_reveal_hidden_is_set_per_challenge(
    scored: tuple[TestClient, str, dict[str, str]], policy: str, active: bool, names_shown: bool
) -> None:  # fmt: skip
    client, sid, keys = scored
    r = client.patch("/api/v1/challenges/inventory-ledger", json={"active": active, "reveal_hidden": policy},
                     headers=OP)  # fmt: skip
    assert r.status_code == 200 and r.json()["reveal_hidden"] == policy and r.json()["active"] is active
    shown = _card(client, sid, keys["agent"])
    assert ("test_value_swap_keeps_totals" in shown) is names_shown
    assert '"detail": "AssertionError"' not in shown  # a hidden test's detail stays the operators' either way
    assert client.patch("/api/v1/challenges/inventory-ledger", json={"reveal_hidden": "sometimes"},
                        headers=OP).status_code == 422  # fmt: skip
