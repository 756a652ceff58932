"""Loading at the edge: round trip, detection by content, errors that name the line, streaming, CLI."""

from __future__ import annotations

import json
import shutil
import tracemalloc
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bouts.cli.main import app
from bouts.errors import SubmissionError, TrajectoryError
from bouts.models.trajectory import Event, TestCounts
from bouts.trajectory import adapters, iter_trajectory, load_trajectory, parse_trajectory, to_jsonl

SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "trajectories"
CLAUDE = SAMPLES / "claude-code/claude-reliability__coverage-test-fix.transcript.jsonl"
TRAJ = SAMPLES / "swe-agent/swe-agent__test-repo-i1.gpt4.traj"
EVAL = SAMPLES / "inspect-ai/inspect_ai__tests_log__log_message_deduplication.eval"
AIDER = SAMPLES / "aider/aider__chat-history__2024-08-21_11-16-05.md"


@pytest.mark.parametrize("sample", [CLAUDE, TRAJ, EVAL, AIDER], ids=lambda p: p.parent.name)
def test_canonical_round_trip(sample: Path, tmp_path: Path) -> None:
    original = load_trajectory(sample)
    out = tmp_path / "trajectory.jsonl"
    out.write_text("".join(line + "\n" for line in to_jsonl(original.events)))
    again = load_trajectory(out)
    assert again.harness == "canonical"
    assert again.events == original.events


@pytest.mark.parametrize("sample", [CLAUDE, TRAJ, EVAL, AIDER], ids=lambda p: p.parent.name)
def test_detected_by_content_not_name(sample: Path, tmp_path: Path) -> None:
    renamed = tmp_path / "notes.txt"
    shutil.copyfile(sample, renamed)
    assert load_trajectory(renamed).harness == load_trajectory(sample).harness


def test_every_adapter_is_documented() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "trajectories.md").read_text()
    for name, line in adapters.describe().items():
        assert f"`{name}`" in docs, name
        assert line, name


def test_error_is_a_submission_error(tmp_path: Path) -> None:
    assert issubclass(TrajectoryError, SubmissionError)


def test_corrupt_jsonl_names_the_line(tmp_path: Path) -> None:
    lines = CLAUDE.read_text().splitlines()
    lines[6] = lines[6][:40] + "}{garbage"
    bad = tmp_path / "t.jsonl"
    bad.write_text("\n".join(lines))
    with pytest.raises(TrajectoryError) as info:
        load_trajectory(bad)
    assert info.value.line == 7
    assert f"{bad}: line 7: claude-code log: not valid JSON" in str(info.value)


def test_truncated_jsonl_keeps_the_lines_before_the_cut_and_names_it(tmp_path: Path) -> None:
    # Misreading stopped (issue 15): a log cut in its last line lost every trajectory score.
    text = CLAUDE.read_text()
    cut = tmp_path / "t.jsonl"
    cut.write_text(text[: len(text) - 300])
    n = cut.read_text().count("\n") + 1
    trajectory = load_trajectory(cut)
    assert trajectory.truncated_line == n
    assert len(trajectory.events) > 0 and max(e.source_line or 0 for e in trajectory.events) < n
    bad = tmp_path / "bad.jsonl"  # the same cut line with lines after it is corruption
    bad.write_text(cut.read_text() + "\n" + text.splitlines()[-1])
    with pytest.raises(TrajectoryError, match=f"line {n}: .*corrupt or truncated"):
        load_trajectory(bad)


def test_json_nested_too_deeply_names_the_line(tmp_path: Path) -> None:
    # A hostile log: one record nested 100,000 deep makes json.loads raise RecursionError.
    lines = CLAUDE.read_text().splitlines()
    lines.insert(3, '{"type": "user", "message": ' + '{"a":' * 100_000 + "1" + "}" * 100_000 + "}")
    bad = tmp_path / "t.jsonl"
    bad.write_text("\n".join(lines))
    with pytest.raises(TrajectoryError, match="line 4: claude-code log has an unexpected shape .RecursionError"):
        load_trajectory(bad)


def test_truncated_json_document_says_truncated(tmp_path: Path) -> None:
    text = TRAJ.read_text()
    cut = tmp_path / "t.traj"
    cut.write_text(text[: len(text) // 2])
    with pytest.raises(TrajectoryError, match=r"line \d+: swe-agent log: .*truncated"):
        load_trajectory(cut)


def test_truncated_eval_zip(tmp_path: Path) -> None:
    cut = tmp_path / "t.eval"
    cut.write_bytes(EVAL.read_bytes()[:3000])
    with pytest.raises(TrajectoryError, match="corrupt or truncated .eval"):
        load_trajectory(cut)


@pytest.mark.parametrize("text", ["hello world\n", '{"foo": 1}\n', "[1, 2, 3]", "\n\n  \n"])
def test_unknown_or_empty_log_names_line_one(text: str) -> None:
    with pytest.raises(TrajectoryError, match="x.log: line 1: (not a trajectory log|empty)"):
        parse_trajectory(text, source="x.log")


def test_invalid_canonical_event_names_its_field() -> None:
    text = '{"t": 0, "kind": "read", "path": "a.py"}\n{"t": -1, "kind": "run"}\n'
    with pytest.raises(TrajectoryError, match="line 2: .*invalid event: t"):
        parse_trajectory(text, source="c.jsonl")


def test_missing_file() -> None:
    with pytest.raises(TrajectoryError, match="cannot read"):
        load_trajectory("/nonexistent/trajectory.jsonl")


def _huge_log(path: Path, lines: int) -> None:
    big_output = "x" * 600 + "\n=== 3 passed in 0.1s ==="
    with path.open("w") as handle:
        for i in range(lines):
            if i % 2:
                event = Event(
                    t=i,
                    kind="run",
                    command="pytest -q",
                    exit_code=0,
                    tests=TestCounts(passed=3, failed=0),
                    output=big_output,
                )
            else:
                event = Event(t=i, kind="read", path=f"src/m{i % 50}.py")
            handle.write(json.dumps(event.model_dump(exclude_none=True)) + "\n")


@pytest.mark.slow_io  # writes a 70 MB log and streams it whole under tracemalloc: 10 s and more
def test_huge_log_streams_in_bounded_memory(tmp_path: Path) -> None:
    """200k lines (~70 MB): streaming keeps only the current line and the calls in flight, so the peak
    stays a small constant however long the log is (loading it whole would take well over 100 MB)."""
    log = tmp_path / "huge.jsonl"
    _huge_log(log, 200_000)
    assert log.stat().st_size > 50 * 2**20
    tracemalloc.start()
    try:
        harness, events = iter_trajectory(log)
        count = sum(1 for _ in events)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (harness, count) == ("canonical", 200_000)
    assert peak < 5 * 2**20, f"peak {peak} bytes: the log was not streamed"


def test_convert_and_show_cli(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "canonical.jsonl"
    result = runner.invoke(app, ["trajectory", "convert", str(CLAUDE), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert load_trajectory(out).events == load_trajectory(CLAUDE).events
    result = runner.invoke(app, ["trajectory", "show", str(CLAUDE)])
    assert result.exit_code == 0, result.output
    assert "claude-code" in result.output and "Test runs" in result.output and "294,215" in result.output


def test_cli_errors_exit_2_naming_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"t": 0, "kind": "read", "path": "a"}\n{"t": 1, "kind": "ru\n{"t": 2, "kind": "submit"}')
    runner = CliRunner()
    for command in (["show", str(bad)], ["convert", str(bad), "-o", str(tmp_path / "o.jsonl")]):
        result = runner.invoke(app, ["trajectory", *command])
        assert result.exit_code == 2
        assert "bad.jsonl" in result.output and "line 2" in result.output
    assert not (tmp_path / "o.jsonl").exists() and not (tmp_path / "o.jsonl.partial").exists()
