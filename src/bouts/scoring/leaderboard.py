"""Leaderboard order and score-trajectory shapes (SPEC §4). Pure: entries in, order out.

A provisional entry (its scorecard was made without a component the platform failed to measure, SPEC
§6) ranks after every complete one, whatever its score, until a re-score completes it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bouts.scoring.explain import clean, fmt

Shape = Literal["one-shot", "monotonic", "regression", "last-jump"]

# last-jump: every attempt before the last lies within FLAT_BAND points of each other, and the last
# one rises at least JUMP points above the best of them (trial and error, then a hit).
FLAT_BAND = 5.0
JUMP = 15.0


@dataclass(frozen=True)
class Entry:
    agent: str
    final: float
    iterations: int
    time_s: float | None
    """Time to the final submission; unknown sorts last among equals."""
    history: tuple[float, ...] = ()
    """Final scores of the agent's attempts, in order."""
    provisional: bool = False
    """The standing scorecard is provisional (a component the platform failed to measure): ranked after
    every complete entry."""


def sort_key(entry: Entry) -> tuple[bool, float, int, float, str]:
    """Complete before provisional, then higher final, then fewer iterations, then faster; the agent
    name makes the order total."""
    time = entry.time_s if entry.time_s is not None else float("inf")
    return (entry.provisional, -entry.final, entry.iterations, time, entry.agent)


def rank(entries: Sequence[Entry]) -> list[tuple[int, Entry]]:
    """Entries in leaderboard order with their rank; entries equal on all three keys (and on being
    provisional) share a rank."""
    ordered = sorted(entries, key=sort_key)
    ranked: list[tuple[int, Entry]] = []
    for i, e in enumerate(ordered):
        if ranked and sort_key(e)[:4] == sort_key(ranked[-1][1])[:4]:
            ranked.append((ranked[-1][0], e))
        else:
            ranked.append((i + 1, e))
    return ranked


def shape(history: Sequence[float]) -> Shape:
    """Name the shape of a score trajectory.

    one-shot: a single attempt. regression: some attempt scored lower than the one before it.
    last-jump: flat (within 5 points) and then a final jump of 15 or more. monotonic: otherwise
    (never lower than the attempt before).
    """
    if not history:
        raise ValueError("a score trajectory needs at least one attempt")
    if len(history) == 1:
        return "one-shot"
    if any(b < a for a, b in zip(history, history[1:], strict=False)):
        return "regression"
    before = history[:-1]
    flat = clean(max(before) - min(before)) <= FLAT_BAND
    if len(before) >= 2 and flat and clean(history[-1] - max(before)) >= JUMP:
        return "last-jump"
    return "monotonic"


def render_history(history: Sequence[float]) -> str:
    """``[60 → 72 → 78 → 85]``."""
    return "[" + " → ".join(fmt(s) for s in history) + "]"
