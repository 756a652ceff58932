"""The service's workers seat the LLM panel ``BOUTS_LLM_PANEL`` names, as ``bouts score --llm-panel``
does (issue 18, item 5: one configuration for every driver), and refuse to start when it is wrong."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from service_helpers import CHALLENGE, OPERATOR_KEY, agent_key, dir_tar_gz, force_open, wait_terminal

sys.path.append(str(Path(__file__).resolve().parents[1] / "judges" / "llm"))
from llm_fakes import DIMS_QUALITY, FakeLLMServer, answer_json, openai_reply  # noqa: E402

from bouts.errors import InputError  # noqa: E402
from bouts.service.api import create_app  # noqa: E402
from bouts.service.config import ServiceSettings, settings_from_env  # noqa: E402
from bouts.service.jobs import pipeline_scorer  # noqa: E402

BOUTS = Path(sys.executable).parent / "bouts"
JUDGE = "llm-quality:svc-fake-model"


@pytest.fixture(autouse=True)
def _judges_as_they_were():
    """The API seats the panel's judges in this process's registry: take them out again, so later
    tests (the docs-cover-every-judge test among them) see only the judges the engine ships."""
    # The built-ins registered before the snapshot: one taken before their first import would drop them on
    # restore, and they never register again in this process (an order-dependent failure under xdist).
    import bouts.judges.builtin  # noqa: F401
    from bouts.judging import JUDGES

    factories, docs = dict(JUDGES._factories), dict(JUDGES._docs)
    yield
    JUDGES._factories.clear()
    JUDGES._factories.update(factories)
    JUDGES._docs.clear()
    JUDGES._docs.update(docs)


def _panel(tmp_path: Path, url: str) -> Path:
    path = tmp_path / "panel.toml"
    path.write_text(
        f'schema = "bouts.llm-panel/1"\ncache_dir = "{tmp_path / "llm-cache"}"\n\n[[judges]]\n'
        f'provider = "openai"\nmodel = "svc-fake-model"\nbase_url = "{url}/v1"\ntimeout_s = 30\n'
    )
    return path


@pytest.mark.sandbox
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed (scripts/setup installs it)")
def test_a_worker_scores_with_the_panel_seated_and_the_scorecard_records_it(tmp_path: Path) -> None:
    """...and ``bouts score --reproduce`` with the same panel file scores that card again alike."""
    submission = tmp_path / "high"
    shutil.copytree(CHALLENGE / "anchors" / "high", submission)
    toml = 'agent = "claude"\nchallenge = "inventory-ledger"\niteration = 1\nelapsed_s = 60\n'
    (submission / "submission.toml").write_text(toml)
    reply = openai_reply(answer_json(dict.fromkeys(DIMS_QUALITY, 4)))
    with FakeLLMServer(reply, lifetime_s=1800) as server:
        panel = _panel(tmp_path, server.url)
        settings = settings_from_env({"BOUTS_LLM_PANEL": str(panel),
                                      "BOUTS_JUDGES": f"quality-lint,{JUDGE}"})  # fmt: skip
        assert settings.llm_panel.endswith("panel.toml")
        settings = settings.with_overrides(data_dir=tmp_path / "svc", operator_key=OPERATOR_KEY, local_workers=1,
                                           rate_per_minute=60_000, rate_burst=1000)  # fmt: skip
        with TestClient(create_app(settings, scorer=pipeline_scorer)) as client:
            r = client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers={"X-API-Key": OPERATOR_KEY})
            assert r.status_code == 201, r.text
            force_open(client)
            key = agent_key(client, "claude")
            archive = dir_tar_gz(submission)
            r = client.post("/api/v1/challenges/inventory-ledger/submissions", headers={"X-API-Key": key},
                            files={"archive": ("high.tar.gz", archive, "application/gzip")})  # fmt: skip
            assert r.status_code == 202, r.text
            done = wait_terminal(client, r.json()["id"], key, timeout=900)
            assert done["state"] == "scored", done
            card = client.get(f"/api/v1/submissions/{done['id']}/scorecard").json()["scorecard"]
        assert server.requests, "the LLM judge never called its endpoint"
        assert "svc-fake-model" in server.requests[0].body["model"]
        assert JUDGE in card["reproducibility"]["judges"]  # the panel sat, as on a `bouts score --llm-panel` card
        assert "quality-lint" in card["reproducibility"]["judges"]
        stored = tmp_path / "card.json"
        stored.write_text(json.dumps({"scorecard": card}))  # as the service serves it
        env = {k: v for k, v in os.environ.items() if not k.startswith("BOUTS_")}
        again = subprocess.run([str(BOUTS), "score", str(CHALLENGE), str(submission), "--json", "--no-cache",
                                "--llm-panel", str(panel), "--judges", f"quality-lint,{JUDGE}", "--reproduce",
                                str(stored), "--cache-dir", str(tmp_path / "cli-cache")],
                               env=env, capture_output=True, text=True, timeout=900)  # fmt: skip
        assert again.returncode == 0, again.stderr[-2000:]
    redo = json.loads(again.stdout)
    assert redo["reproducibility"]["seeds"] == card["reproducibility"]["seeds"]
    assert redo["reproducibility"]["judges"] == card["reproducibility"]["judges"]
    assert redo["final"] == card["final"]


def test_a_wrong_panel_stops_the_api_naming_the_setting(tmp_path: Path) -> None:
    bad = tmp_path / "panel.toml"
    bad.write_text('schema = "bouts.llm-panel/1"\n[[judges]]\nprovider = "openai"\nmodel = 3\n')
    with pytest.raises(InputError) as err:
        create_app(ServiceSettings(data_dir=tmp_path, llm_panel=str(bad)))
    assert err.value.field == "BOUTS_LLM_PANEL" and str(bad) in err.value.message and "model" in err.value.message


def test_a_worker_with_a_wrong_panel_fails_to_start_with_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "panel.toml"
    bad.write_text('schema = "bouts.llm-panel/1"\n[[judges]]\nprovider = "openai"\nmodel = "m"\n'
                   'api_key_env = "BOUTS_TEST_UNSET_PANEL_KEY"\n')  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOUTS_")}
    env |= {"BOUTS_LLM_PANEL": str(bad), "BOUTS_DATA_DIR": str(tmp_path / "svc"), "COLUMNS": "500"}
    # The broker is never reached: the panel is seated before the worker connects to anything.
    done = subprocess.run([str(BOUTS), "worker", "--broker-url", "redis://127.0.0.1:1/0"], env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "BOUTS_LLM_PANEL" in lines[0] and str(bad) in lines[0] and "BOUTS_TEST_UNSET_PANEL_KEY" in lines[0]
