"""A restart loses nothing: submissions accepted but not scored when the server stopped (its
dispatcher never ran them) are scored by the next start's recovery."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from service_helpers import CHALLENGE, OPERATOR_KEY, tiny_submission, wait_terminal

from bouts.service.api import create_app
from bouts.service.config import ServiceSettings
from bouts.service.fakes import instant_scorer


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


def test_local_pool_process_killed_mid_score_is_redone_once(tmp_path: Path) -> None:
    """The embedded default: a pool process SIGKILLed while scoring breaks the pool; the dispatcher
    starts a new one and the job is redone (attempt 2), scored once."""
    settings = ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY, local_workers=1,
                               retry_backoff_s=0.05)  # fmt: skip
    with TestClient(create_app(settings, scorer=instant_scorer)) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers={"X-API-Key": OPERATOR_KEY})
        upload = {"archive": ("s.tar.gz", tiny_submission("a", **{"code/KILL_WORKER": ""}), "application/gzip")}
        sid = client.post("/api/v1/challenges/inventory-ledger/submissions", headers={"X-API-Key": OPERATOR_KEY},
                          files=upload).json()["id"]  # fmt: skip
        done = wait_terminal(client, sid, OPERATOR_KEY, timeout=60)
        assert done["state"] == "scored" and done["attempt"] == 2
        history = client.app.state.ctx.repo.submissions.scorecard_history(sid)  # type: ignore[attr-defined]
        assert [s.version for s in history] == [1]


def test_a_job_the_broker_refused_is_published_again_until_it_is_taken(tmp_path: Path) -> None:
    import time

    from bouts.service.dispatch import CeleryDispatcher

    # An unreachable broker: nothing connects until a task is sent, and sending is replaced below.
    settings = ServiceSettings(data_dir=tmp_path / "data", broker_url="redis://127.0.0.1:1/0")
    dispatcher = CeleryDispatcher(settings)
    dispatcher._delay = 0.05  # the backoff starts at 1 s; the test need not wait for it
    sent: list[tuple[str, str]] = []
    failures = {"left": 3}

    def publish(kind: str, job_id: str) -> None:
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
