"""Importers that verify (issue 15): the six HumanEval tasks that used to ship broken tests, gzip
input, and the reference run at import that drops what it fails and excludes what is left empty."""

from __future__ import annotations

import ast
import builtins
import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bouts.cli.main import app
from bouts.importers import ImportedChallenge, humaneval_task, parse_humaneval
from bouts.importers._verify import verify_challenges
from bouts.sandbox import get_sandbox

SIX = Path(__file__).parent / "data" / "humaneval-six.jsonl"  # HumanEval/32, 38, 47, 50, 129, 151 (MIT)


@pytest.fixture(scope="module")
def six() -> dict[str, ImportedChallenge]:
    return {c.id: c for c in parse_humaneval(SIX.read_text(encoding="utf-8"), source=str(SIX))}


def _visible(c: ImportedChallenge) -> str:
    assert c.layout is not None
    return c.files[c.layout.paths["visible"]]


def _undefined_calls(source: str) -> set[str]:
    """Names the module calls that it neither defines, imports, nor gets from ``solution``/builtins."""
    tree = ast.parse(source)
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    imports = [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
    defined |= {a.asname or a.name for n in imports for a in n.names}
    defined |= {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)}
    defined |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    return called - defined - set(dir(builtins))


def test_a_comment_after_a_doctest_example_does_not_break_the_assert(six) -> None:
    visible = _visible(six["humaneval-32"])
    ast.parse(visible)  # used to be `assert (round(find_zero([1, 2]), 2) # f(x) = 1 + 2x) == (-0.5)`
    assert "assert (round(find_zero([1, 2]), 2)) == (-0.5)" in visible and "#" not in visible.split("def test_")[1]


@pytest.mark.parametrize(
    ("cid", "solution_names"),
    [
        ("humaneval-38", {"decode_cyclic", "encode_cyclic"}),
        ("humaneval-50", {"decode_shift", "encode_shift"}),
        ("humaneval-129", {"minPath"}),
        ("humaneval-151", {"double_the_difference"}),
    ],
)
def test_visible_tests_are_self_contained(six, cid: str, solution_names: set[str]) -> None:
    visible = _visible(six[cid])
    assert _undefined_calls(visible) <= solution_names, cid  # check() comes with the test that calls it


def test_a_standalone_first_assert_is_shown_without_the_hidden_check(six) -> None:
    visible = _visible(six["humaneval-151"])
    assert "def check" not in visible and "candidate([]) == 0" in visible
    assert "def check" in _visible(six["humaneval-38"])  # its asserts read loop variables: check runs whole


# A task whose reference passes its doctest but fails every hidden assert: excluded, and listed.
BROKEN = {
    "task_id": "Broken/1",
    "prompt": 'def ident(x):\n    """Return x.\n    >>> ident(1)\n    1\n    """\n',
    "canonical_solution": "    return 1\n",
    "test": "def check(candidate):\n    assert candidate(2) == 2\n    assert candidate(3) == 3\n",
    "entry_point": "ident",
}


@pytest.mark.sandbox
@pytest.mark.parametrize("batch", [1, 4], ids=["task-by-task", "batched"])
def test_verification_keeps_the_good_drops_the_wrong_example_and_excludes_the_broken(six, batch: int) -> None:
    broken = humaneval_task(BROKEN, source="he.jsonl", line=7)
    tasks = [*six.values(), broken]
    verdicts = verify_challenges(tasks, sandbox=get_sandbox("bubblewrap"), jobs=2, batch=batch)
    by_id = {task.id: verdict for task, verdict in zip(tasks, verdicts, strict=True)}
    for cid in ("humaneval-32", "humaneval-38", "humaneval-50", "humaneval-129", "humaneval-151"):
        assert by_id[cid].dropped == () and by_id[cid].challenge == six[cid], cid  # every test passes
    median = by_id["humaneval-47"]
    assert [(d.suite, d.test) for d in median.dropped] == [("visible", "test_example_2")]
    assert "8.0 == 15.0" in median.dropped[0].reason  # the doctest says 15.0; the reference returns 8.0
    kept = median.challenge
    assert kept is not None and kept.visible_tests == 1 and kept.hidden_tests == 5
    assert "15.0" not in _visible(kept)
    excluded = by_id["humaneval-broken-1"]
    assert excluded.challenge is None and excluded.excluded is not None
    assert excluded.excluded.line == 7 and "fails every hidden test" in excluded.excluded.reason
    assert {(d.suite, d.test) for d in excluded.dropped} == {("hidden", "test_check_1"), ("hidden", "test_check_2")}


@pytest.mark.sandbox
def test_cli_reads_gzip_verifies_and_reports(tmp_path: Path) -> None:
    data = tmp_path / "HumanEval.jsonl.gz"
    data.write_bytes(gzip.compress(SIX.read_bytes() + (json.dumps(BROKEN) + "\n").encode()))
    out, report = tmp_path / "out", tmp_path / "report.json"
    result = CliRunner().invoke(app, ["import", "humaneval", str(data), "-o", str(out), "--report", str(report)])
    assert result.exit_code == 0, result.output
    assert "imported 6 challenge(s)" in result.output and "from 7 task(s)" in result.output
    assert "humaneval-47 visible test_example_2: failed" in result.output
    assert "excluded 1 task(s)" in result.output and "humaneval-broken-1 (line 7)" in result.output
    assert not (out / "humaneval-broken-1").exists() and (out / "humaneval-47").is_dir()
    summary = json.loads(report.read_text())
    assert summary["schema"] == "bouts.import-report/1" and summary["verified"] is True
    assert summary["imported"] == 6 and summary["visible_tests"] == 7 and summary["hidden_tests"] == 10
    assert [x["challenge"] for x in summary["excluded"]] == ["humaneval-broken-1"]


def test_no_verify_reads_gzip_by_content(tmp_path: Path) -> None:
    data = tmp_path / "he.data"  # no .gz suffix: gzip is recognised by its magic bytes
    data.write_bytes(gzip.compress(SIX.read_bytes()))
    result = CliRunner().invoke(app, ["import", "humaneval", str(data), "-o", str(tmp_path / "o"), "--no-verify"])
    assert result.exit_code == 0, result.output
    assert "imported 6 challenge(s)" in result.output and "not verified (--no-verify)" in result.output


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'{"task_id": "HumanEval/1"\n', "he.jsonl.gz: line 1: not valid JSON"),
        (
            (json.dumps(BROKEN) + "\n" + json.dumps({k: v for k, v in BROKEN.items() if k != "test"}) + "\n").encode(),
            "he.jsonl.gz: line 2: field 'test': is missing",
        ),
    ],
)
def test_bad_input_names_file_and_line_and_exits_2(tmp_path: Path, content: bytes, expected: str) -> None:
    data = tmp_path / "he.jsonl.gz"
    data.write_bytes(gzip.compress(content))
    result = CliRunner().invoke(app, ["import", "humaneval", str(data), "-o", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert expected in " ".join(result.output.split()).replace(str(tmp_path) + "/", "")
    assert not (tmp_path / "o").exists()


def test_a_gz_file_that_is_not_gzip_is_a_clear_error(tmp_path: Path) -> None:
    data = tmp_path / "he.jsonl.gz"
    data.write_text("not gzip at all")
    result = CliRunner().invoke(app, ["import", "humaneval", str(data), "-o", str(tmp_path / "o")])
    assert result.exit_code == 2 and "cannot be read" in result.output


@pytest.mark.sandbox
def test_a_batch_reports_clean_only_the_tasks_whose_tests_all_pass(six, tmp_path: Path) -> None:
    from bouts.importers._batch import run_batch
    from bouts.runner import RunOptions

    clean = run_batch(list(six.values()), tmp_path, sandbox=get_sandbox("bubblewrap"), options=RunOptions(workers=1))
    assert clean == set(six) - {"humaneval-47"}  # each task's tests ran against its own reference
