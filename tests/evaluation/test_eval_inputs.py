"""`bouts eval` refuses what it cannot read before scoring anything: the message names the file
(and the line and field where there is one), never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

from eval_helpers import write
from typer.testing import CliRunner

from bouts.cli.main import app


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["eval", *args])
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def test_a_missing_samples_file_is_named(tmp_path: Path) -> None:
    code, out = run(str(tmp_path / "nope.jsonl"), "-d", str(tmp_path), "--cache-dir", str(tmp_path / "c"))
    assert code == 2 and "nope.jsonl" in out


def test_a_folder_with_no_challenge_is_named(tmp_path: Path) -> None:
    samples = write(tmp_path, {"s.jsonl": json.dumps({"task_id": "x", "solution": ""}) + "\n"}) / "s.jsonl"
    (tmp_path / "empty").mkdir()
    code, out = run(str(samples), "-d", str(tmp_path / "empty"), "--cache-dir", str(tmp_path / "c"))
    assert code == 2 and "empty" in out and "holds no challenge" in out


def test_a_dataset_file_of_unknown_records_names_its_line(tmp_path: Path) -> None:
    samples = write(tmp_path, {"s.jsonl": json.dumps({"task_id": "x", "solution": ""}) + "\n"}) / "s.jsonl"
    data = write(tmp_path, {"d.jsonl": json.dumps({"task_id": "Mbpp/2", "prompt": "p", "code": "c"}) + "\n"})
    code, out = run(str(samples), "-d", str(data / "d.jsonl"), "--cache-dir", str(tmp_path / "c"))
    assert code == 2 and "d.jsonl: line 1" in out and "MBPP+" in out


def test_a_bad_k_is_named(tmp_path: Path) -> None:
    samples = write(tmp_path, {"s.jsonl": json.dumps({"task_id": "x", "solution": ""}) + "\n"}) / "s.jsonl"
    code, out = run(str(samples), "-d", str(tmp_path), "-k", "1,ten", "--cache-dir", str(tmp_path / "c"))
    assert code == 2 and "field 'k'" in out


def test_a_cache_others_can_write_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    samples = write(tmp_path, {"s.jsonl": json.dumps({"task_id": "x", "solution": ""}) + "\n"}) / "s.jsonl"
    code, out = run(str(samples), "-d", str(tmp_path), "--cache-dir", str(shared))
    assert code == 3 and "writable by nobody else" in out
