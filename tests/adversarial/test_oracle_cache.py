"""The reference's answers to generated oracle tests are cached as every cache entry is
(``bouts.cache.Store``, namespace ``oracle``): whoever can write the cache decides what a generated
test expects, so an entry written without the cache's secret, a damaged one and one of another
shape are misses (the reference runs again), never answers and never a crash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bouts.adversarial import _oracle_run
from bouts.adversarial._oracle_run import NAMESPACE, ReferenceAnswers, reference_answers
from bouts.cache import Store
from bouts.loading import load_challenge
from bouts.models.results import Outcome, RunReport, TestResult
from bouts.runner import RunOptions
from bouts.runner._run import DetailedRun
from bouts.sandbox import get_sandbox

LEAGUE = Path(__file__).resolve().parents[2] / "examples" / "league-table"
TEXT = "def test_gen_001(bouts_expect):\n    pass\n"
IDS = ["tests/generated/test_gen_oracle.py::test_gen_001", "tests/generated/test_gen_oracle.py::test_gen_002"]


class FakeReference:
    """Stands in for the sandboxed run of the reference: counts its runs, answers fixed values."""

    def __init__(self) -> None:
        self.runs = 0

    def __call__(self, *args: object, **kwargs: object) -> DetailedRun:
        self.runs += 1
        results = [TestResult(id=IDS[0], suite="adversarial", outcome=Outcome.PASSED),
                   TestResult(id=IDS[1], suite="adversarial", outcome=Outcome.FAILED)]  # fmt: skip
        report = RunReport(results=results, sandbox="fake")
        return DetailedRun(report=report, observations={IDS[0]: ("ok:1", "value:2"), IDS[1]: ("never",)})


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeReference:
    monkeypatch.setattr(_oracle_run, "_MEMORY", {})
    run = FakeReference()
    monkeypatch.setattr(_oracle_run, "run_detailed", run)
    return run


def _answers(cache: Path) -> ReferenceAnswers:
    challenge = load_challenge(LEAGUE)
    return reference_answers(challenge, TEXT, IDS, sandbox=get_sandbox("bubblewrap"), seed=1234,
                             options=RunOptions(workers=1), cache_dir=cache)  # fmt: skip


def _entries(cache: Path) -> list[Path]:
    return sorted((cache / NAMESPACE).rglob("*.json"))


EXPECTED = ReferenceAnswers({IDS[0]: "passed", IDS[1]: "failed"}, {IDS[0]: ("ok:1", "value:2")})


def test_answers_are_stored_in_the_engine_cache_and_read_back(fake: FakeReference, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    cache = tmp_path / "cache"
    assert _answers(cache) == EXPECTED and fake.runs == 1
    assert len(_entries(cache)) == 1  # one entry, in the oracle namespace; only passed tests' digests
    assert not list(cache.glob("oracle-*.json"))  # the old unauthenticated layout is gone
    monkeypatch.setattr(_oracle_run, "_MEMORY", {})  # another process: the disk entry answers
    assert _answers(cache) == EXPECTED and fake.runs == 1


def _forge(entry: Path) -> None:
    """What someone without the cache's secret can write: other answers, the old MAC."""
    data = json.loads(entry.read_text())
    payload = json.loads(data["payload"])
    payload["digests"] = {IDS[0]: ["forged"], IDS[1]: ["forged"]}
    payload["outcomes"] = {IDS[0]: "passed", IDS[1]: "passed"}
    data["payload"] = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    entry.write_text(json.dumps(data))


@pytest.mark.parametrize("damage", ["forged", "cut short", "not json"])
def test_a_forged_or_damaged_entry_is_a_miss(damage: str, fake: FakeReference, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    cache = tmp_path / "cache"
    _answers(cache)
    (entry,) = _entries(cache)
    if damage == "forged":
        _forge(entry)
    elif damage == "cut short":
        entry.write_bytes(entry.read_bytes()[:40])
    else:
        entry.write_text("[1, 2")
    monkeypatch.setattr(_oracle_run, "_MEMORY", {})
    assert _answers(cache) == EXPECTED  # the reference's own answers, not the entry's
    assert fake.runs == 2
    monkeypatch.setattr(_oracle_run, "_MEMORY", {})
    assert _answers(cache) == EXPECTED and fake.runs == 2  # rewritten whole: served again


@pytest.mark.parametrize("payload", [[1, 2], {"outcomes": {"t": 1}, "digests": {}},
                                     {"outcomes": {}, "digests": {"t": "one digest, not a list"}},
                                     {"outcomes": {}}])  # fmt: skip
def test_an_entry_of_another_shape_is_a_miss(payload: object, fake: FakeReference, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    cache = tmp_path / "cache"
    _answers(cache)
    (entry,) = _entries(cache)
    store = Store.open(cache, NAMESPACE)
    key = json.loads(entry.read_text())["key"]
    material = {"schema": _oracle_run.CACHE_SCHEMA, "answers": _oracle_run._key(load_challenge(LEAGUE), TEXT)}
    assert store.key(material) == key  # the material the engine asks with
    assert store.put(material, payload)  # with the secret: a valid entry of the wrong shape
    monkeypatch.setattr(_oracle_run, "_MEMORY", {})
    assert _answers(cache) == EXPECTED and fake.runs == 2


def test_a_cache_others_can_write_is_refused(fake: FakeReference, tmp_path: Path) -> None:
    from bouts.errors import InfrastructureError

    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    cache.chmod(0o777)
    with pytest.raises(InfrastructureError, match="writable by nobody else"):
        _answers(cache)
    assert fake.runs == 0
