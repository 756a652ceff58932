"""Bad input to ``bouts run`` and ``bouts inspect-scorecard``: a clear message and exit 2, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from scripted import CHALLENGE
from typer.testing import CliRunner

from bouts.cli.main import app


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--harness", "no-such-agent"], "unknown agent harness 'no-such-agent'; known: mini-swe-agent"),
        (["--base-url", "ftp://models.example"], "bad model endpoint"),
    ],
)
def test_bad_run_options(tmp_path: Path, extra: list[str], says: str) -> None:
    result = CliRunner().invoke(app, ["run", str(CHALLENGE), "--model", "m", "--out", str(tmp_path / "o"), *extra])
    assert result.exit_code == 2, result.output
    assert says in " ".join(result.output.split()) and "Traceback" not in result.output


def test_run_refuses_to_write_over_a_previous_run(tmp_path: Path) -> None:
    (tmp_path / "scorecard.json").write_text("{}")
    result = CliRunner().invoke(app, ["run", str(CHALLENGE), "--model", "m", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "already exists and is not empty" in " ".join(result.output.split())
    assert (tmp_path / "scorecard.json").read_text() == "{}"


@pytest.mark.slow_io
def test_inspect_scorecard_of_something_else(tmp_path: Path) -> None:
    junk = tmp_path / "not-a-log.json"
    junk.write_text('{"hello": 1}')
    result = CliRunner().invoke(app, ["inspect-scorecard", str(junk)])
    assert result.exit_code == 2 and str(junk) in " ".join(result.output.split()), result.output
    assert "Traceback" not in result.output
