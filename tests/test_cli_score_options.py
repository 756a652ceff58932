"""`bouts score` options that choose the judges: errors name what is wrong, never a traceback."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from bouts.cli.main import app

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "inventory-ledger"
MID = EXAMPLE / "anchors" / "mid"


def test_an_unknown_judge_is_named_and_exits_2() -> None:
    result = CliRunner().invoke(app, ["score", str(EXAMPLE), str(MID), "--judges", "quality-lint,nope"])
    assert result.exit_code == 2
    assert "unknown judge 'nope'" in result.output and "quality-lint" in result.output
    assert "Traceback" not in result.output


def test_a_broken_llm_panel_file_names_the_file_and_field(tmp_path: Path) -> None:
    panel = tmp_path / "panel.toml"
    panel.write_text('schema = "bouts.llm-panel/1"\n[[judges]]\nprovider = "openai"\nmodel = 3\n')
    result = CliRunner().invoke(app, ["score", str(EXAMPLE), str(MID), "--llm-panel", str(panel)])
    assert result.exit_code == 2
    assert "panel.toml" in result.output and "model" in result.output
    assert "Traceback" not in result.output


def test_a_missing_llm_panel_file_is_an_input_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["score", str(EXAMPLE), str(MID), "--llm-panel", str(tmp_path / "no.toml")])
    assert result.exit_code == 2 and "no.toml" in result.output


def test_errors_quote_submitted_text_verbatim_never_as_markup_or_emoji(tmp_path: Path) -> None:
    # A path with Rich closing-tag syntax once raised MarkupError; ":x:" in a log became an emoji.
    weird = tmp_path / "we[" / "]ird"  # shows as .../we[/]ird
    weird.mkdir(parents=True)
    result = CliRunner().invoke(app, ["score", str(weird), str(tmp_path)])
    assert result.exit_code == 2 and f"error: {weird}/challenge.toml: is missing" in result.output
    log = tmp_path / "log.txt"
    log.write_text("root:x:0:0:[bold]root[/bold]\n")
    result = CliRunner().invoke(app, ["trajectory", "show", str(log)])
    assert result.exit_code == 2 and "it starts with 'root:x:0:0:[bold]root[/bold]'" in result.output


def test_an_iteration_past_the_budget_is_refused_naming_the_file_and_field(tmp_path: Path) -> None:
    """``[budgets] iterations = 3``: a fourth attempt is refused before anything runs (exit 2)."""
    import shutil

    sub = tmp_path / "fourth"
    shutil.copytree(MID, sub)
    meta = sub / "submission.toml"
    meta.write_text(meta.read_text().replace("iteration = 1", "iteration = 4"))
    result = CliRunner().invoke(app, ["score", str(EXAMPLE), str(sub), "--no-cache"])
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert "submission.toml" in text and "field 'iteration'" in text
    assert "iteration 4 is past the challenge's budget of 3 iterations" in text
    assert "Traceback" not in result.output
