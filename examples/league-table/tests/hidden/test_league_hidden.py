"""Hidden tests: at least two per visible behaviour (value swap, order sensitivity, 10,000-record
scale, invalid input). Names read ``test_<visible behaviour>__<variant>``.

Values are checked with ``bouts_expect(value)``: the runner compares their digests with the
reference solution's, so no expected table is in this file. Randomised tests draw from
``bouts_seed`` and always include fixed cases with ties, so an implementation that gets a
tie-break wrong fails under every seed.
"""

import random

import pytest

from league import standings

COLUMNS = ("team", "played", "won", "drawn", "lost", "goals_for", "goals_against", "goal_difference", "points")
TEAMS = ["Ajax", "Benfica", "Celtic", "Dynamo", "Everton", "Fulham", "Genoa", "Hertha", "Inter", "Juventus",
         "Kaiserslautern", "Lazio", "Monaco", "Napoli", "Olympiakos", "Porto", "Quilmes", "Rapid", "Sevilla", "Torino"]


def _rows(table):
    return [tuple(row[c] for c in COLUMNS) for row in table]


def _season(rng, teams, matches):
    out = []
    for _ in range(matches):
        home, away = rng.sample(teams, 2)
        out.append((home, away, rng.randint(0, 5), rng.randint(0, 5)))
    return out


def _consistent(table, matches):
    """Invariants any correct table keeps (checked without knowing the answer)."""
    assert sum(r["played"] for r in table) == 2 * matches
    for r in table:
        assert r["points"] == 3 * r["won"] + r["drawn"]
        assert r["played"] == r["won"] + r["drawn"] + r["lost"]
        assert r["goal_difference"] == r["goals_for"] - r["goals_against"]


# A fixed season full of ties: equal points split by goal difference, by goals scored, and by name.
TIED = [
    ("Porto", "Lazio", 2, 0), ("Lazio", "Monaco", 3, 1), ("Monaco", "Porto", 2, 0),
    ("Napoli", "Inter", 1, 1), ("Inter", "Genoa", 0, 0), ("Genoa", "Napoli", 0, 0),
    ("Torino", "Rapid", 3, 3), ("Rapid", "Sevilla", 1, 1), ("Sevilla", "Torino", 2, 2),
]


# -- single match win ----------------------------------------------------------------------


def test_single_match_win_gives_three_points__away_win(bouts_expect):
    bouts_expect(_rows(standings([("Quilmes", "Rapid", 0, 3)])))


def test_single_match_win_gives_three_points__seeded_scores(bouts_seed, bouts_expect):
    rng = random.Random(bouts_seed)
    for _ in range(20):
        home, away = rng.sample(TEAMS, 2)
        goals = rng.randint(1, 9)
        bouts_expect(_rows(standings([(home, away, goals, rng.randint(0, goals - 1))])))


# -- draw ----------------------------------------------------------------------------------


def test_draw_gives_one_point_each__goalless(bouts_expect):
    bouts_expect(_rows(standings([("Torino", "Sevilla", 0, 0)])))


def test_draw_gives_one_point_each__other_teams_and_score(bouts_expect):
    bouts_expect(_rows(standings([("Monaco", "Lazio", 4, 4), ("Inter", "Monaco", 2, 2)])))


# -- ranking by points ---------------------------------------------------------------------


def test_small_league_is_ranked_by_points__reverse_order(bouts_expect):
    forward = standings(TIED)
    backward = standings(list(reversed(TIED)))
    assert _rows(forward) == _rows(backward)
    bouts_expect(_rows(backward))


def test_small_league_is_ranked_by_points__seeded_shuffle(bouts_seed, bouts_expect):
    rng = random.Random(bouts_seed)
    results = TIED + _season(rng, TEAMS[:8], 40)
    baseline = _rows(standings(results))
    for _ in range(5):
        rng.shuffle(results)
        assert _rows(standings(results)) == baseline
    bouts_expect(baseline)


def test_small_league_is_ranked_by_points__scale_10000(bouts_seed, bouts_expect):
    rng = random.Random(bouts_seed)
    # One fixed level pair first (listed out of name order), then 9,999 seeded matches.
    results = [("Zenit", "Yverdon", 1, 1)] + _season(rng, TEAMS, 9_999)
    table = standings(results)
    _consistent(table, 10_000)
    bouts_expect(_rows(table))


# -- tie-breaks ------------------------------------------------------------------------------


def test_goal_difference_breaks_a_points_tie__goals_scored_next(bouts_expect):
    # Porto, Lazio, Monaco: 3 points and goal difference 0 each; goals scored decide.
    bouts_expect([row["team"] for row in standings(TIED)])


def test_goal_difference_breaks_a_points_tie__name_last(bouts_expect):
    # Fully level teams are listed by name, whatever order they first appear in.
    table = standings([("Zenit", "Yverdon", 1, 1), ("Xanthi", "Wisla", 1, 1)])
    bouts_expect([row["team"] for row in table])


def test_goal_difference_breaks_a_points_tie__seeded_ties(bouts_seed, bouts_expect):
    rng = random.Random(bouts_seed)
    teams = rng.sample(TEAMS, 20)
    # Six pairs that only draw each other 1-1: twelve fully level teams, each pair listed in
    # reverse name order, so only a name tie-break orders them right. Then a season of the rest.
    pairs = [sorted(teams[i:i + 2], reverse=True) for i in range(0, 12, 2)]
    results = [(a, b, 1, 1) for a, b in pairs] + _season(rng, teams[12:], 30)
    bouts_expect(_rows(standings(results)))


# -- empty input and inputs of other shapes --------------------------------------------------


def test_no_results_give_an_empty_table__any_iterable(bouts_expect):
    bouts_expect(_rows(standings(iter([("Ajax", "Benfica", 1, 0)]))))
    bouts_expect(_rows(standings(r for r in TIED)))
    assert standings(()) == []


def test_no_results_give_an_empty_table__no_state_between_calls(bouts_expect):
    standings(TIED)
    assert standings([]) == []
    bouts_expect(_rows(standings([("Ajax", "Benfica", 1, 0)])))


# -- invalid input -------------------------------------------------------------------------


def test_negative_goals_are_rejected__team_cannot_play_itself():
    with pytest.raises(ValueError):
        standings([("Ajax", "Ajax", 1, 0)])


def test_negative_goals_are_rejected__non_integer_goals():
    for bad in (1.5, "2", None):
        with pytest.raises(ValueError):
            standings([("Ajax", "Benfica", bad, 0)])


def test_negative_goals_are_rejected__blank_or_missing_team():
    for bad in ("", None, 7):
        with pytest.raises(ValueError):
            standings([(bad, "Benfica", 1, 0)])


def test_negative_goals_are_rejected__bad_record_at_the_end_of_10000(bouts_seed):
    rng = random.Random(bouts_seed)
    results = _season(rng, TEAMS, 9_999) + [("Ajax", "Benfica", 0, -2)]
    with pytest.raises(ValueError):
        standings(results)
