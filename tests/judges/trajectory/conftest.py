"""Fixtures of the trajectory-judge tests: the example challenge and a way to judge hand-built events."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import bouts.judges.trajectory  # noqa: F401  (registers the judges)
from bouts.judges.base import JUDGES, JudgeInput, Verdict
from bouts.loading import load_challenge
from bouts.models.challenge import Challenge
from bouts.models.results import RunReport
from bouts.models.trajectory import Event, Trajectory

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "inventory-ledger"


@pytest.fixture(scope="session")
def challenge() -> Challenge:
    return load_challenge(EXAMPLE)


def make_events(*specs: tuple[str, dict[str, Any]] | str) -> list[Event]:
    """Events from ``("kind", {fields})`` pairs (or a bare kind), timed 0, 1, 2, ..."""
    out = []
    for t, spec in enumerate(specs):
        kind, fields = (spec, {}) if isinstance(spec, str) else spec
        out.append(Event(t=float(t), kind=kind, **fields))  # type: ignore[arg-type]
    return out


@pytest.fixture
def events() -> Callable[..., list[Event]]:
    """The ``make_events`` builder, as a fixture (test modules never import conftest)."""
    return make_events


@pytest.fixture
def judge(challenge: Challenge, tmp_path: Path) -> Callable[..., Verdict]:
    """``judge("trajectory-process", events, challenge=..., code_dir=..., run=...)`` → the verdict. The rules'
    tests judge hand-built events as the engine would have recorded them (``recorded=True``: what they
    list happened); ``recorded=False`` judges them as an uploaded log, held to the workspace's facts."""

    def run(
        name: str,
        evs: list[Event] | None,
        *,
        challenge: Challenge = challenge,
        code_dir: Path = tmp_path,
        run: RunReport | None = None,
        recorded: bool = True,
    ) -> Verdict:
        traj = None if evs is None else Trajectory(harness="canonical", events=evs)
        inp = JudgeInput.read(challenge, code_dir, trajectory=traj, run=run, recorded=recorded)
        return JUDGES.create(name).judge(inp)

    return run
