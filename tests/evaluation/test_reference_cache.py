"""Reference-solution runs cached on disk through the engine's one cache (``bouts.cache.Store``):
a second process reads them instead of running the reference; a damaged entry runs it again."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from bouts.loading import load_challenge
from bouts.models.results import Outcome, RunReport, TestResult
from bouts.runner import _grade
from bouts.sandbox import get_sandbox

ID = "tests/visible/test_calc.py::test_add"


@pytest.fixture
def reference_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the reference's sandbox runs (each a fake run where test_add passes)."""
    runs: list[int] = []

    def fake(challenge, code_dir, **kw):
        runs.append(kw["seed"])
        report = RunReport(results=[TestResult(id=ID, suite="visible", outcome=Outcome.PASSED)], sandbox="fake")
        return SimpleNamespace(report=report, observations={}, occurrences={ID: (5,)}, seed_readers=frozenset({ID}))

    monkeypatch.setattr(_grade, "run_detailed", fake)
    monkeypatch.setattr(_grade, "_MEMORY", {})  # a fresh process
    return runs


def test_a_reference_run_is_read_from_disk_by_the_next_process(
    tiny_challenge: Path, tmp_path: Path, reference_runs: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    challenge = load_challenge(tiny_challenge)
    sandbox = get_sandbox("none")
    first = _grade.reference_run(challenge, sandbox, seed=7, cache_dir=tmp_path / "cache")
    monkeypatch.setattr(_grade, "_MEMORY", {})
    again = _grade.reference_run(challenge, sandbox, seed=7, cache_dir=tmp_path / "cache")
    assert reference_runs == [7] and again == first and again.occurrences == {ID: (5,)}
    assert again.seed_readers == frozenset({ID})  # what the run saw of the seed survives the disk
    _grade.reference_run(challenge, sandbox, seed=8, cache_dir=tmp_path / "cache")  # another seed: its own run
    assert reference_runs == [7, 8]


def test_a_damaged_reference_entry_runs_the_reference_again(
    tiny_challenge: Path, tmp_path: Path, reference_runs: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    challenge = load_challenge(tiny_challenge)
    _grade.reference_run(challenge, get_sandbox("none"), seed=7, cache_dir=tmp_path / "cache")
    (entry,) = (tmp_path / "cache" / "reference").rglob("*.json")
    data = json.loads(entry.read_text())
    data["payload"] = data["payload"].replace("5", "6")  # a forged expected value
    entry.write_text(json.dumps(data))
    monkeypatch.setattr(_grade, "_MEMORY", {})
    ref = _grade.reference_run(challenge, get_sandbox("none"), seed=7, cache_dir=tmp_path / "cache")
    assert reference_runs == [7, 7] and ref is not None and ref.occurrences == {ID: (5,)}


def test_a_changed_test_file_is_another_reference_run(
    tiny_challenge: Path, tmp_path: Path, reference_runs: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    _grade.reference_run(load_challenge(tiny_challenge), get_sandbox("none"), seed=7, cache_dir=tmp_path / "c")
    (tiny_challenge / "tests" / "hidden" / "test_calc_hidden.py").write_text("def test_other():\n    pass\n")
    monkeypatch.setattr(_grade, "_MEMORY", {})
    _grade.reference_run(load_challenge(tiny_challenge), get_sandbox("none"), seed=7, cache_dir=tmp_path / "c")
    assert reference_runs == [7, 7]
