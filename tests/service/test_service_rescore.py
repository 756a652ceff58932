"""Re-scores: an operator re-scores a scored submission through the queue (after a challenge fix);
the new scorecard becomes current and moves the leaderboard, the old one stays readable, and the
trail says who, when, why, before and after. A review decision still stands over a re-score;
an infrastructure failure leaves the current scorecard alone; agents may not re-score."""

from __future__ import annotations

import shutil
from pathlib import Path

from fastapi.testclient import TestClient
from service_helpers import (
    CHALLENGE,
    OPERATOR_KEY,
    IdleDispatcher,
    agent_key,
    force_open,
    tiny_submission,
    wait_job,
    wait_terminal,
)
from service_web_helpers import card, decide_review, seed

from bouts.models.scorecard import Scorecard
from bouts.pipeline import ScoreConfig
from bouts.service.api import create_app
from bouts.service.challenges import register_challenge
from bouts.service.config import ServiceSettings
from bouts.service.fakes import instant_scorer
from bouts.service.rescoring import request_rescore, run_rescore_job
from bouts.service.storage import Repository, open_repository

OP = {"X-API-Key": OPERATOR_KEY}
BOARD = "/api/v1/challenges/inventory-ledger/leaderboard"
MOVE = ("before_version", "before_final", "after_version", "after_final")


def _scored(client: TestClient, agent: str, **extra: str) -> tuple[str, str]:
    """(submission id, the agent's key) of a freshly scored upload."""
    key = agent_key(client, agent)
    r = client.post("/api/v1/challenges/inventory-ledger/submissions", headers={"X-API-Key": key},
                    files={"archive": ("s.tar.gz", tiny_submission(agent, **extra), "application/gzip")})  # fmt: skip
    assert r.status_code == 202, r.text
    assert wait_terminal(client, r.json()["id"], key)["state"] == "scored"
    return r.json()["id"], key


def _fixed_challenge(tmp_path: Path, bonus: int) -> Path:
    """The example challenge, changed (the fake scorer adds FAKE_BONUS to every final)."""
    fixed = tmp_path / "inventory-ledger-fixed"
    shutil.copytree(CHALLENGE, fixed, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    (fixed / "FAKE_BONUS").write_text(str(bonus))
    return fixed


def _rescore(client: TestClient, sid: str, reason: str, **body: str) -> dict[str, object]:
    r = client.post(f"/api/v1/submissions/{sid}/rescores", headers=OP, json={"reason": reason, **body})
    assert r.status_code == 202, r.text
    return wait_job(client, f"/api/v1/rescores/{r.json()['id']}", OPERATOR_KEY)


def test_rescore_after_a_challenge_fix_moves_the_leaderboard_and_keeps_history(client: TestClient,
                                                                               tmp_path: Path) -> None:  # fmt: skip
    sid, alice = _scored(client, "alice")
    before = client.get(f"/api/v1/submissions/{sid}/scorecard").json()
    assert before["version"] == 1 and client.get(BOARD).json()["standings"][0]["final"] == before["scorecard"]["final"]
    r = client.post("/api/v1/challenges", headers=OP, json={"path": str(_fixed_challenge(tmp_path, 30))})
    assert r.status_code == 201 and r.json()["versions"] == 2
    fixed_hash = r.json()["content_hash"]

    done = _rescore(client, sid, "hidden test test_scale expected the wrong total; fixed")
    old = before["scorecard"]["final"]
    assert done["state"] == "done" and done["challenge_hash"] == fixed_hash
    assert [done[k] for k in MOVE] == [1, old, 2, old + 30]
    assert done["requested_by"] == "operator (bootstrap)" and done["review_score"] is None
    assert done["created_at"] and done["finished_at"]

    # The leaderboard shows the current score; the old scorecard stays, the new one says why it exists.
    (row,) = client.get(BOARD).json()["standings"]
    assert row["final"] == old + 30 and row["history"] == [old + 30]
    current = client.get(f"/api/v1/submissions/{sid}/scorecard").json()
    assert current["version"] == 2 and current["reason"].startswith("hidden test test_scale")
    assert client.get(str(done["scorecard_url"])).json()["version"] == 2
    assert client.get(f"/api/v1/submissions/{sid}/scorecard?version=1").json()["scorecard"]["final"] == old
    assert client.get(f"/api/v1/submissions/{sid}", headers=OP).json()["final"] == old + 30

    # Against the version it was submitted to: back to the first score, and the trail has both.
    again = _rescore(client, sid, "appeal: the fix should not apply to earlier submissions",
                     challenge_version="submitted")  # fmt: skip
    submitted = client.get(f"/api/v1/submissions/{sid}", headers=OP).json()["challenge_hash"]
    assert again["challenge_hash"] == submitted != fixed_hash
    assert [again[k] for k in MOVE] == [2, old + 30, 3, old]
    trail = client.get(f"/api/v1/submissions/{sid}/rescores", headers={"X-API-Key": alice}).json()  # its agent reads it
    assert [t["id"] for t in trail] == [done["id"], again["id"]]
    assert client.get(BOARD).json()["standings"][0]["final"] == old


def test_agents_may_not_rescore_and_read_only_their_own_trail(client: TestClient) -> None:
    sid, alice = _scored(client, "alice")
    bob = agent_key(client, "bob")
    body = {"reason": "I want a better score"}
    refused = client.post(f"/api/v1/submissions/{sid}/rescores", headers={"X-API-Key": alice}, json=body)
    assert refused.status_code == 403 and "operator" in refused.json()["detail"] and "Traceback" not in refused.text
    assert client.post(f"/api/v1/submissions/{sid}/rescores", json=body).status_code == 401
    done = _rescore(client, sid, "engine fix")
    assert client.get(f"/api/v1/submissions/{sid}/rescores", headers={"X-API-Key": bob}).status_code == 404
    assert client.get(f"/api/v1/rescores/{done['id']}", headers={"X-API-Key": bob}).status_code == 404
    assert client.get(f"/api/v1/rescores/{done['id']}", headers={"X-API-Key": alice}).json()["state"] == "done"
    assert client.get(f"/api/v1/rescores/{done['id']}").status_code == 401
    # the request names its field
    empty = client.post(f"/api/v1/submissions/{sid}/rescores", headers=OP, json={"reason": ""})
    assert empty.status_code == 422 and "reason" in str(empty.json()["detail"])
    missing = client.post(f"/api/v1/submissions/{'0' * 32}/rescores", headers=OP, json=body)
    assert missing.status_code == 404 and missing.json()["field"] == "submission_id"


def test_a_review_decision_still_stands_over_a_rescore(client: TestClient) -> None:
    repo: Repository = client.app.state.ctx.repo  # type: ignore[attr-defined]
    sid, _ = _scored(client, "frank", **{"code/DIVERGE": ""})
    stored = repo.submissions.scorecard(sid)
    assert stored is not None
    decide_review(repo, Scorecard.model_validate(stored.card), 12, reason="tests were gamed")
    assert client.get(BOARD).json()["standings"][0]["final"] == 12
    done = _rescore(client, sid, "engine fix")
    assert done["state"] == "done" and done["review_score"] == 12 and done["after_version"] == 2
    assert client.get(BOARD).json()["standings"][0]["final"] == 12  # a person's ruling is not overturned by a re-run



def test_one_rescore_at_a_time_and_only_of_scored_submissions(tmp_path: Path) -> None:
    settings = ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY)
    with TestClient(create_app(settings, dispatcher=IdleDispatcher())) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=OP)
        force_open(client)
        repo: Repository = client.app.state.ctx.repo  # type: ignore[attr-defined]
        sid = seed(repo, card("carol", 1, 40))
        url = f"/api/v1/submissions/{sid}/rescores"
        assert client.post(url, headers=OP, json={"reason": "first"}).status_code == 202
        busy = client.post(url, headers=OP, json={"reason": "second"})
        assert busy.status_code == 409 and busy.json()["field"] == "submission_id" and "queued" in busy.json()["detail"]
        queued = client.post("/api/v1/challenges/inventory-ledger/submissions", headers=OP,
                             files={"archive": ("s.tar.gz", tiny_submission("dave"), "application/gzip")})  # fmt: skip
        unscored = client.post(f"/api/v1/submissions/{queued.json()['id']}/rescores", headers=OP, json={"reason": "x"})
        assert unscored.status_code == 409 and "only a scored submission" in unscored.json()["detail"]


def test_infrastructure_failures_leave_the_current_scorecard(tmp_path: Path) -> None:
    """Retried, then failed_infra; never a new version; a stale claim writes nothing."""
    repo = open_repository(f"sqlite:///{tmp_path / 'db.sqlite'}")
    try:
        register_challenge(repo, tmp_path / "data", CHALLENGE, by="test")
        archive = tmp_path / "s.tar.gz"
        archive.write_bytes(tiny_submission("erin"))
        sid = seed(repo, card("erin", 1, 40))
        with repo.engine.begin() as conn:  # the seeded submission gets a real archive to score again
            conn.exec_driver_sql("UPDATE submissions SET archive_path = ? WHERE id = ?", (str(archive), sid))

        def broken(challenge: Path, submission: Path, config: ScoreConfig):  # type: ignore[no-untyped-def]
            return instant_scorer(challenge, submission, config).model_copy(update={"infra_error": "bwrap died"})

        job = request_rescore(repo, sid, reason="appeal", current_challenge=True, by="ops")
        kinds = [run_rescore_job(repo, job.id, scorer=broken, config=ScoreConfig(), max_attempts=2).kind
                 for _ in range(3)]  # fmt: skip
        assert kinds == ["retry", "failed_infra", "skipped"]
        failed = repo.rescores.get(job.id)
        assert failed and failed.state == "failed_infra" and failed.last_error == "bwrap died"
        assert failed.after_version is None and [s.version for s in repo.submissions.scorecard_history(sid)] == [1]

        job = request_rescore(repo, sid, reason="appeal, again", current_challenge=True, by="ops")
        first, second = repo.rescores.claim(job.id), repo.rescores.claim(job.id)  # a redelivered task
        assert first and second
        new = instant_scorer(Path(second.job.challenge_path), archive, ScoreConfig())
        assert repo.rescores.complete(first, new) is False and repo.rescores.complete(second, new) is True
        assert [s.version for s in repo.submissions.scorecard_history(sid)] == [1, 2]
        assert [r.state for r in repo.rescores.list(sid)] == ["failed_infra", "done"]
    finally:
        repo.close()
