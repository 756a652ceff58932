"""The result cache: a layer around ``bouts.pipeline.score``.

A scorecard is a pure function of the challenge's content, the submission's content, the engine
(``engine_fingerprint``), the judge configuration and the seeds asked for; with the same five, the
stored scorecard is served and nothing runs (no sandbox, no scanner, no LLM call). Design notes:
docs/configuration.md#caches.

- The key is built from content hashes, computed by the same loaders the pipeline uses: a changed
  byte anywhere in the challenge directory or the submission is a different key.
- Seeds: the published seed, the fresh seed and the generated tests' seed as *asked for*. A run
  that asked for a random fresh seed is served with the fresh seed it drew (recorded on the card):
  the submission is unchanged, so it could not have known either seed.
- What is never stored: a scorecard with an infrastructure failure or a judge that could not run or
  broke (running again may well succeed), or one whose hashes differ from the key (an input that
  changed while it was scored).
- What is checked on read, besides the store's own checks: the entry parses as a scorecard and its
  engine version, challenge, submission, agent, iteration and seeds are the ones asked for.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bouts.cache import Store
from bouts.errors import InputError
from bouts.models.challenge import Challenge
from bouts.models.results import TestResult
from bouts.models.scorecard import Scorecard

NAMESPACE = "results"
SCHEMA = "bouts.result/1"
UNCACHEABLE_FLAGS = frozenset({"infrastructure_failure", "judge_unavailable", "judge_error"})
"""Flags that say the run, not the submission, went wrong: such a scorecard is not stored."""
NOT_KEYED = frozenset({"cache_dir", "workers"})
"""``ScoreConfig`` fields that change where or how fast, never what is scored."""


@dataclass(frozen=True)
class Scored:
    """A scorecard, and whether it came from the cache."""

    card: Scorecard
    cached: bool


def score(
    challenge_path: Path,
    submission_path: Path,
    *,
    config: Any,
    cache: Store | None,
    refresh: bool = False,
    judge_material: Mapping[str, Any] | None = None,
    progress: Callable[[TestResult], None] | None = None,
    on_start: Callable[[Challenge, int], None] | None = None,
) -> Scored:
    """``bouts.pipeline.score`` behind the result cache.

    ``config`` is the ``ScoreConfig`` to score with. ``cache`` None: no cache (always scored).
    ``refresh``: never read the cache (the fresh scorecard is stored). ``judge_material``: the
    configuration of judges seated at run time, which the engine's code does not fix (an LLM panel);
    a driver that seats such judges must pass it.
    Errors are the pipeline's: an input that cannot even be hashed is handed to it to report.
    """
    material = None if cache is None else _material(challenge_path, submission_path, config, judge_material)
    if material is not None and cache is not None and not refresh:
        card = _valid(cache.get(material), material)
        if card is not None:
            return Scored(card, cached=True)
    from bouts import pipeline  # heavy (every judge): imported only when something is scored

    card = pipeline.score(challenge_path, submission_path, config=config, progress=progress, on_start=on_start)
    if material is not None and cache is not None and _storable(card, material):
        cache.put(material, card.model_dump(mode="json", by_alias=True))
    return Scored(card, cached=False)


def _material(
    challenge_path: Path, submission_path: Path, config: Any, judge_material: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """The key's material, or None when the inputs cannot be loaded (the pipeline then says why)."""
    from bouts.loading import load_challenge, load_submission
    from bouts.version import __version__

    try:
        challenge = load_challenge(challenge_path)
        with tempfile.TemporaryDirectory(prefix="bouts-cache-key-") as tmp:
            submission = load_submission(submission_path, Path(tmp))
    except InputError:
        return None
    settings = {f.name: getattr(config, f.name) for f in dataclasses.fields(config) if f.name not in NOT_KEYED}
    return {
        "schema": SCHEMA,
        "engine_version": __version__,
        "challenge": challenge.content_hash,
        "challenge_id": challenge.spec.id,
        "submission": submission.content_hash,
        "agent": submission.meta.agent,
        "iteration": submission.meta.iteration,
        "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in settings.items()},
        "judges": dict(judge_material or {}),
    }


def _valid(payload: Any, material: Mapping[str, Any]) -> Scorecard | None:
    """The stored scorecard if it is one, and the one asked for; None otherwise (scored afresh)."""
    if payload is None:
        return None
    try:
        card = Scorecard.model_validate(payload)
    except ValueError:
        return None
    if not _matches(card, material):
        return None
    cfg = material["config"]
    seeds = card.reproducibility.seeds
    if cfg.get("seed") is not None and seeds[:1] != [cfg["seed"]]:
        return None
    if cfg.get("fresh_seed") is not None and seeds[1:2] != [cfg["fresh_seed"]]:
        return None
    return card


def _matches(card: Scorecard, material: Mapping[str, Any]) -> bool:
    r = card.reproducibility
    return (
        r.engine_version == material["engine_version"]
        and r.challenge_hash == material["challenge"]
        and r.submission_hash == material["submission"]
        and card.challenge == material["challenge_id"]
        and card.agent == material["agent"]
        and card.iteration == material["iteration"]
    )


def _storable(card: Scorecard, material: Mapping[str, Any]) -> bool:
    if card.infra_error or any(f.code in UNCACHEABLE_FLAGS for f in card.flags):
        return False
    return _matches(card, material)  # an input changed while it was scored: keep nothing
