"""The review queue: state machine, invariants (hypothesis), the JSON store and the CLI."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from calib_factories import make_card
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from bouts.calibration.review import (
    ReviewError,
    ReviewItem,
    appeal,
    collect,
    current_score,
    decide,
    escalate,
    open_item,
)  # fmt: skip
from bouts.calibration.store import JsonReviewStore, MemoryReviewStore, ReviewConflictError
from bouts.cli.main import app

T0 = datetime(2025, 1, 1, tzinfo=UTC)
FLAG = ("judge_divergence", "judges more than 40 apart: objective 90 vs integrity 0 (Δ 90)")


def _item() -> ReviewItem:
    card = make_card({"objective": 90.0, "integrity": 0.0, "process": 80.0}, final=55, flags=(FLAG,))
    item = open_item(card, actor="bouts", at=T0)
    assert item is not None
    return item


def test_only_divergent_scorecards_open_items_at_level_one() -> None:
    assert open_item(make_card({"objective": 50.0}), actor="x", at=T0) is None
    item = _item()
    assert (item.level, item.status, item.level_name) == (1, "open", "statistical flag")
    assert item.judges == {"objective": 90.0, "process": 80.0, "integrity": 0.0}
    assert current_score(item) == 55


def test_a_code_quality_panel_that_could_not_agree_opens_an_item_too() -> None:
    card = make_card({"objective": 80.0}, flags=(("human_review", "code_quality: Judges couldn't agree"),))
    item = open_item(card, actor="x", at=T0)
    assert item is not None and item.level == 1 and item.flag == "human_review: code_quality: Judges couldn't agree"
    both = make_card({"objective": 80.0}, flags=(("judge_divergence", "objective 90 vs integrity 0"),
                                                 ("human_review", "code_quality: Judges couldn't agree")))
    assert open_item(both, actor="x", at=T0).flag == (  # type: ignore[union-attr]
        "objective 90 vs integrity 0; human_review: code_quality: Judges couldn't agree"
    )
    assert open_item(make_card({"objective": 80.0}, flags=(("security_cliff", "x"),)), actor="x", at=T0) is None


def test_escalation_decision_appeal_and_redecision_keep_the_trail() -> None:
    item = escalate(_item(), actor="ops", at=T0, reason="integrity 0 looks wrong")
    item = decide(item, actor="ana", at=T0, reason="rubric: bright line confirmed", score=40)
    assert (item.status, item.level, current_score(item)) == ("decided", 2, 40)
    item = appeal(item, actor="agent-owner", at=T0, reason="the literal is a constant, not a hard-code")
    assert (item.status, item.level) == ("open", 3)
    item = decide(
        item, actor="judge-board", at=T0, reason="arbitration: gray area only", score=62, outcome="rubric_fixed"
    )
    decisions = [e for e in item.history if e.kind == "decided"]
    assert [(d.before, d.after, d.level) for d in decisions] == [(55, 40, 2), (40, 62, 3)]
    assert current_score(item) == 62
    with pytest.raises(ReviewError):
        escalate(item, actor="x", at=T0, reason="decided items are appealed, not escalated")


def test_escalation_stops_at_human_arbitration() -> None:
    item = escalate(escalate(_item(), actor="a", at=T0, reason="r"), actor="a", at=T0, reason="r")
    assert item.level == 3
    with pytest.raises(ReviewError, match="already at level 3"):
        escalate(item, actor="a", at=T0, reason="r")
    with pytest.raises(ReviewError, match="not decided"):
        appeal(item, actor="a", at=T0, reason="r")


ACTIONS = st.lists(
    st.tuples(st.sampled_from(["escalate", "decide", "appeal"]), st.floats(0, 100, allow_nan=False)), max_size=12
)


@settings(max_examples=150, deadline=None)
@given(ACTIONS)
def test_history_is_append_only_and_the_current_score_is_the_last_decisions(actions: list) -> None:
    item = _item()
    for n, (action, score) in enumerate(actions):
        at = T0 + timedelta(minutes=n)
        before = item
        try:
            if action == "escalate":
                item = escalate(item, actor="a", at=at, reason="r")
            elif action == "decide":
                outcome = "both_valid" if item.level == 3 else None  # level 3 names its outcome
                item = decide(item, actor="a", at=at, reason="r", score=score, outcome=outcome)
            else:
                item = appeal(item, actor="a", at=at, reason="r")
        except ReviewError:
            assert item is before
            continue
        assert item.history[: len(before.history)] == before.history and len(item.history) == len(before.history) + 1
        assert 1 <= item.level <= 3 and item.level >= before.level
        last = [e.after for e in item.history if e.kind == "decided"]
        assert current_score(item) == (last[-1] if last else item.original)
        if action == "decide":
            assert item.history[-1].before == current_score(before)


@pytest.mark.parametrize("make_store", [MemoryReviewStore, "json"])
def test_stores_refuse_stale_writes_and_rewritten_history(make_store: object, tmp_path: Path) -> None:
    store = JsonReviewStore(tmp_path / "q") if make_store == "json" else MemoryReviewStore()  # type: ignore[operator]
    item = _item()
    store.put(item, expected_version=None)
    with pytest.raises(ReviewConflictError):
        store.put(item, expected_version=None)
    a = escalate(item, actor="a", at=T0, reason="first")
    store.put(a, expected_version=item.version)
    b = decide(item, actor="b", at=T0, reason="raced", score=10)
    with pytest.raises(ReviewConflictError):
        store.put(b, expected_version=item.version)  # b read the item before a wrote
    forged = a.model_copy(update={"history": (a.history[0].model_copy(update={"reason": "edited"}), *a.history[1:])})
    with pytest.raises(ReviewError, match="append-only"):
        store.put(decide(forged, actor="c", at=T0, reason="r", score=1), expected_version=a.version)
    assert store.get(item.id) == a and store.list(status="open") == [a] and store.list(challenge="other") == []


def test_collect_skips_known_items() -> None:
    cards = [make_card({"objective": 1.0}, agent=f"a{i}", flags=(FLAG,)) for i in range(3)] + [make_card({})]
    first = collect(cards, set(), actor="x", at=T0)
    assert len(first) == 3
    assert collect(cards, {i.id for i in first}, actor="x", at=T0) == []


def test_review_cli_collect_escalate_decide_show(tmp_path: Path) -> None:
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "a.json").write_text(make_card({"objective": 90.0, "integrity": 0.0}, final=55, flags=(FLAG,)).to_json())
    store = ["--store", str(tmp_path / "q")]
    run = CliRunner().invoke
    assert "queued 1 new item" in run(app, ["review", "collect", str(cards), *store]).output
    items = json.loads(run(app, ["review", "list", *store, "--json"]).output)
    item_id = items[0]["id"]
    out = run(app, ["review", "escalate", item_id, "--reason", "rubric check", "--by", "ops", *store])
    assert out.exit_code == 0 and "level 2 (rubric review)" in out.output
    out = run(app, ["review", "decide", item_id, "--reason", "confirmed", "--score", "48", "--by", "ana", *store])
    assert out.exit_code == 0 and "current score 48" in out.output
    again = run(app, ["review", "decide", item_id, "--reason", "twice", "--score", "1", *store])
    assert again.exit_code == 2 and "appeal it first" in again.output
    shown = json.loads(run(app, ["review", "show", item_id, "--json", *store]).output)
    assert [e["kind"] for e in shown["history"]] == ["opened", "escalated", "decided"]
    assert shown["history"][-1]["actor"] == "ana" and shown["history"][-1]["before"] == 55
    assert run(app, ["review", "show", "nope", *store]).exit_code == 2


def test_review_cli_level_3_decision_needs_an_outcome_and_shows_it(tmp_path: Path) -> None:
    store = ["--store", str(tmp_path / "q")]
    JsonReviewStore(tmp_path / "q").put(_item(), expected_version=None)
    run = CliRunner().invoke
    item_id = _item().id
    for _ in range(2):
        assert run(app, ["review", "escalate", item_id, "--reason", "up", *store]).exit_code == 0
    refused = run(app, ["review", "decide", item_id, "--reason", "r", "--score", "60", *store])
    assert refused.exit_code == 2 and "needs an outcome" in refused.output
    out = run(app, ["review", "decide", item_id, "--reason", "r", "--score", "60", "--outcome", "judge_bug", *store])
    assert out.exit_code == 0, out.output
    assert "decided (judge_bug)" in run(app, ["review", "show", item_id, *store], env={"COLUMNS": "200"}).output
    shown = json.loads(run(app, ["review", "show", item_id, "--json", *store]).output)
    assert shown["history"][-1]["outcome"] == "judge_bug"
