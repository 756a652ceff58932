"""Bad records name the file, the line and the field; nothing is written for a bad file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bouts.cli.main import app
from bouts.importers import DatasetError, parse_humaneval, parse_mbpp

GOOD = {
    "task_id": 7,
    "text": "Write a function to add two numbers.",
    "code": "def add(a, b):\r\n\treturn a + b",
    "test_setup_code": "",
    "test_list": ["assert add(1, 2) == 3", "assert add(2, 2) == 4", "assert add(0, 0) == 0"],
    "challenge_test_list": [],
}


def _jsonl(*records: object) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        ("{not json", "data.jsonl: line 2: not valid JSON"),
        ([1, 2], "data.jsonl: line 2: expected a JSON object, got list"),
        (dict(GOOD, task_id=8, code=None), "data.jsonl: line 2: field 'code': is missing"),
        (
            dict(GOOD, task_id=8, code="def add(a, b) return a"),
            "data.jsonl: line 2: field 'code': it is not valid Python",
        ),
        (
            dict(GOOD, task_id=8, test_list="assert 1"),
            "data.jsonl: line 2: field 'test_list': must be a list of strings",
        ),
        (dict(GOOD, task_id=8, test_list=[]), "data.jsonl: line 2: field 'test_list': needs at least 1 item(s)"),
        (dict(GOOD, task_id=8, test_list=["assert add(1,"]), "data.jsonl: line 2: field 'test_list[0]'"),
        (
            dict(GOOD, task_id=8, test_list=["assert sub(1, 2) == -1"]),
            "data.jsonl: line 2: field 'test_list[0]': the first test calls no function that the code defines",
        ),
        (dict(GOOD, task_id=None), "data.jsonl: line 2: field 'task_id'"),
        (dict(GOOD, text=7, task_id=8), "data.jsonl: line 2: field 'text': must be a string"),
        (GOOD, "data.jsonl: line 2: field 'task_id': duplicate task id (first on line 1)"),
    ],
)
def test_mbpp_errors_name_file_line_and_field(bad: object, expected: str) -> None:
    with pytest.raises(DatasetError) as info:
        parse_mbpp(_jsonl(GOOD, bad), source="data.jsonl")
    assert info.value.describe().startswith(expected)


def test_humaneval_errors_name_the_field() -> None:
    record = {
        "task_id": "X/1",
        "prompt": "def f():\n",
        "canonical_solution": "    return 1",
        "test": "x = 1",
        "entry_point": "f",
    }
    with pytest.raises(DatasetError, match="field 'test': the test code defines no 'check"):
        parse_humaneval(_jsonl(record), source="he.jsonl")
    with pytest.raises(DatasetError, match="line 1: field 'entry_point': defines no|field 'prompt': defines no"):
        parse_humaneval(_jsonl(dict(record, entry_point="g")), source="he.jsonl")
    with pytest.raises(DatasetError, match="field 'entry_point': must be a Python identifier"):
        parse_humaneval(_jsonl(dict(record, entry_point="f()")), source="he.jsonl")


def test_unclosed_json_array_is_an_error() -> None:
    with pytest.raises(DatasetError, match="line 1: the JSON array is not closed"):
        parse_mbpp("[" + json.dumps(GOOD), source="s.json")


def test_cli_bad_record_writes_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(_jsonl(GOOD, dict(GOOD, task_id=9), dict(GOOD, task_id=10, code=5)))
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["import", "mbpp", str(data), "-o", str(out)])
    assert result.exit_code == 2
    assert "line 3: field 'code': must be a string" in result.output
    assert not out.exists()


def test_cli_imports_and_refuses_to_overwrite(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(_jsonl(GOOD, dict(GOOD, task_id=9)))
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["import", "mbpp", str(data), "-o", str(out), "--no-verify"])
    assert result.exit_code == 0, result.output
    assert "imported 2 challenge(s)" in result.output
    assert sorted(p.name for p in out.iterdir()) == ["mbpp-7", "mbpp-9"]
    again = CliRunner().invoke(app, ["import", "mbpp", str(data), "-o", str(out), "--no-verify"])
    assert again.exit_code == 2 and "already exists" in again.output
    forced = CliRunner().invoke(
        app, ["import", "mbpp", str(data), "-o", str(out), "--overwrite", "--limit", "1", "--no-verify"]
    )
    assert forced.exit_code == 0 and "imported 1 challenge(s)" in forced.output
