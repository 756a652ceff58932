"""The result cache around ``pipeline.score``: unchanged inputs are read, not scored; any change of
content, engine, judges or seeds is scored afresh; a stored card that is not the one asked for is
never served. The pipeline is a counting fake here (the real one: test_eval_cli.py)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from eval_helpers import BAD, GOOD, submission

from bouts.assemble import Measurements, build_scorecard
from bouts.cache import Store
from bouts.loading import load_challenge, load_submission
from bouts.models.results import Outcome, RunReport, TestResult
from bouts.models.scorecard import Scorecard
from bouts.pipeline import ScoreConfig
from bouts.result_cache import score


class Pipeline:
    """A pipeline that builds a real scorecard from the real inputs, without a sandbox, and counts."""

    def __init__(self) -> None:
        self.calls = 0
        self.infra_error: str | None = None

    def __call__(self, challenge_path: Path, submission_path: Path, *, config: ScoreConfig, **_: object) -> Scorecard:
        self.calls += 1
        challenge = load_challenge(challenge_path)
        with tempfile.TemporaryDirectory() as tmp:
            sub = load_submission(submission_path, Path(tmp))
            passed = "a + b" in (sub.code_dir / "calc.py").read_text()
        outcome = Outcome.PASSED if passed else Outcome.FAILED
        run = RunReport(
            results=[TestResult(id="tests/visible/test_calc.py::test_add", suite="visible", outcome=outcome)],
            sandbox="fake", seeds=[config.seed or 1, config.fresh_seed or 99], infra_error=self.infra_error,
        )  # fmt: skip
        return build_scorecard(challenge, sub.meta, Measurements(run, submission_hash=sub.content_hash))


@pytest.fixture
def pipeline(monkeypatch: pytest.MonkeyPatch) -> Pipeline:
    fake = Pipeline()
    monkeypatch.setattr("bouts.pipeline.score", fake)
    return fake


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "cache", "results")


def test_rescoring_unchanged_inputs_reads_the_stored_scorecard(
    tiny_challenge: Path, tmp_path: Path, pipeline: Pipeline, store: Store
) -> None:
    sub = submission(tmp_path / "sub", GOOD)
    first = score(tiny_challenge, sub, config=ScoreConfig(), cache=store)
    again = score(tiny_challenge, sub, config=ScoreConfig(), cache=store)
    assert (first.cached, again.cached, pipeline.calls) == (False, True, 1)
    assert again.card == first.card


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda ch, sub: (sub / "code" / "calc.py").write_text(GOOD + "\n"), id="one byte of the code"),
        pytest.param(lambda ch, sub: (sub / "code" / "notes.txt").write_text("x"), id="a new file"),
        pytest.param(
            lambda ch, sub: (sub / "submission.toml").write_text('agent = "b"\nchallenge = "tiny-calc"\n'), id="meta"
        ),
        pytest.param(lambda ch, sub: (ch / "tests" / "hidden" / "test_more.py").write_text(""), id="a hidden test"),
        pytest.param(lambda ch, sub: (ch / "reference" / "calc.py").write_text(BAD), id="the reference"),
    ],
)
def test_a_changed_byte_of_either_input_is_scored_afresh(
    tiny_challenge: Path, tmp_path: Path, pipeline: Pipeline, store: Store, change
) -> None:
    sub = submission(tmp_path / "sub", GOOD)
    score(tiny_challenge, sub, config=ScoreConfig(), cache=store)
    change(tiny_challenge, sub)
    assert not score(tiny_challenge, sub, config=ScoreConfig(), cache=store).cached
    assert pipeline.calls == 2


@pytest.mark.parametrize(
    ("config", "judges"),
    [
        (ScoreConfig(seed=5), None),
        (ScoreConfig(fresh_seed=6), None),
        (ScoreConfig(judges=()), None),
        (ScoreConfig(adversarial_generation=False), None),
        (ScoreConfig(sandbox="none"), None),
        (ScoreConfig(), {"llm_panel": {"judges": [{"model": "m2"}]}}),
    ],
)
def test_other_judges_seeds_or_sandbox_are_scored_afresh(
    tiny_challenge: Path, tmp_path: Path, pipeline: Pipeline, store: Store, config: ScoreConfig, judges
) -> None:
    sub = submission(tmp_path / "sub", GOOD)
    score(tiny_challenge, sub, config=ScoreConfig(), cache=store)
    assert not score(tiny_challenge, sub, config=config, cache=store, judge_material=judges).cached
    assert pipeline.calls == 2


def test_where_and_how_fast_do_not_key_the_result(
    tiny_challenge: Path, tmp_path: Path, pipeline: Pipeline, store: Store
) -> None:
    sub = submission(tmp_path / "sub", GOOD)
    score(tiny_challenge, sub, config=ScoreConfig(workers=2), cache=store)
    assert score(tiny_challenge, sub, config=ScoreConfig(workers=1, cache_dir=tmp_path), cache=store).cached


def test_refresh_scores_afresh_and_stores_the_new_card(
    tiny_challenge: Path, tmp_path: Path, pipeline: Pipeline, store: Store
) -> None:
    sub = submission(tmp_path / "sub", GOOD)
    score(tiny_challenge, sub, config=ScoreConfig(), cache=store)
    assert not score(tiny_challenge, sub, config=ScoreConfig(), cache=store, refresh=True).cached
    assert score(tiny_challenge, sub, config=ScoreConfig(), cache=store).cached
    assert pipeline.calls == 2


def test_an_infrastructure_failure_is_never_stored(
    tiny_challenge: Path, tmp_path: Path, pipeline: Pipeline, store: Store
) -> None:
    sub = submission(tmp_path / "sub", GOOD)
    pipeline.infra_error = "bwrap: cannot start"
    assert score(tiny_challenge, sub, config=ScoreConfig(), cache=store).card.infra_error
    pipeline.infra_error = None
    assert not score(tiny_challenge, sub, config=ScoreConfig(), cache=store).cached
    assert score(tiny_challenge, sub, config=ScoreConfig(), cache=store).card.infra_error is None


def test_a_stored_card_of_another_submission_is_never_served(
    tiny_challenge: Path, tmp_path: Path, pipeline: Pipeline, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Attack: a valid entry (right key, right MAC) whose scorecard is another submission's 100.
    good, bad = submission(tmp_path / "good", GOOD), submission(tmp_path / "bad", BAD)
    perfect = score(tiny_challenge, good, config=ScoreConfig(), cache=store).card
    stored: list[tuple[object, object]] = []
    monkeypatch.setattr(store, "put", lambda material, payload: stored.append((material, payload)))
    score(tiny_challenge, bad, config=ScoreConfig(), cache=store)
    ((material, _),) = stored
    Store.put(store, material, perfect.model_dump(mode="json", by_alias=True))
    again = score(tiny_challenge, bad, config=ScoreConfig(), cache=store)
    assert not again.cached and again.card.components["static_tests"].score == 0


def test_a_stored_card_with_other_seeds_than_asked_is_never_served(
    tiny_challenge: Path, tmp_path: Path, pipeline: Pipeline, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    sub = submission(tmp_path / "sub", GOOD)
    stored: list[tuple[object, object]] = []
    real_put = store.put
    monkeypatch.setattr(store, "put", lambda material, payload: stored.append((material, payload)))
    score(tiny_challenge, sub, config=ScoreConfig(seed=5), cache=store)
    ((material, payload),) = stored
    payload["reproducibility"]["seeds"] = [6, 99]  # the card of another seed, under this key
    real_put(material, payload)
    assert not score(tiny_challenge, sub, config=ScoreConfig(seed=5), cache=store).cached


def test_inputs_that_cannot_be_loaded_are_the_pipelines_to_report(
    tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bouts.errors import ChallengeError

    def refuse(challenge_path: Path, *_: object, **__: object) -> Scorecard:
        raise ChallengeError("is not a challenge directory", file=str(challenge_path))

    monkeypatch.setattr("bouts.pipeline.score", refuse)
    with pytest.raises(ChallengeError, match="nowhere"):
        score(tmp_path / "nowhere", tmp_path / "sub", config=ScoreConfig(), cache=store)
