"""Build a league table: three points for a win, one for a draw, ranked by points, goal
difference, goals scored, then team name."""

from __future__ import annotations

from collections.abc import Iterable

WIN_POINTS = 3
DRAW_POINTS = 1


def standings(results: Iterable[tuple[str, str, int, int]]) -> list[dict]:
    """The table for ``results``, an iterable of ``(home, away, home_goals, away_goals)``.

    Returns one row per team that played, best first: points, then goal difference, then goals
    scored (all descending), then team name (ascending). Raises ``ValueError`` for a malformed
    result (blank or non-string team, a team playing itself, goals that are not non-negative
    integers); nothing is returned for a partly valid input.
    """
    rows: dict[str, dict] = {}
    for number, result in enumerate(results, start=1):
        home, away, home_goals, away_goals = _checked(result, number)
        _record(rows, home, home_goals, away_goals)
        _record(rows, away, away_goals, home_goals)
    return sorted(rows.values(), key=lambda r: (-r["points"], -r["goal_difference"], -r["goals_for"], r["team"]))


def _checked(result: object, number: int) -> tuple[str, str, int, int]:
    if not isinstance(result, tuple | list) or len(result) != 4:
        raise ValueError(f"result {number}: expected (home, away, home_goals, away_goals)")
    home, away, home_goals, away_goals = result
    for team in (home, away):
        if not isinstance(team, str) or not team.strip() or team != team.strip():
            raise ValueError(f"result {number}: team names must be non-blank strings without padding")
    if home == away:
        raise ValueError(f"result {number}: {home!r} cannot play itself")
    for goals in (home_goals, away_goals):
        if type(goals) is not int or goals < 0:
            raise ValueError(f"result {number}: goals must be non-negative integers, got {goals!r}")
    return home, away, home_goals, away_goals


def _record(rows: dict[str, dict], team: str, scored: int, conceded: int) -> None:
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
        row["points"] += WIN_POINTS
    elif scored == conceded:
        row["drawn"] += 1
        row["points"] += DRAW_POINTS
    else:
        row["lost"] += 1
