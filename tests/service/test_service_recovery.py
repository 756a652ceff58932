"""A restart loses nothing: submissions accepted but not scored when the server stopped (its
dispatcher never ran them) are scored by the next start's recovery."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from service_helpers import CHALLENGE, OPERATOR_KEY, IdleDispatcher, force_open, tiny_submission, wait_terminal

from bouts.pipeline import ScoreConfig
from bouts.service.api import create_app
from bouts.service.config import ServiceSettings
from bouts.service.dispatch import LocalPoolDispatcher
from bouts.service.fakes import instant_scorer
from bouts.service.jobs import JobOutcome, run_job
from bouts.service.recovery import Reaper
from bouts.service.storage import open_repository


class _DeadDispatcher:
    """Accepts jobs and runs none: a server that died right after answering 202."""

    name = "dead"

    def enqueue(self, submission_id: str) -> None:
        pass

    def close(self) -> None:
        pass


def test_unfinished_submissions_are_scored_after_a_restart(tmp_path: Path) -> None:
    settings = ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY, local_workers=1)
    with TestClient(create_app(settings, dispatcher=_DeadDispatcher())) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers={"X-API-Key": OPERATOR_KEY})
        force_open(client)
        ids = [
            client.post("/api/v1/challenges/inventory-ledger/submissions", headers={"X-API-Key": OPERATOR_KEY},
                        files={"archive": ("s.tar.gz", tiny_submission("a", i), "application/gzip")}).json()["id"]
            for i in (1, 2)
        ]  # fmt: skip
        # one of them had even been claimed by a worker that then died
        assert client.app.state.ctx.repo.submissions.claim(ids[1]) is not None  # type: ignore[attr-defined]
    with TestClient(create_app(settings, scorer=instant_scorer)) as client:
        states = [wait_terminal(client, sid, OPERATOR_KEY, timeout=60)["state"] for sid in ids]
    assert states == ["scored", "scored"]


@pytest.mark.slow_io  # kills or outwaits a worker and starts the pool again: seconds
def test_local_pool_process_killed_mid_score_is_redone_once(tmp_path: Path) -> None:
    """The embedded default: a pool process SIGKILLed while scoring breaks the pool; the dispatcher
    starts a new one and the job is redone (attempt 2), scored once."""
    settings = ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY, local_workers=1,
                               retry_backoff_s=0.05)  # fmt: skip
    with TestClient(create_app(settings, scorer=instant_scorer)) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers={"X-API-Key": OPERATOR_KEY})
        force_open(client)
        upload = {"archive": ("s.tar.gz", tiny_submission("a", **{"code/KILL_WORKER": ""}), "application/gzip")}
        sid = client.post("/api/v1/challenges/inventory-ledger/submissions", headers={"X-API-Key": OPERATOR_KEY},
                          files=upload).json()["id"]  # fmt: skip
        done = wait_terminal(client, sid, OPERATOR_KEY, timeout=60)
        assert done["state"] == "scored" and done["attempt"] == 2
        history = client.app.state.ctx.repo.submissions.scorecard_history(sid)  # type: ignore[attr-defined]
        assert [s.version for s in history] == [1]


def test_a_job_the_broker_refused_is_published_again_until_it_is_taken(tmp_path: Path) -> None:
    import time

    from bouts.service.publish import CeleryDispatcher

    # An unreachable broker: nothing connects until a task is sent, and sending is replaced below.
    settings = ServiceSettings(data_dir=tmp_path / "data", broker_url="redis://127.0.0.1:1/0")
    dispatcher = CeleryDispatcher(settings)
    dispatcher._delay = 0.05  # the backoff starts at 1 s; the test need not wait for it
    sent: list[tuple[str, str]] = []
    failures = {"left": 3}

    def publish(kind: str, job_id: str, priority: int = 0) -> None:
        if failures["left"]:
            failures["left"] -= 1
            raise ConnectionError("broker down")
        sent.append((kind, job_id))

    dispatcher._publish = publish  # type: ignore[method-assign]
    try:
        dispatcher.enqueue("job-1")  # must not raise: the job is stored queued and retried
        dispatcher.enqueue("job-2", "check")
        assert dispatcher.unsent == [("score", "job-1"), ("check", "job-2")]
        deadline = time.monotonic() + 10
        while dispatcher.unsent and time.monotonic() < deadline:
            time.sleep(0.05)
        assert dispatcher.unsent == [] and sent == [("score", "job-1"), ("check", "job-2")]
        dispatcher.enqueue("job-3", "rescore")  # the broker is back: published at once
        assert sent[-1] == ("rescore", "job-3") and dispatcher.unsent == []
    finally:
        dispatcher.close()


def _upload(client: TestClient, agent: str, iteration: int, **extra: str) -> str:
    upload = {"archive": ("s.tar.gz", tiny_submission(agent, iteration, **extra), "application/gzip")}
    r = client.post("/api/v1/challenges/inventory-ledger/submissions", headers={"X-API-Key": OPERATOR_KEY},
                    files=upload)  # fmt: skip
    assert r.status_code == 202, r.text
    return str(r.json()["id"])


@pytest.mark.slow_io  # kills or outwaits a worker and starts the pool again: seconds
def test_a_job_whose_pool_process_died_keeps_its_place_in_the_backlog(tmp_path: Path) -> None:
    """One pool process, a backlog behind the first job; the first job's process is SIGKILLed: the
    job is handed back and runs again before anything that arrived after it (it used to go to the
    back of the queue, shown ``running`` all the while)."""
    settings = ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY, local_workers=1,
                               retry_backoff_s=0.05)  # fmt: skip
    repo = open_repository(settings.database_url)
    with TestClient(create_app(settings, repo=repo, dispatcher=IdleDispatcher())) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers={"X-API-Key": OPERATOR_KEY})
        force_open(client)
        ids = [_upload(client, "a", 1, **{"code/KILL_WORKER": ""})] + [_upload(client, "b", i) for i in (1, 2, 3)]
    with TestClient(create_app(settings, repo=repo, scorer=instant_scorer)) as client:
        done = [wait_terminal(client, sid, OPERATOR_KEY, timeout=120) for sid in ids]
    assert [(d["state"], d["attempt"]) for d in done] == [("scored", 2), ("scored", 1), ("scored", 1), ("scored", 1)]
    first = repo.submissions.get(ids[0])
    assert all(first.finished_at <= repo.submissions.get(sid).started_at for sid in ids[1:])
    assert [s.version for s in repo.submissions.scorecard_history(ids[0])] == [1]


@pytest.mark.slow_io  # kills or outwaits a worker and starts the pool again: seconds
def test_a_job_whose_worker_vanished_is_handed_back_when_its_lease_runs_out(tmp_path: Path) -> None:
    """A worker claimed the job and then vanished with its machine (no heartbeat, no error, nothing
    for the broker to notice for an hour): the recovery pass hands the job back after the lease and
    it is scored once, by attempt 2."""
    settings = ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY, local_workers=1, lease_s=1.0)
    repo = open_repository(settings.database_url)
    with TestClient(create_app(settings, repo=repo, dispatcher=IdleDispatcher())) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers={"X-API-Key": OPERATOR_KEY})
        force_open(client)
        sid = _upload(client, "a", 1)
        assert repo.submissions.claim(sid, lease_s=settings.lease_s) is not None  # the worker that vanishes
        assert repo.submissions.claim(sid, lease_s=settings.lease_s) is None  # its lease is alive: no double run
        dispatcher = LocalPoolDispatcher(settings, repo, instant_scorer)
        reaper = Reaper(repo, dispatcher, settings.lease_s).start()
        try:
            done = wait_terminal(client, sid, OPERATOR_KEY, timeout=120)
        finally:
            reaper.stop()
            dispatcher.close()
    assert (done["state"], done["attempt"]) == ("scored", 2)
    assert [s.version for s in repo.submissions.scorecard_history(sid)] == [1]


def test_a_job_that_keeps_killing_its_worker_ends_failed_infra(tmp_path: Path) -> None:
    """Each attempt's worker died before recording anything (the claim count grew, nothing else): a
    claim past the retry budget ends the job ``failed_infra`` instead of running it once more."""
    settings = ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY, max_retries=2)
    repo = open_repository(settings.database_url)
    with TestClient(create_app(settings, repo=repo, dispatcher=IdleDispatcher())) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers={"X-API-Key": OPERATOR_KEY})
        force_open(client)
        sid = _upload(client, "a", 1)
    for _ in range(settings.max_retries + 1):
        assert repo.submissions.claim(sid) is not None
    outcome = run_job(repo, sid, scorer=instant_scorer, config=ScoreConfig(), max_attempts=settings.max_retries + 1)
    assert outcome.kind == "failed_infra" and "lost its worker" in (outcome.error or "")
    assert repo.submissions.get(sid).state == "failed_infra" and repo.submissions.scorecard(sid) is None


@pytest.mark.redis
def test_api_start_publishes_only_what_the_broker_lost(tmp_path: Path, redis_url: str) -> None:
    """Every start used to publish every queued job again (the Redis list grew 165 → 328 → 506).
    Now a start publishes only the queued jobs the broker does not hold: none after a plain
    restart, all of them after the broker lost its data."""
    import redis

    settings = ServiceSettings(data_dir=tmp_path / "data", broker_url=redis_url, operator_key=OPERATOR_KEY,
                               queue=f"bouts-test-{uuid.uuid4().hex[:8]}")  # fmt: skip
    broker = redis.Redis.from_url(redis_url)

    def held() -> int:
        return sum(int(broker.llen(k)) for k in broker.keys(f"{settings.queue}*") if broker.type(k) == b"list")

    try:
        with TestClient(create_app(settings)) as client:
            client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers={"X-API-Key": OPERATOR_KEY})
            force_open(client)
            for i in (1, 2, 3):
                _upload(client, "a", i)
        assert held() == 3
        for _ in range(2):
            with TestClient(create_app(settings)):
                pass
            assert held() == 3
        broker.delete(*broker.keys(f"{settings.queue}*"))  # the broker restarted empty
        with TestClient(create_app(settings)):
            pass
        assert held() == 3
    finally:
        keys = broker.keys(f"{settings.queue}*")
        if keys:
            broker.delete(*keys)
        broker.close()


def test_a_job_over_before_its_callback_is_added_does_not_deadlock_the_dispatcher(tmp_path: Path) -> None:
    """A future can be done by the time ``add_done_callback`` runs (an instant job): the callback then
    runs at once on the submitting thread, which holds the dispatcher's lock. It once took that lock
    again and hung every upload and the interpreter's exit (the 500-upload load test)."""
    import threading
    from concurrent.futures import Future

    class DonePool:
        def submit(self, *args: object) -> Future[object]:
            future: Future[object] = Future()
            future.set_result(JobOutcome("scored"))  # already over
            return future

    settings = ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY, local_workers=1)
    settings.data_dir.mkdir(parents=True)
    repo = open_repository(settings.database_url)
    dispatcher = LocalPoolDispatcher(settings, repo, instant_scorer)
    dispatcher._pool.shutdown()
    dispatcher._pool = DonePool()  # type: ignore[assignment]
    enqueued = threading.Thread(target=dispatcher.enqueue, args=(str(uuid.uuid4()),), daemon=True)
    enqueued.start()
    enqueued.join(timeout=30)
    assert not enqueued.is_alive(), "enqueue deadlocked on its own lock"
