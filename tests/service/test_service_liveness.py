"""Liveness without a broker or a second server (issue 41): a finished scoring whose save failed is
kept and saved by the next attempt instead of being scored again; a recovery pass that lost the
database hands nothing back until the database has answered for a whole lease; a lost queue is
rebuilt hand-backs first. The same on PostgreSQL and Redis with real workers:
``test_service_faults.py``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from service_helpers import CHALLENGE, OPERATOR_KEY, IdleDispatcher, force_open, tiny_submission
from sqlalchemy import update
from sqlalchemy.exc import OperationalError

from bouts.pipeline import ScoreConfig
from bouts.service import jobs
from bouts.service.api import create_app
from bouts.service.config import ServiceSettings
from bouts.service.fakes import instant_scorer
from bouts.service.publish import rebuild_order
from bouts.service.recovery import RecoveryPass
from bouts.service.storage import Repository
from bouts.service.storage.models import SubmissionRow, utcnow

OP = {"X-API-Key": OPERATOR_KEY}


@pytest.fixture
def stored(tmp_path: Path) -> Iterator[tuple[Repository, TestClient]]:
    """An app whose dispatcher runs nothing: the test drives the jobs itself (and its recovery passes:
    the app's own, with an hour's lease, hands nothing back meanwhile)."""
    settings = ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY, rate_burst=1000, lease_s=3600)
    with TestClient(create_app(settings, dispatcher=IdleDispatcher())) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=OP)
        force_open(client)
        yield client.app.state.ctx.repo, client  # type: ignore[attr-defined]


def _upload(client: TestClient, agent: str, **extra: str) -> str:
    files = {"archive": ("s.tar.gz", tiny_submission(agent, 1, **extra), "application/gzip")}
    r = client.post("/api/v1/challenges/inventory-ledger/submissions", headers=OP, files=files)
    assert r.status_code == 202, r.text
    return str(r.json()["id"])


class _Outage:
    """``repo.submissions.complete`` refusing with the driver's error while ``down``."""

    def __init__(self, repo: Repository, monkeypatch: pytest.MonkeyPatch) -> None:
        self.down = True
        self.refused = 0
        real = repo.submissions.complete

        def complete(claim, card):  # type: ignore[no-untyped-def]
            if self.down:
                self.refused += 1
                raise OperationalError("UPDATE submissions", {}, Exception("server closed the connection"))
            return real(claim, card)

        monkeypatch.setattr(repo.submissions, "complete", complete)


def test_a_scoring_whose_save_failed_is_saved_by_the_next_attempt_not_scored_again(
    stored: tuple[Repository, TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, client = stored
    sid = _upload(client, "kept")
    calls: list[Path] = []

    def scorer(challenge: Path, submission: Path, config: ScoreConfig):  # type: ignore[no-untyped-def]
        calls.append(submission)
        return instant_scorer(challenge, submission, config)

    outage = _Outage(repo, monkeypatch)
    monkeypatch.setattr(jobs, "SAVE_PATIENCE_S", 0.0)  # give up at once: the task would be retried
    with pytest.raises(OperationalError):
        jobs.run_job(repo, sid, scorer=scorer, config=ScoreConfig(), max_attempts=4)
    archive = repo.submissions.get(sid).archive_path
    assert Path(f"{archive}.scored.json").is_file()  # the finished scoring is kept
    outage.down = False
    repo.submissions.hand_back([sid], "its worker gave up saving")
    outcome = jobs.run_job(repo, sid, scorer=scorer, config=ScoreConfig(), max_attempts=4)
    assert (outcome.kind, outcome.attempt) == ("scored", 2)
    assert len(calls) == 1  # scored once, saved by the second attempt
    assert [s.version for s in repo.submissions.scorecard_history(sid)] == [1]
    assert not Path(f"{archive}.scored.json").exists()


def test_a_finished_job_keeps_saving_while_the_database_is_away(
    stored: tuple[Repository, TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, client = stored
    sid = _upload(client, "patient")
    outage = _Outage(repo, monkeypatch)
    waits: list[float] = []

    def sleep(seconds: float) -> None:  # the database comes back after the third refusal
        waits.append(seconds)
        outage.down = len(waits) < 3

    monkeypatch.setattr(jobs.time, "sleep", sleep)
    outcome = jobs.run_job(repo, sid, scorer=instant_scorer, config=ScoreConfig(), max_attempts=4)
    assert (outcome.kind, outcome.attempt, outage.refused) == ("scored", 1, 3)
    assert waits == [1.0, 2.0, 4.0]


def test_a_pass_that_lost_the_database_waits_a_lease_before_handing_back(
    stored: tuple[Repository, TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, client = stored
    sid = _upload(client, "outage")
    assert repo.submissions.claim(sid, lease_s=8.0) is not None
    now = [1000.0]
    recovery = RecoveryPass(repo, IdleDispatcher(), lease_s=8.0, clock=lambda: now[0])
    with repo.engine.begin() as conn:  # its heartbeat is older than the lease
        conn.execute(update(SubmissionRow).values(heartbeat_at=utcnow() - timedelta(seconds=30)))
    real = repo.submissions.pending

    def unreachable(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OperationalError("SELECT", {}, Exception("connection refused"))

    monkeypatch.setattr(repo.submissions, "pending", unreachable)
    with pytest.raises(OperationalError):
        recovery.run()
    monkeypatch.setattr(repo.submissions, "pending", real)
    now[0] += 1
    recovery.run()  # the database answers again: the worker may be alive, stamping again soon
    assert repo.submissions.get(sid).state == "running"
    now[0] += 7.9
    recovery.run()
    assert repo.submissions.get(sid).state == "running"
    now[0] += 0.1  # a whole lease of answers and still no heartbeat: its worker is gone
    recovery.run()
    assert (repo.submissions.get(sid).state, repo.submissions.get(sid).attempt) == ("queued", 1)


def test_a_pass_that_never_lost_the_database_hands_back_at_once(stored: tuple[Repository, TestClient]) -> None:
    repo, client = stored
    sid = _upload(client, "dead")
    assert repo.submissions.claim(sid, lease_s=8.0) is not None
    with repo.engine.begin() as conn:
        conn.execute(update(SubmissionRow).values(heartbeat_at=utcnow() - timedelta(seconds=9)))
    RecoveryPass(repo, IdleDispatcher(), lease_s=8.0).run()
    assert repo.submissions.get(sid).state == "queued"


def test_a_lost_queue_is_rebuilt_hand_backs_first_then_oldest_first(stored: tuple[Repository, TestClient]) -> None:
    repo, client = stored
    backlog = [_upload(client, f"backlog-{i}") for i in range(3)]
    handed = _upload(client, "handed-back")  # the newest, but it ran before
    assert repo.submissions.claim(handed) is not None
    repo.submissions.hand_back([handed], "its worker died")
    order = rebuild_order(repo, [("score", i) for i in reversed([*backlog, handed])])
    assert order == [(True, ("score", handed))] + [(False, ("score", b)) for b in backlog]
    assert rebuild_order(repo, [("score", b) for b in backlog], min_age_s=3600) == []  # too young: in flight


def test_leftovers_of_an_interrupted_upload_are_swept_while_the_server_runs(tmp_path: Path) -> None:
    """Issue 41: staged leftovers stayed until a restart. The running server sweeps them (every
    ``orphan_grace_s / 4``, at most 5 minutes apart) once they are older than the grace; a kept
    scoring beside a stored archive is not a leftover."""
    import os
    import time

    settings = ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY, rate_burst=1000, lease_s=3600,
                               orphan_grace_s=4)  # fmt: skip
    with TestClient(create_app(settings, dispatcher=IdleDispatcher())) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=OP)
        force_open(client)
        archive = Path(client.app.state.ctx.repo.submissions.get(_upload(client, "a")).archive_path)  # type: ignore[attr-defined]
        staged = settings.data_dir / "incoming" / ("e" * 32 + ".tar.gz")
        staged.parent.mkdir(parents=True, exist_ok=True)
        staged.write_bytes(b"a crashed upload")
        kept = Path(f"{archive}.scored.json")
        kept.write_text("{}")
        for path in (staged, kept, archive):
            os.utime(path, (1, 1))
        deadline = time.monotonic() + 60
        while staged.exists():
            assert time.monotonic() < deadline, "the staged leftover was never swept"
            time.sleep(0.2)
        assert kept.exists() and archive.exists()
