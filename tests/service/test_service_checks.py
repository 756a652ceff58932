"""``bouts check`` through the service: a background job on the registered snapshot, its report the
same ``bouts.check/1`` JSON as ``bouts check --json``, for operators only, hidden tests' source
never in it. One test really runs the reference in the sandbox (marked ``sandbox``)."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from service_helpers import CHALLENGE, OPERATOR_KEY, IdleDispatcher, MakeClient, agent_key, wait_job

from bouts.calibration import CheckConfig, CheckReport, Problem, check_challenge
from bouts.loading import load_challenge
from bouts.service.api import create_app
from bouts.service.calibration import HIDDEN_MARK, hidden_lines, redact_hidden
from bouts.service.config import ServiceSettings
from bouts.service.jobs import pipeline_scorer

CHECKS = "/api/v1/challenges/inventory-ledger/checks"
OP = {"X-API-Key": OPERATOR_KEY}


def _start(client: TestClient, **body: object) -> dict[str, object]:
    r = client.post(CHECKS, headers=OP, json=body)
    assert r.status_code == 202, r.text
    return r.json()  # type: ignore[no-any-return]


def test_static_check_is_the_cli_report(client: TestClient) -> None:
    """runs=0, no anchors: the spec and lint checks only, so the report must equal the CLI's exactly."""
    started = _start(client, runs=0, anchors=False)
    assert started["state"] in ("queued", "running") and started["report_url"] is None
    done = wait_job(client, f"/api/v1/checks/{started['id']}", OPERATOR_KEY)
    assert done["state"] == "done" and done["attempt"] == 1 and done["requested_by"] == "operator (bootstrap)"
    report = client.get(str(done["report_url"]), headers=OP)
    assert report.status_code == 200 and report.headers["content-type"] == "application/json"
    cli = check_challenge(CHALLENGE, CheckConfig(runs=0, anchors=False))
    assert report.text == cli.to_json()
    assert done["launch"] is cli.launch and report.json()["skipped"] == ["starter", "reference", "anchors"]
    listed = client.get(CHECKS, headers=OP).json()
    assert [c["id"] for c in listed] == [started["id"]] and listed[0]["content_hash"] == started["content_hash"]


def test_check_scores_anchors_with_the_services_scorer(client: TestClient) -> None:
    """The anchors are scored by the worker's scorer (the instant fake here), not a second pipeline."""
    done = wait_job(client, f"/api/v1/checks/{_start(client, runs=0)['id']}", OPERATOR_KEY)
    assert done["state"] == "done"
    report = CheckReport.model_validate_json(client.get(str(done["report_url"]), headers=OP).text)
    finals = {a.level: a.final for a in report.anchors}
    for level in ("low", "mid", "high"):
        meta = tomllib.loads((CHALLENGE / "anchors" / level / "submission.toml").read_text())
        assert finals[level] == (meta["iteration"] * 7 + len(meta["agent"])) % 101
    assert report.launch is False and done["launch"] is False  # the fake's finals miss the expected scores


def test_checks_are_for_operators_only(client: TestClient) -> None:
    check = _start(client, runs=0, anchors=False)
    agent = {"X-API-Key": agent_key(client, "alice")}
    for method, url in (("POST", CHECKS), ("GET", CHECKS), ("GET", f"/api/v1/checks/{check['id']}"),
                        ("GET", f"/api/v1/checks/{check['id']}/report")):  # fmt: skip
        body = {"json": {"runs": 0}} if method == "POST" else {}
        assert client.request(method, url, headers=agent, **body).status_code == 403, url  # type: ignore[arg-type]
        public = client.request(method, url, **body)  # type: ignore[arg-type]
        assert public.status_code == 401 and "Traceback" not in public.text


def test_check_requests_are_validated_naming_the_field(client: TestClient) -> None:
    unknown = client.post("/api/v1/challenges/nope/checks", headers=OP, json={})
    assert unknown.status_code == 404 and unknown.json()["field"] == "challenge"
    bad = [({"runs": 11}, "runs"), ({"runs": 1, "fresh_seeds": [1, 2]}, "fresh_seeds"),
           ({"fresh_seeds": [0]}, "fresh_seeds"), ({"write_quarantine": True}, "write_quarantine")]
    for body, field in bad:
        r = client.post(CHECKS, headers=OP, json=body)
        assert r.status_code == 422 and field in json.dumps(r.json()["detail"]), (body, r.text)
    missing = client.get("/api/v1/checks/" + "0" * 32, headers=OP)
    assert missing.status_code == 404 and missing.json()["field"] == "check_id"



def test_the_same_check_asked_twice_runs_once(tmp_path: Path) -> None:
    settings = ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY)
    with TestClient(create_app(settings, dispatcher=IdleDispatcher())) as client:
        client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers=OP)
        first = client.post(CHECKS, headers=OP, json={"runs": 2, "fresh_seeds": [7]})
        again = client.post(CHECKS, headers=OP, json={"runs": 2, "fresh_seeds": [7]})
        other = client.post(CHECKS, headers=OP, json={"runs": 2, "fresh_seeds": [8]})
        assert (first.status_code, again.status_code, other.status_code) == (202, 200, 202)
        assert again.json()["id"] == first.json()["id"] != other.json()["id"]
        pending = client.get(f"/api/v1/checks/{first.json()['id']}/report", headers=OP)
        assert pending.status_code == 404 and "queued" in pending.json()["detail"]


def test_a_sandbox_that_cannot_start_is_an_infrastructure_failure(make_client: MakeClient) -> None:
    """Not a verdict on the challenge: retried, then failed_infra with the reason, and no report."""
    client = make_client(sandbox="no-such-sandbox", max_retries=1)
    done = wait_job(client, f"/api/v1/checks/{_start(client, runs=1, anchors=False)['id']}", OPERATOR_KEY)
    assert done["state"] == "failed_infra" and done["attempt"] == 2 and "no-such-sandbox" in str(done["error"])
    assert done["launch"] is None and client.get(f"/api/v1/checks/{done['id']}/report", headers=OP).status_code == 404


def test_redaction_blanks_any_hidden_test_line() -> None:
    """Attack: a failure detail that quotes a hidden test (say, a collection error) in a check report."""
    secrets = hidden_lines(CHALLENGE)
    line = next(s for s in sorted(secrets) if s.startswith("assert"))
    problem = Problem(check="reference", level="error", message=f"quarantined: error: {line}", file="tests/hidden/x.py")
    leaky = CheckReport(challenge="inventory-ledger", launch=False, problems=[problem])
    text = redact_hidden(leaky, secrets)
    assert line not in text and HIDDEN_MARK in text and json.loads(text)["schema"] == "bouts.check/1"
    clean = check_challenge(CHALLENGE, CheckConfig(runs=0, anchors=False))
    assert redact_hidden(clean, secrets) == clean.to_json()


@pytest.mark.sandbox
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed (scripts/setup installs it)")
def test_check_runs_the_reference_in_the_sandbox(make_client: MakeClient) -> None:
    """The whole lifecycle on the bundled example: queued → running → done, the reference run twice
    in both seed phases (fresh seeds given, to reproduce), nothing quarantined, the snapshot left as it
    was, and not one line of the hidden tests in the report."""
    client = make_client(scorer=pipeline_scorer)
    started = _start(client, runs=2, anchors=False, fresh_seeds=[81723, 99])
    done = wait_job(client, f"/api/v1/checks/{started['id']}", OPERATOR_KEY, timeout=600)
    assert done["state"] == "done", done
    text = client.get(str(done["report_url"]), headers=OP).text
    report = CheckReport.model_validate_json(text)
    assert report.reference is not None and report.reference.runs == 2 and report.reference.tests > 0
    assert report.reference.seeds == [1234, 81723, 99] and report.reference.quarantined == []
    # No anchors scored: whatever the reference showed, this report cannot clear a launch (issue 39).
    assert report.launch is False and done["launch"] is False and "anchors" in report.skipped
    assert report.problems == [] and any("anchors" in what for what in report.incomplete)
    assert not [line for line in hidden_lines(CHALLENGE) if json.dumps(line)[1:-1] in text]
    info = client.app.state.ctx.repo.catalog.challenge("inventory-ledger")  # type: ignore[attr-defined]
    assert load_challenge(Path(info.path)).content_hash == info.content_hash == done["content_hash"]
