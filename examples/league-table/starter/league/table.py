"""Build a league table: three points for a win, one for a draw, ranked by points, goal
difference, goals scored, then team name."""

from __future__ import annotations

from collections.abc import Iterable


def standings(results: Iterable[tuple[str, str, int, int]]) -> list[dict]:
    """The table for ``results``, an iterable of ``(home, away, home_goals, away_goals)``.

    Returns one row per team that played, best first: points, then goal difference, then goals
    scored (all descending), then team name (ascending). Each row is a dict with the keys team,
    played, won, drawn, lost, goals_for, goals_against, goal_difference, points. Raises
    ``ValueError`` for a malformed result (blank or non-string team, a team playing itself, goals
    that are not non-negative integers).
    """
    raise NotImplementedError("standings is not written yet")
