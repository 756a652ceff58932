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


def test_tokens_cost_in_proportion_to_the_budget_used_and_up_to_30_over_it(judge, events, challenge):
    acts = [("read", {"path": "a.py"})]
    frugal = judge(EFF, events(*acts, ("usage", {"tokens_in": 20_000, "tokens_out": 0})))  # 0.1 × 200k
    spent = judge(EFF, events(*acts, ("usage", {"tokens_in": 180_000, "tokens_out": 0})))  # 0.9 × 200k
    assert (frugal.score.value, spent.score.value) == (99, 91)  # fewer tokens, same result: higher
    over = judge(EFF, events(*acts, ("usage", {"tokens_in": 250_000, "tokens_out": 50_000})))  # 1.5 × 200k
    assert over.score.value == 80 and any(f.rule == "efficiency.tokens" for f in over.findings)
    way_over = judge(EFF, events(*acts, ("usage", {"tokens_in": 900_000, "tokens_out": 0})))
    assert way_over.score.value == 70
    no_budget = challenge.model_copy(update={"spec": challenge.spec.model_copy(update={"budgets": Budgets()})})
    v = judge(EFF, events(*acts, ("usage", {"tokens_in": 900_000, "tokens_out": 0})), challenge=no_budget)
    assert v.score.value == 100 and "no budget" in v.score.math[3]


def test_actions_are_compared_with_the_reference_decomposition(judge, events, challenge):
    """The example's reference has 6 steps: 30 actions allowed. 10 reads are within it; 50 cost
    20 × (1 − 30/50) and a finding (seed 004: 10 vs 50 tool calls must differ)."""
    assert len(challenge.spec.decomposition) == 6
    reads = [("read", {"path": f"ledger/f{i}.py"}) for i in range(50)]
    ten, fifty = judge(EFF, events(*reads[:10])), judge(EFF, events(*reads))
    assert ten.score.value == 100
    assert fifty.score.value == pytest.approx(100 - 20 * (1 - 30 / 50), abs=1e-4)
    assert [f.message for f in fifty.findings if f.rule == "efficiency.actions"] == [
        "50 actions for a reference decomposition of 6 steps (30 allowed)"
    ]


def test_a_trajectory_longer_than_the_time_budget_costs_efficiency(judge, events, challenge):
    """``[budgets] time_s`` (1800 s here): the trajectory's span over it costs min(20, 20 × (t/1800 − 1))."""
    assert challenge.spec.budgets.time_s == 1800
    acts = [("read", {"path": f"ledger/f{i}.py"}) for i in range(3)]

    def at(seconds: float):
        evs = events(*acts)
        return judge(EFF, [e.model_copy(update={"t": seconds * (i + 1) / len(evs)}) for i, e in enumerate(evs)])

    within, over, far = at(1700), at(2700), at(9000)
    assert within.score.value == 100 and not [f for f in within.findings if f.rule == "efficiency.time"]
    assert over.score.value == pytest.approx(90)  # 20 × (1.5 − 1)
    assert far.score.value == 80  # at most 20
    assert [f.message for f in over.findings if f.rule == "efficiency.time"] == [
        "the trajectory spans 2700 s, over the 1800 s budget"
    ]
    assert "time: 2700 s of the 1800 s budget = 1.5 → −10" in over.score.math[5]
