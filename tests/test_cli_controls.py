"""Attack: submitted or sandbox-produced text carrying terminal control sequences (``\\x1b[2J`` clears the
operator's screen) or Rich markup, printed by the CLI. Every such text is shown, never obeyed."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from bouts.assemble import Measurements, build_scorecard
from bouts.cli import calibration_render, render
from bouts.cli.main import app
from bouts.models.results import Outcome, StabilitySignals
from bouts.models.scorecard import Scorecard
from factories import META, make_challenge, result, run

CLEAR = "\x1b[2J\x1b[H"


def hostile_card() -> Scorecard:
    report = run(
        result("tests/visible/test_a.py::test_v", "visible", Outcome.FAILED, detail=f"ValueError: {CLEAR}[red]x[/]"),
        stability=StabilitySignals(warnings=[f"UserWarning: {CLEAR}\x9b31m"]),
        tampering=[f"a canary passed {CLEAR}"],
    )
    meta = META.model_copy(update={"agent": f"agent{CLEAR}[bold]"})
    return build_scorecard(make_challenge(), meta, Measurements(report))


def test_a_clear_screen_in_a_detail_is_escaped_in_bouts_score_text_output(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bouts.pipeline.score", lambda *a, **kw: hostile_card())
    out = CliRunner().invoke(app, ["score", "challenge", "submission", "--tests"])
    assert out.exit_code == 0, out.output
    assert "\x1b" not in out.output and "\x9b" not in out.output
    assert "\\x1b[2J" in out.output and "[red]x[/]" in out.output and "agent\\x1b[2J" in out.output


def test_bouts_score_json_has_no_raw_control_character(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bouts.pipeline.score", lambda *a, **kw: hostile_card())
    out = CliRunner().invoke(app, ["score", "challenge", "submission", "--json"])
    assert out.exit_code == 0, out.output
    assert "\x1b" not in out.stdout and "\x9b" not in out.stdout
    assert json.loads(out.stdout)["agent"] == f"agent{CLEAR}[bold]"  # the same value, escaped in transit


def test_trajectory_show_escapes_commands_and_never_reads_them_as_markup(tmp_path: Path) -> None:
    log = tmp_path / "t.jsonl"
    event = {"t": 1, "kind": "run", "command": f"pytest {CLEAR}[red]boom[/]", "exit_code": 1,
             "tests": {"passed": 0, "failed": 2}}  # fmt: skip
    log.write_text(json.dumps(event) + "\n")
    out = CliRunner().invoke(app, ["trajectory", "show", str(log)])
    assert out.exit_code == 0, out.output
    assert "\x1b" not in out.output and "\\x1b[2J" in out.output and "[red]boom[/]" in out.output


def test_check_and_review_renderers_escape_what_they_quote() -> None:
    from bouts.calibration.report import CheckReport, Problem
    from bouts.calibration.review import ReviewEvent, ReviewItem

    console = Console(record=True, width=200)
    problem = Problem(check="starter", level="warning", file="starter/", message=f"m{CLEAR}[/]")
    calibration_render.check(console, CheckReport(challenge=f"c{CLEAR}", launch=False, problems=[problem]))
    opened = ReviewEvent(kind="opened", actor=f"bot{CLEAR}", at=datetime.now(UTC), reason=f"r{CLEAR}", level=1)
    item = ReviewItem(id="r1", challenge="c", agent=f"[red]a{CLEAR}", iteration=1, submission_hash="h",
                      original=50.0, judges={}, flag=f"f{CLEAR}", history=(opened,))  # fmt: skip
    calibration_render.review_item(console, item)
    calibration_render.review_list(console, [item])
    text = console.export_text()
    assert "\x1b" not in text and "m\\x1b[2J\\x1b[H[/]" in text and "[red]a\\x1b[2J" in text


def test_the_scorecard_renderer_escapes_every_quoted_line() -> None:
    console = Console(record=True, width=300)
    render.scorecard(console, hostile_card(), show_tests=True)
    text = console.export_text()
    assert "\x1b" not in text and "\x9b" not in text and "\\x9b31m" in text
