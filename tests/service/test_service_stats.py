"""``GET /api/v1/challenges/{challenge}/stats``: ``bouts stats`` over the stored scorecards. Seeded
scorecards with a known objective-vs-integrity correlation: the route's r is scipy's on the same
numbers, the cheating flag is raised from 50 attempts on and not before, anchors' runs are left
out, and nothing of the scorecards' hidden tests comes back."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from scipy import stats as sps
from service_helpers import OPERATOR_KEY
from service_web_helpers import HIDDEN_DETAIL, card, seed

from bouts.calibration import attempt_from_scorecard, summarise
from bouts.models.scorecard import Scorecard
from bouts.service.storage import Repository

STATS = "/api/v1/challenges/inventory-ledger/stats"


def _scores(n: int) -> list[tuple[float, float, float]]:
    """(objective, integrity, process) per attempt: integrity falls as objective rises (r ≈ -0.97)."""
    return [(40.0 + i, 100.0 - 0.8 * (40 + i) + (i * 7) % 5, 50.0 + (i * 13) % 40) for i in range(n)]


def _seed(client: TestClient, n: int) -> list[tuple[float, float, float]]:
    repo: Repository = client.app.state.ctx.repo  # type: ignore[attr-defined]
    rows = _scores(n)
    for i, (objective, integrity, process) in enumerate(rows):
        seed(repo, card(f"agent-{i:03d}", 1, 30 + i, objective=objective, integrity=integrity, process=process))
    return rows


def _pair(report: dict[str, object], a: str, b: str) -> dict[str, object]:
    return next(c for c in report["correlations"] if {c["a"], c["b"]} == {a, b})  # type: ignore[attr-defined,index]


def test_stats_flag_cheating_from_50_attempts(client: TestClient) -> None:
    rows = _seed(client, 60)
    repo: Repository = client.app.state.ctx.repo  # type: ignore[attr-defined]
    seed(repo, card("anchor-high", 1, 99, objective=100, integrity=100))  # an anchor's run: not an attempt
    body = client.get(STATS).json()  # public, as the calibration page
    assert body["scorecards"] == 61 and body["attempts"] == 60 and body["left_out"] == 1 and body["limited"] is None
    report = body["report"]
    assert report["schema"] == "bouts.stats/1" and report["attempts"] == 60 and report["enough"] is True

    expected = sps.pearsonr([r[0] for r in rows], [r[1] for r in rows])
    got = _pair(report, "objective", "integrity")
    assert got["n"] == 60 and got["r"] == pytest.approx(expected.statistic, abs=1e-4) and got["r"] < -0.9
    process = sps.pearsonr([r[0] for r in rows], [r[2] for r in rows])
    assert _pair(report, "objective", "process")["r"] == pytest.approx(process.statistic, abs=1e-4)

    flags = [f for f in report["findings"] if f["level"] == "flag"]
    assert [f["code"] for f in flags] == ["cheating_suspected"]
    assert "agents may be cheating to pass tests" in flags[0]["message"]
    objective = next(c for c in report["components"] if c["component"] == "objective")
    assert objective["mean"] == pytest.approx(sum(r[0] for r in rows) / 60) and sum(objective["histogram"]) == 60
    assert objective["point_biserial"] is not None and objective["top_bottom_gap"] > 0  # it discriminates
    assert sum(report["bands"].values()) == 60

    # The same numbers as bouts stats on the same scorecards (no math of the service's own).
    cards = [Scorecard.model_validate(s.card) for s in repo.submissions.current_scorecards("inventory-ledger")]
    attempts = [attempt_from_scorecard(c) for c in cards if c.agent != "anchor-high"]
    assert report == json.loads(summarise(attempts, challenge="inventory-ledger").to_json())


def test_stats_draw_no_findings_before_50(client: TestClient) -> None:
    _seed(client, 12)
    report = client.get(STATS).json()["report"]
    assert report["enough"] is False and report["needed"] == 38 and report["findings"] == []
    assert _pair(report, "objective", "integrity")["r"] < -0.5  # below the threshold, shown as preliminary only


def test_stats_never_carry_hidden_tests_and_name_unknown_challenges(client: TestClient) -> None:
    _seed(client, 3)
    for key in ({}, {"X-API-Key": OPERATOR_KEY}):
        text = client.get(STATS, headers=key).text
        assert HIDDEN_DETAIL not in text and "tests/hidden" not in text
    missing = client.get("/api/v1/challenges/nope/stats")
    assert missing.status_code == 404 and missing.json()["field"] == "challenge"
    assert client.get(STATS, params={"limit": 0}).status_code == 422
    limited = client.get(STATS, params={"limit": 2}).json()
    assert limited["scorecards"] == 2 and limited["limited"] == 2
