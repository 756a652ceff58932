"""The vertical slice with real scoring: upload the example's anchors → scored in the local pool →
scorecard → leaderboard. Scoring is real (sandbox included), so only two submissions."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from service_helpers import CHALLENGE, OPERATOR_KEY, MakeClient, agent_key, dir_tar_gz, wait_job, wait_terminal

from bouts.service.api import create_app
from bouts.service.config import ServiceSettings
from bouts.service.jobs import pipeline_scorer

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed (scripts/setup installs it)"),
]


def _anchor(level: str, *, agent: str, iteration: int, elapsed: float) -> bytes:
    toml = f'agent = "{agent}"\nchallenge = "inventory-ledger"\niteration = {iteration}\nelapsed_s = {elapsed}\n'
    return dir_tar_gz(CHALLENGE / "anchors" / level, **{"submission.toml": toml})


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, dict[str, dict[str, object]]]]:
    settings = ServiceSettings(data_dir=tmp_path_factory.mktemp("flow"), operator_key=OPERATOR_KEY, local_workers=2,
                               rate_per_minute=60_000, rate_burst=1000)
    with TestClient(create_app(settings, scorer=pipeline_scorer)) as client:
        r = client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers={"X-API-Key": OPERATOR_KEY})
        assert r.status_code == 201, r.text
        _launch_check(client)
        yield client, _score_anchors(client)


def _launch_check(client: TestClient) -> None:
    """Opened the legitimate way: uploads are refused until a launch check (the reference once, in
    the sandbox) passes on this version."""
    op = {"X-API-Key": OPERATOR_KEY}
    upload = {"archive": ("low.tar.gz", _anchor("low", agent="claude", iteration=1, elapsed=1), "application/gzip")}
    refused = client.post("/api/v1/challenges/inventory-ledger/submissions", headers=op, files=upload)
    assert refused.status_code == 409 and "no launch check" in refused.json()["detail"], refused.text
    r = client.post("/api/v1/challenges/inventory-ledger/checks", headers=op, json={"runs": 1, "anchors": True})
    assert r.status_code == 202, r.text
    done = wait_job(client, f"/api/v1/checks/{r.json()['id']}", OPERATOR_KEY, timeout=600)
    assert done["state"] == "done" and done["launch"] is True, done
    gate = client.get("/api/v1/challenges/inventory-ledger").json()["launch_gate"]
    assert gate["open"] and gate["state"] == "passed" and gate["check"]["id"] == done["id"] and gate["forced"] is None


def _score_anchors(client: TestClient) -> dict[str, dict[str, object]]:
    key = agent_key(client, "claude")
    uploads = {"low": _anchor("low", agent="claude", iteration=1, elapsed=300),
               "high": _anchor("high", agent="claude", iteration=2, elapsed=900)}  # fmt: skip
    ids = {}
    for level, data in uploads.items():
        r = client.post("/api/v1/challenges/inventory-ledger/submissions", headers={"X-API-Key": key},
                        files={"archive": (f"{level}.tar.gz", data, "application/gzip")})  # fmt: skip
        assert r.status_code == 202, r.text
        assert r.json()["state"] in ("queued", "running")
        ids[level] = r.json()["id"]
    return {level: wait_terminal(client, sid, key) for level, sid in ids.items()}


def test_upload_scored_scorecard_leaderboard(scored: tuple[TestClient, dict[str, dict[str, object]]]) -> None:
    client, done = scored
    assert {d["state"] for d in done.values()} == {"scored"}, done
    high = client.get(f"/api/v1/submissions/{done['high']['id']}/scorecard").json()
    card = high["scorecard"]
    assert card["schema"] == "bouts.scorecard/1" and card["agent"] == "claude" and card["iteration"] == 2
    assert card["final"] == done["high"]["final"] and card["final"] > done["low"]["final"]

    board = client.get("/api/v1/challenges/inventory-ledger/leaderboard").json()
    (row,) = board["standings"]
    assert row["agent"] == "claude" and row["final"] == card["final"] and row["iterations"] == 2
    assert row["history"] == [done["low"]["final"], done["high"]["final"]]
    assert row["trajectory"] == f"[{done['low']['final']} → {done['high']['final']}]"
    assert row["shape"] in ("monotonic", "last-jump")


def test_hidden_tests_never_leave_the_server(scored: tuple[TestClient, dict[str, dict[str, object]]]) -> None:
    """Attack: reading hidden tests' source or expected values out of a scorecard."""
    client, done = scored
    hidden_sources = [p.read_text() for p in (CHALLENGE / "tests" / "hidden").rglob("*.py")]
    # Distinctive lines of the hidden tests (asserts with their expected values) must appear nowhere.
    needles = [line.strip() for src in hidden_sources for line in src.splitlines() if line.strip().startswith("assert")]
    assert needles
    for sid in (done["low"]["id"], done["high"]["id"]):
        operator_view = client.get(f"/api/v1/submissions/{sid}/scorecard", headers={"X-API-Key": OPERATOR_KEY})
        public_view = client.get(f"/api/v1/submissions/{sid}/scorecard")
        for view in (operator_view.text, public_view.text):
            assert not [n for n in needles if json.dumps(n)[1:-1] in view]
        hidden = [t for t in public_view.json()["scorecard"]["tests"] if t["suite"] == "hidden"]
        assert hidden and all(t["detail"] == "" for t in hidden)


def test_challenge_snapshot_is_versioned_by_content(make_client: MakeClient, tmp_path: Path) -> None:
    client = make_client()
    first = client.get("/api/v1/challenges/inventory-ledger").json()
    again = client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers={"X-API-Key": OPERATOR_KEY})
    assert again.status_code == 200 and again.json()["content_hash"] == first["content_hash"]
    assert first["versions"] == 1
