"""The Inspect AI bridge end to end: ``bouts/challenge`` (found through the entry point) run by
Inspect's ReAct agent against a scripted model, in the ``bouts`` sandbox, scored by Bouts from
Inspect's own transcript; ``bouts inspect-scorecard`` shows the scorecard from the log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from llm_fakes import FakeLLMServer
from scripted import CHALLENGE, HONEST, HOSTILE, JUDGES, inspect_script
from typer.testing import CliRunner

from bouts.cli.main import app

pytestmark = pytest.mark.sandbox


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, object, Path]:
    return _eval(tmp_path_factory.mktemp("inspect"), HONEST)


def _eval(tmp_path: Path, steps: list[tuple[str, str]]) -> tuple[dict, object, Path]:
    import inspect_ai

    with FakeLLMServer(*inspect_script(steps), lifetime_s=120) as server:
        logs = inspect_ai.eval(
            "bouts/challenge", task_args={"path": str(CHALLENGE), "judges": ",".join(JUDGES), "generated": False},
            model="openai/scripted-agent", model_base_url=f"{server.url}/v1",
            model_args={"api_key": "sk-test", "responses_api": False}, log_dir=str(tmp_path / "logs"), display="none",
        )  # fmt: skip
    log = logs[0]
    assert log.status == "success", log.error
    score = log.samples[0].scores["bouts_scorer"]
    card = score.metadata["scorecard"]
    assert score.value == card["final"]
    return card, log, Path(log.location)


def test_a_challenge_is_an_inspect_task_scored_by_bouts(honest: tuple[dict, object, Path]) -> None:
    card, log, path = honest
    assert card["trajectory"]["source"] == "recorded" and card["trajectory"]["recorded_by"] == "inspect-ai"
    outcomes = {t["id"].split("::")[-1]: t["outcome"] for t in card["tests"] if t["suite"] == "visible"}
    assert outcomes["test_report_values_stock_exactly"] == "passed"  # the fix, made through Inspect's bash
    assert card["components"]["deliverables"]["score"] > 0  # written through the bridge's text_editor
    assert card["adjustments"]["exploit_penalties"] == 0
    assert card["calibration"]["stated"] == "unsure"  # "I'm 60% confident", read from ROOT_CAUSE.md
    # `bouts` shows the scorecard from Inspect's log.
    shown = CliRunner().invoke(app, ["inspect-scorecard", str(path), "--json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["final"] == card["final"]
    text = CliRunner().invoke(app, ["inspect-scorecard", str(path)])
    assert f"trajectory: recorded by inspect-ai (inspect-ai, {card['trajectory']['events']} events)" in text.stdout


def test_the_trajectory_is_inspects_record_of_the_tools(honest: tuple[dict, object, Path]) -> None:
    """Stops: the agent's own account standing in for what it did (the transcript is Inspect's)."""
    from bouts.agents.inspect_task import transcript_trajectory

    card, log, _ = honest
    sample = log.samples[0]
    trajectory = transcript_trajectory([e.model_dump(mode="json") for e in sample.events])
    actions = [(e.kind, e.path or e.command) for e in trajectory.events if e.kind not in ("message", "usage")]
    assert ("edit", "ledger/money.py") in actions and ("write", "deliverables/ROOT_CAUSE.md") in actions
    tests = [e.tests.model_dump() for e in trajectory.events if e.tests is not None]
    assert tests == [{"passed": 6, "failed": 6}, {"passed": 7, "failed": 5}]
    assert card["trajectory"]["events"] == len(trajectory.events)


def test_another_host_or_a_file_outside_is_stopped_and_flagged(tmp_path: Path) -> None:
    card, log, _ = _eval(tmp_path, HOSTILE)
    lines = card["components"]["integrity"]["findings"]
    evidence = " ".join(f["message"] for f in lines)
    assert "write /etc/cron.d/bouts outside the workspace (refused)" in evidence
    assert card["adjustments"]["exploit_penalties"] == 35
    assert "integrity_bright_line" in {f["code"] for f in card["flags"]}
    assert any("collector.example.net:443" in line for line in card["math"])
    escape = [e for e in log.samples[0].events if getattr(e, "arguments", {}).get("path") == "/etc/cron.d/bouts"]
    assert escape and escape[0].error is not None  # the tool call failed: nothing was written
