"""Agents the service runs itself (``POST /api/v1/challenges/{id}/runs``, docs/agents.md "On the
service"): the request is checked and queued; a worker runs the harness in the sandbox against a
model of the operator's list, the engine records every action, and the scorecard says ``recorded``,
which is what the leaderboard's ``?recorded=true`` view counts. A re-score keeps it recorded."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from service_helpers import CHALLENGE, FIXTURE_FORCE, OPERATOR_KEY, agent_key, tiny_submission, wait_job, wait_terminal

from bouts.errors import InputError
from bouts.service.agent_runs import load_agent_models
from bouts.service.api import create_app
from bouts.service.config import ServiceSettings
from bouts.service.jobs import JobKind, pipeline_scorer

LLM_HELPERS = Path(__file__).resolve().parents[1] / "judges" / "llm"
AGENT_HELPERS = Path(__file__).resolve().parents[1] / "agents"
for helpers in (LLM_HELPERS, AGENT_HELPERS):
    if str(helpers) not in sys.path:
        sys.path.append(str(helpers))

OP = {"X-API-Key": OPERATOR_KEY}


def _models_file(tmp_path: Path, base_url: str = "http://127.0.0.1:9/v1") -> Path:
    path = tmp_path / "agent-models.toml"
    path.write_text(
        "[models.scripted]\n"
        f'base_url = "{base_url}"\nmodel = "scripted-agent"\napi_key_env = "BOUTS_TEST_SVC_AGENT_KEY"\n'
        "price_in = 3\nprice_out = 15\nstep_limit = 20\n",
        encoding="utf-8",
    )
    return path


class _Held:
    """A dispatcher that keeps what it is given: the API's side alone, nothing runs."""

    name = "held"

    def __init__(self) -> None:
        self.jobs: list[tuple[str, JobKind]] = []

    def enqueue(self, job_id: str, kind: JobKind = "score") -> None:
        self.jobs.append((job_id, kind))

    def close(self) -> None:
        pass


@contextlib.contextmanager
def _api(tmp_path: Path, **overrides: object) -> Iterator[tuple[TestClient, _Held]]:
    held = _Held()
    settings = ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY, rate_per_minute=6000,
                               rate_burst=1000, upload_rate_per_minute=6000).with_overrides(**overrides)  # fmt: skip
    with TestClient(create_app(settings, dispatcher=held), raise_server_exceptions=False) as client:
        assert client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=OP).status_code in (200, 201)
        client.app.state.ctx.repo.catalog.force_open("inventory-ledger", by="test fixture", reason=FIXTURE_FORCE)  # type: ignore[attr-defined]
        yield client, held


def test_the_models_file_is_checked_naming_the_file_and_the_field(tmp_path: Path) -> None:
    assert load_agent_models("") == {}
    assert set(load_agent_models(str(_models_file(tmp_path)))) == {"scripted"}
    bad = tmp_path / "bad.toml"
    bad.write_text('[models.x]\nbase_url = "ftp://host"\nmodel = "m"\n', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_agent_models(str(bad))
    assert caught.value.file == str(bad) and caught.value.field == "models.x.base_url"
    unknown = tmp_path / "unknown.toml"
    unknown.write_text('[models.x]\nbase_url = "http://h/v1"\nmodel = "m"\napi_key = "sk-inline"\n', encoding="utf-8")
    with pytest.raises(InputError) as caught:  # a key is never written in the file: only its variable's name
        load_agent_models(str(unknown))
    assert caught.value.field == "models.x.api_key"
    with pytest.raises(InputError) as caught:  # the service does not start on a broken file
        create_app(ServiceSettings(data_dir=tmp_path / "d", agent_models=str(tmp_path / "missing.toml")))
    assert "missing.toml" in caught.value.describe() and "BOUTS_AGENT_MODELS" in caught.value.describe()


def test_a_run_request_is_checked_then_queued_as_a_submission(tmp_path: Path) -> None:
    with _api(tmp_path, agent_models=str(_models_file(tmp_path))) as (client, held):
        _check_and_queue(client, held)


def _check_and_queue(client: TestClient, held: _Held) -> None:
    alice = agent_key(client, "alice")
    url = "/api/v1/challenges/inventory-ledger/runs"

    listed = client.get("/api/v1/agent-models", headers={"X-API-Key": alice}).json()
    assert "mini-swe-agent" in listed["harnesses"]
    assert listed["models"] == [{"name": "scripted", "model": "scripted-agent", "price_in": 3.0, "price_out": 15.0,
                                 "step_limit": 20}]  # the endpoint and its key stay the operator's  # fmt: skip

    r = client.post(url, json={"model": "gpt-9"}, headers={"X-API-Key": alice})
    assert (r.status_code, r.json()["field"]) == (400, "model") and "scripted" in r.json()["detail"]
    r = client.post(url, json={"model": "scripted", "harness": "nope"}, headers={"X-API-Key": alice})
    assert (r.status_code, r.json()["field"]) == (400, "harness")
    r = client.post(url, json={"model": "scripted", "agent": "bob"}, headers={"X-API-Key": alice})
    assert (r.status_code, r.json()["field"]) == (403, "agent")
    r = client.post(url, json={"model": "scripted"}, headers=OP)
    assert (r.status_code, r.json()["field"]) == (400, "agent")
    assert client.post(url, json={"model": "scripted"}).status_code == 401
    assert client.post("/api/v1/challenges/nope/runs", json={"model": "scripted"},
                       headers={"X-API-Key": alice}).status_code == 404  # fmt: skip
    assert held.jobs == []  # nothing refused was queued

    first = client.post(url, json={"model": "scripted"}, headers={"X-API-Key": alice})
    assert first.status_code == 202, first.text
    body = first.json()
    assert (body["agent"], body["iteration"], body["state"]) == ("alice", 1, "queued")
    assert body["run"] == {"harness": "mini-swe-agent", "model": "scripted"}
    # an upload takes the next iteration, and the next run the one after it
    up = client.post(url.replace("/runs", "/submissions"), headers={"X-API-Key": alice},
                     files={"archive": ("s.tar.gz", tiny_submission("alice", 2), "application/gzip")})  # fmt: skip
    assert up.status_code == 202 and up.json()["run"] is None
    assert client.post(url, json={"model": "scripted"}, headers={"X-API-Key": alice}).json()["iteration"] == 3
    taken = client.post(url, json={"model": "scripted", "iteration": 1}, headers={"X-API-Key": alice})
    assert (taken.status_code, taken.json()["field"]) == (409, "iteration")
    assert client.post(url, json={"model": "scripted", "agent": "bob"}, headers=OP).json()["agent"] == "bob"
    assert [kind for _, kind in held.jobs] == ["score"] * 4
    # the stored row names the key's variable, never a key
    stored = client.app.state.ctx.repo.submissions.get(body["id"])  # type: ignore[attr-defined]
    assert stored.run_spec["endpoint"]["api_key_env"] == "BOUTS_TEST_SVC_AGENT_KEY"
    assert "sk-" not in str(stored.run_spec)


def test_without_a_models_file_the_service_runs_no_agent(tmp_path: Path) -> None:
    with _api(tmp_path) as (client, held):
        alice = agent_key(client, "alice")
        r = client.post("/api/v1/challenges/inventory-ledger/runs", json={"model": "any"}, headers={"X-API-Key": alice})
        assert (r.status_code, r.json()["field"]) == (400, "model") and "BOUTS_AGENT_MODELS" in r.json()["detail"]
        assert held.jobs == []


@pytest.mark.sandbox
def test_a_run_the_service_records_counts_on_the_recorded_leaderboard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from llm_fakes import FakeLLMServer
    from scripted import HOSTILE, JUDGES, mini_swe_agent_script

    monkeypatch.setenv("BOUTS_TEST_SVC_AGENT_KEY", "sk-test-service-key")  # the pool's processes inherit it
    with FakeLLMServer(*mini_swe_agent_script(HOSTILE), lifetime_s=600) as server:
        models = _models_file(tmp_path, f"{server.url}/v1")
        settings = ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY, local_workers=1,
                                   judges=",".join(JUDGES), agent_models=str(models),
                                   rate_per_minute=6000, rate_burst=1000, upload_rate_per_minute=6000)  # fmt: skip
        with TestClient(create_app(settings, scorer=pipeline_scorer)) as client:
            client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=OP)
            client.app.state.ctx.repo.catalog.force_open("inventory-ledger", by="test", reason=FIXTURE_FORCE)  # type: ignore[attr-defined]
            alice = agent_key(client, "alice")
            queued = client.post("/api/v1/challenges/inventory-ledger/runs", json={"model": "scripted"},
                                 headers={"X-API-Key": alice}).json()  # fmt: skip
            done = wait_terminal(client, queued["id"], alice, timeout=400)
            assert done["state"] == "scored", done
            card = client.get(f"/api/v1/submissions/{queued['id']}/scorecard", headers=OP).json()["scorecard"]
            assert card["trajectory"]["source"] == "recorded" and card["trajectory"]["recorded_by"] == "bouts"
            assert card["agent"] == "alice"
            # what the sandbox stopped is on the card: the exfiltration and the write to /etc/hosts
            assert card["adjustments"]["exploit_penalties"] == 35
            assert "integrity_bright_line" in {f["code"] for f in card["flags"]}
            # the model saw only the proxy; the real key went from the worker's environment to the endpoint
            assert {r.headers.get("authorization") for r in server.requests} == {"Bearer sk-test-service-key"}

            board = client.get("/api/v1/challenges/inventory-ledger/leaderboard?recorded=true").json()
            assert [row["agent"] for row in board["standings"]] == ["alice"]

            # a re-score scores the same recorded work again, as recorded, with what the sandbox stopped
            r = client.post(f"/api/v1/submissions/{queued['id']}/rescores", json={"reason": "engine fix"}, headers=OP)
            assert r.status_code == 202, r.text
            assert wait_job(client, f"/api/v1/rescores/{r.json()['id']}", OPERATOR_KEY, timeout=300)["state"] == "done"
            again = client.get(f"/api/v1/submissions/{queued['id']}/scorecard", headers=OP).json()
            assert again["version"] == 2
            assert again["scorecard"]["trajectory"]["source"] == "recorded"
            assert again["scorecard"]["adjustments"]["exploit_penalties"] == 35
            run_dir = tmp_path / "data" / "runs" / queued["id"]
            assert (run_dir / "submission" / "trajectory.jsonl").is_file() and (run_dir / "recording.json").is_file()
            summary = json.loads((run_dir / "run.json").read_text())  # the summary bouts run writes
            assert summary["usage"]["requests"] == len(server.requests) and len(summary["stopped"]) == 2
    assert Path("/etc/hosts").read_text().find("pwned") == -1
