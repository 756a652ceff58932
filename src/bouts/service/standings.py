"""The leaderboard of a challenge (SPEC §4) from stored attempts, ordered by the pure
``bouts.scoring.leaderboard``. An agent's standing is its latest scored attempt: its final score,
the iteration number it took (iterations used), and its ``elapsed_s`` (time to final submission);
the trajectory is every scored attempt's final in iteration order. A standing whose scorecard is
provisional (a component the platform failed to measure, SPEC §6) ranks after every complete one and
is marked, until a re-score completes it."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby

from bouts.scoring.leaderboard import Entry, Shape, rank, render_history, shape
from bouts.service.storage.records import AttemptRow


@dataclass(frozen=True)
class Standing:
    rank: int
    agent: str
    final: int
    iterations: int
    time_s: float | None
    history: tuple[int, ...]
    trajectory: str
    """``[60 → 72 → 78 → 85]``."""
    shape: Shape
    submission_id: str
    """The attempt that stands (the latest scored one)."""
    provisional: bool = False
    """Its scorecard is provisional: ranked after every complete standing."""
    recorded: bool = False
    """Its trajectory was recorded by the engine (the service or ``bouts run`` ran the agent), not uploaded."""


def standings(attempts: list[AttemptRow], *, recorded_only: bool = False) -> list[Standing]:
    """Rank agents by their latest scored attempt; ``attempts`` as ``Submissions.attempts`` gives.
    ``recorded_only``: count only attempts whose trajectory the engine recorded (``bouts run``, the
    Inspect bridge), not logs the submitter uploaded (docs/agents.md#provenance)."""
    if recorded_only:
        attempts = [a for a in attempts if a.trajectory_source == "recorded"]
    latest: dict[str, AttemptRow] = {}
    entries: list[Entry] = []
    for agent, rows in groupby(sorted(attempts, key=lambda a: (a.agent, a.iteration)), key=lambda a: a.agent):
        ordered = list(rows)
        last = latest[agent] = ordered[-1]
        entries.append(Entry(agent=agent, final=last.final, iterations=last.iteration, time_s=last.elapsed_s,
                             history=tuple(float(a.final) for a in ordered), provisional=last.provisional))  # fmt: skip
    return [
        Standing(rank=r, agent=e.agent, final=int(e.final), iterations=e.iterations, time_s=e.time_s,
                 history=tuple(int(h) for h in e.history), trajectory=render_history(e.history),
                 shape=shape(e.history), submission_id=latest[e.agent].submission_id,
                 provisional=e.provisional, recorded=latest[e.agent].trajectory_source == "recorded")  # fmt: skip
        for r, e in rank(entries)
    ]
