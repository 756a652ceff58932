"""Efficiency judge: waste ratio, retry churn, token burn against the budget, tool misuse."""

from __future__ import annotations

import pytest

from bouts.models.challenge import Budgets
from bouts.scoring.explain import NotScored

EFF = "trajectory-efficiency"


def _rules(v):
    return [(f.event, f.rule) for f in v.findings]


def test_no_trajectory_or_no_action_is_not_scored(judge, events):
    assert isinstance(judge(EFF, None).score, NotScored)
    assert isinstance(judge(EFF, events(("message", {"text": "hi"}))).score, NotScored)


def test_clean_run_is_100(judge, events):
    v = judge(
        EFF,
        events(("read", {"path": "a.py"}), ("edit", {"path": "a.py"}), ("run", {"command": "pytest", "exit_code": 0})),
    )
    assert v.score.value == 100


def test_identical_run_with_nothing_changed_is_churn(judge, events):
    run = ("run", {"command": "pytest", "exit_code": 1})
    evs = events(run, run, ("edit", {"path": "a.py"}), run, ("read", {"path": "a.py"}), run)
    v = judge(EFF, evs)
    assert _rules(v) == [(1, "efficiency.churn"), (5, "efficiency.churn")]  # a read is no change
    assert v.score.value == 90


def test_repeated_search_discarded_output_and_read_back_are_misuse(judge, events):
    evs = events(
        ("search", {"query": "def  f"}),
        ("search", {"query": "def f"}),
        ("run", {"command": "python setup.py > /dev/null 2>&1", "exit_code": 0}),
        ("write", {"path": "n.py"}),
        ("read", {"path": "n.py"}),
    )
    v = judge(EFF, evs)
    assert [e for e, r in _rules(v) if r == "efficiency.misuse"] == [1, 2, 4]
    assert v.score.value == 91


def test_redundant_reads_are_waste(judge, events):
    evs = events(*[("read", {"path": "a.py"})] * 4)
    v = judge(EFF, evs)
    assert [e for e, r in _rules(v) if r == "efficiency.waste"] == [1, 2, 3]
    assert v.score.value == pytest.approx(100 - 40 * 3 / 4)


def test_tokens_over_budget_cost_up_to_30_and_under_budget_earns_nothing(judge, events, challenge):
    acts = [("read", {"path": "a.py"})]
    under = judge(EFF, events(*acts, ("usage", {"tokens_in": 10, "tokens_out": 1})))
    assert under.score.value == 100
    over = judge(EFF, events(*acts, ("usage", {"tokens_in": 250_000, "tokens_out": 50_000})))  # 1.5 × 200k
    assert over.score.value == 85 and any(f.rule == "efficiency.tokens" for f in over.findings)
    way_over = judge(EFF, events(*acts, ("usage", {"tokens_in": 900_000, "tokens_out": 0})))
    assert way_over.score.value == 70
    no_budget = challenge.model_copy(update={"spec": challenge.spec.model_copy(update={"budgets": Budgets()})})
    v = judge(EFF, events(*acts, ("usage", {"tokens_in": 900_000, "tokens_out": 0})), challenge=no_budget)
    assert v.score.value == 100 and "no budget" in v.score.math[3]
