"""Build a league table: three points for a win, one for a draw, ranked by points, goal
difference, goals scored, then team name."""

from __future__ import annotations

from collections.abc import Iterable


def standings(results: Iterable[tuple[str, str, int, int]]) -> list[dict]:
    """The table for ``results``, an iterable of ``(home, away, home_goals, away_goals)``."""
    rows: dict[str, dict] = {}
    for home, away, home_goals, away_goals in results:
        if home_goals < 0 or away_goals < 0:
            raise ValueError("goals cannot be negative")
        _add(rows, home, home_goals, away_goals)
        _add(rows, away, away_goals, home_goals)
    return sorted(rows.values(), key=lambda r: (-r["points"], -r["goal_difference"]))


def _add(rows: dict[str, dict], team: str, scored: int, conceded: int) -> None:
    row = rows.setdefault(team, {
        "team": team, "played": 0, "won": 0, "drawn": 0, "lost": 0,
        "goals_for": 0, "goals_against": 0, "goal_difference": 0, "points": 0,
    })
    row["played"] += 1
    row["goals_for"] += scored
    row["goals_against"] += conceded
    row["goal_difference"] = row["goals_for"] - row["goals_against"]
    if scored > conceded:
        row["won"] += 1
        row["points"] += 3
    elif scored == conceded:
        row["drawn"] += 1
        row["points"] += 1
    else:
        row["lost"] += 1
