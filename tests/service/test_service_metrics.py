"""``GET /metrics`` (Prometheus text format) and the JSON log lines with the request id (issue 41)."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from service_helpers import (
    CHALLENGE,
    OPERATOR_KEY,
    IdleDispatcher,
    MakeClient,
    force_open,
    tiny_submission,
    wait_terminal,
)

from bouts.service import logs
from bouts.service.api import create_app
from bouts.service.config import ServiceSettings

OP = {"X-API-Key": OPERATOR_KEY}


def _scrape(client: TestClient) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    r = client.get("/metrics", headers={"Authorization": f"Bearer {OPERATOR_KEY}"})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(r.text)
        for sample in family.samples
    }


def _value(samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def _upload(client: TestClient, agent: str) -> str:
    files = {"archive": ("s.tar.gz", tiny_submission(agent, 1), "application/gzip")}
    r = client.post("/api/v1/challenges/inventory-ledger/submissions", headers=OP, files=files)
    assert r.status_code == 202, r.text
    return str(r.json()["id"])


def test_metrics_after_ten_scorings_show_their_count_durations_and_the_queue(make_client: MakeClient) -> None:
    client = make_client()
    before = _scrape(client)  # the counters are this process's: other tests' scorings are in them too
    ids = [_upload(client, f"agent-{i}") for i in range(10)]
    assert all(wait_terminal(client, sid, OPERATOR_KEY)["state"] == "scored" for sid in ids)
    after = _scrape(client)

    def delta(name: str, **labels: str) -> float:
        return _value(after, name, **labels) - _value(before, name, **labels)

    assert delta("bouts_job_outcomes_total", kind="score", outcome="scored") == 10
    assert delta("bouts_job_duration_seconds_count", kind="score", outcome="scored") == 10
    assert delta("bouts_job_duration_seconds_sum", kind="score", outcome="scored") > 0
    assert delta("bouts_job_duration_seconds_bucket", kind="score", outcome="scored", le="+Inf") == 10
    assert _value(after, "bouts_jobs", kind="score", state="scored") == 10  # from the database
    assert _value(after, "bouts_queue_depth", kind="score") == 0
    assert ("bouts_queue_depth", frozenset({("kind", "score")})) in after
    assert delta("bouts_http_requests_total", method="POST", route="/api/v1/challenges/{challenge}/submissions",
                 status="202") == 10  # fmt: skip


def test_queue_depth_counts_what_waits_and_metrics_need_an_operator(tmp_path: Path) -> None:
    settings = ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY, rate_burst=1000)
    with TestClient(create_app(settings, dispatcher=IdleDispatcher())) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=OP)
        force_open(client)
        for i in range(3):
            _upload(client, f"waiting-{i}")
        samples = _scrape(client)
        assert _value(samples, "bouts_queue_depth", kind="score") == 3
        assert _value(samples, "bouts_jobs", kind="score", state="queued") == 3
        assert _value(samples, "bouts_queue_oldest_seconds", kind="score") >= 0
        r = client.get("/metrics")
        assert r.status_code == 401 and r.json()["request_id"] == r.headers["x-request-id"]


class _RefusingDispatcher(IdleDispatcher):
    def enqueue(self, job_id: str, kind: str = "score") -> None:
        raise ConnectionError("the broker hung up")


def test_log_lines_are_json_with_the_request_id(tmp_path: Path) -> None:
    """A line logged while a request is answered carries that request's id (the ``X-Request-ID``
    the client got); a line logged outside any request carries none."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.JsonFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    settings = ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY, rate_burst=1000)
    try:
        with TestClient(create_app(settings, dispatcher=_RefusingDispatcher())) as client:
            client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=OP)
            force_open(client)
            files = {"archive": ("s.tar.gz", tiny_submission("logged", 1), "application/gzip")}
            r = client.post("/api/v1/challenges/inventory-ledger/submissions", headers=OP, files=files)
            assert r.status_code == 202  # stored queued; the broker's refusal is logged
            logging.getLogger("bouts.service.api").warning("a line written while no request is answered")
    finally:
        root.removeHandler(handler)
    lines = [json.loads(line) for line in stream.getvalue().splitlines() if line.startswith("{")]
    refused = [line for line in lines if line["message"].startswith("could not enqueue")]
    assert refused and refused[0]["request_id"] == r.headers["x-request-id"]
    assert refused[0]["level"] == "error" and "ConnectionError: the broker hung up" in refused[0]["exc"]
    outside = [line for line in lines if line["message"] == "a line written while no request is answered"]
    assert outside and "request_id" not in outside[0]


def test_llm_tokens_and_cost_are_counted_by_source() -> None:
    from bouts.service import metrics

    def value(name: str, **labels: str) -> float:
        from prometheus_client import REGISTRY

        return REGISTRY.get_sample_value(name, labels) or 0.0

    before = (value("bouts_llm_tokens_total", source="agent", direction="in"),
              value("bouts_llm_cost_usd_total", source="judges"))  # fmt: skip
    usage = metrics.Usage(judges_in=100, judges_out=20, judges_cost_usd=0.25, agent_in=1500, agent_out=300,
                          agent_cost_usd=0.04)  # fmt: skip
    metrics.job_finished("score", "scored", 1.5, usage)
    assert value("bouts_llm_tokens_total", source="agent", direction="in") - before[0] == 1500
    assert value("bouts_llm_cost_usd_total", source="judges") - before[1] == 0.25
    summary = {"usage": {"tokens_in": 7, "tokens_out": 3, "cost_usd": 0.01}}
    assert metrics.Usage.of(None, summary) == metrics.Usage(agent_in=7, agent_out=3, agent_cost_usd=0.01)
