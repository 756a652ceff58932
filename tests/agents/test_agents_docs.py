"""docs/agents.md describes every registered harness and the commands it tells people to run exist."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from bouts.agents import harnesses
from bouts.cli.main import app

DOC = (Path(__file__).resolve().parents[2] / "docs" / "agents.md").read_text(encoding="utf-8")


def test_every_harness_is_documented() -> None:
    missing = [name for name in harnesses.names() if f"`{name}`" not in DOC]
    assert not missing, f"docs/agents.md does not describe the harnesses {missing}"


def test_the_documented_commands_exist() -> None:
    for command in ("run", "inspect-scorecard"):
        assert f"bouts {command}" in DOC
        assert CliRunner().invoke(app, [command, "--help"]).exit_code == 0


def test_the_inspect_task_is_registered_for_inspect() -> None:
    from importlib.metadata import entry_points

    (entry,) = [e for e in entry_points(group="inspect_ai") if e.name == "bouts"]
    module = entry.load()
    assert callable(module.challenge) and "bouts/challenge" in DOC
