"""Issue 15 item 4: the cost record of a panel of LLM judges, the review flag of an unusable answer,
the panel's time budget against a hanging endpoint, and the text scorecard's LLM lines."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import pytest
from llm_fakes import DIMS_QUALITY, FakeLLMServer, Reply, answer_json, openai_reply
from rich.console import Console

from bouts.assemble import Measurements, build_scorecard
from bouts.calibration.review import open_item
from bouts.cli import render
from bouts.judges.llm import usage_of
from bouts.judging import judge_around
from bouts.models.submission import SubmissionMeta
from bouts.scoring.explain import Explained, NotScored

GOOD = answer_json(dict.fromkeys(DIMS_QUALITY, 4))
META = SubmissionMeta(agent="agent-x", challenge="demo")
MARGIN_S = 0.75
"""What the budget may be overrun by: thread hand-offs on a shared 2-core machine, never a request."""


def _score(judges, inp):
    """Seat ``judges`` as ``bouts score`` does (after the run, concurrently) and assemble the card."""
    run, judged = judge_around(judges, inp, run_tests=lambda: inp.run)
    card = build_scorecard(inp.challenge, META, Measurements(run, verdicts=judged.verdicts, notes=judged.flags))
    return judged, card


def test_two_llm_judges_sum_into_one_cost_record_with_a_line_per_judge(make_input, make_judges):
    """Stops: a flat merge of the verdicts' ``llm.*`` keys keeping only the last judge's spending."""
    with FakeLLMServer(openai_reply(GOOD)) as server:
        judges = make_judges(
            server.url,
            {"name": "a", "price_per_1k_in": 0.01, "seed": 1},
            {"name": "b", "price_per_1k_out": 0.05, "seed": 2},
            cache=False,
        )
        _, card = _score(judges, make_input())
    usage = card.llm_usage
    assert usage is not None and len(server.requests) == 2
    assert (usage.requests, usage.tokens_in, usage.tokens_out, usage.cache_hits) == (2, 2000, 400, 0)
    assert usage.cost_usd == pytest.approx(0.01 + 0.01)  # a: 1000 in × 0.01/1k; b: 200 out × 0.05/1k
    assert [(j.judge, j.status, j.requests, j.tokens_in) for j in usage.judges] == [
        ("a", "scored", 1, 1000),
        ("b", "scored", 1, 1000),
    ]
    # Each judge's seed survives as a version; spending is not a version.
    rules = card.reproducibility.rule_sets
    assert rules["a llm.seed"] == "1" and rules["b llm.seed"] == "2"
    assert not any(k.endswith(("llm.requests", "llm.cost_usd", "llm.tokens_in")) for k in rules)
    assert card.components["code_quality"].score is not None
    assert json.loads(card.to_json())["llm_usage"]["tokens_in"] == 2000  # what `bouts score --json` prints


def test_cache_hits_are_counted_for_every_judge(make_input, make_judges):
    """Stops: a re-score from the cache reporting only one judge's hit, or any request."""
    with FakeLLMServer(openai_reply(GOOD)) as server:
        judges = make_judges(server.url, {"name": "a"}, {"name": "b"})
        _score(judges, make_input())
        _, again = _score(judges, make_input())
    assert len(server.requests) == 2
    assert (again.llm_usage.requests, again.llm_usage.cache_hits, again.llm_usage.cost_usd) == (0, 2, 0)


def test_no_llm_judge_no_cost_record(make_input):
    inp = make_input()
    _, card = _score([], inp)
    assert card.llm_usage is None


@pytest.mark.parametrize(
    "reply",
    [
        openai_reply("Sure! {readability: great"),
        openai_reply(None, refusal="I can't help with grading this."),
        openai_reply(GOOD, finish="content_filter"),
    ],
    ids=["malformed", "refused", "content-filter"],
)
def test_an_unusable_answer_raises_a_flag_that_opens_a_review_item(make_input, make_judges, reply):
    """Stops: a judge that silently drops to *not scored* without anyone being told."""
    with FakeLLMServer(reply) as server:
        judges = make_judges(
            server.url, {"name": "a", "max_answer_retries": 1}, {"name": "b", "max_answer_retries": 1}, cache=False
        )
        _, card = _score(judges, make_input())
    assert len(server.requests) == 4  # each judge asked, then re-asked once
    flags = [f for f in card.flags if f.code == "llm_answer_unusable"]
    assert [f.message.split(":")[0] for f in flags] == ["a", "b"] and {f.level for f in flags} == {1}
    assert "no usable answer in 2 attempts" in flags[0].message
    assert card.components["code_quality"].score != 0  # not scored by them, never a 0
    assert [j.status for j in card.llm_usage.judges] == ["unusable answer", "unusable answer"]
    assert card.llm_usage.requests == 4  # what the unusable answers cost is still counted
    item = open_item(card, actor="bouts stats", at=datetime(2026, 12, 1, tzinfo=UTC))
    assert item is not None and "llm_answer_unusable: a:" in item.flag


def test_a_usable_answer_after_a_malformed_one_raises_no_flag(make_input, make_judges):
    with FakeLLMServer(openai_reply("not json"), openai_reply(GOOD)) as server:
        _, card = _score(make_judges(server.url, cache=False), make_input())
    assert not [f for f in card.flags if f.code == "llm_answer_unusable"]
    assert card.llm_usage.requests == 2 and card.llm_usage.judges[0].status == "scored"


def _timed(judges, inp):
    started = time.monotonic()
    judged, card = _score(judges, inp)
    return time.monotonic() - started, judged, card


def test_an_endpoint_that_never_answers_cannot_overrun_the_panel_budget(make_input, make_judges):
    """Stops: a hung endpoint holding the scorecard for timeout_s × (1 + max_retries) × judges."""
    hang = Reply(body=openai_reply(GOOD).body, delay_s=30)
    with FakeLLMServer(hang, lifetime_s=40) as server:
        patient = {"timeout_s": 60, "max_total_s": 300}  # each judge alone would wait minutes
        judges = make_judges(server.url, *({"name": n} | patient for n in "abcd"), budget_s=1.5, cache=False)
        elapsed, judged, card = _timed(judges, make_input())
    assert elapsed < 1.5 + MARGIN_S, f"returned after {elapsed:.2f} s for a 1.5 s budget"
    assert len(server.requests) == 4  # every judge tried; none retried past the budget
    for v in judged.verdicts:
        assert isinstance(v.score, NotScored) and "panel's 1.5 s budget" in v.score.reason
    assert [f.code for f in card.flags if f.code == "judge_unavailable"] == ["judge_unavailable"] * 4
    comp = card.components["code_quality"]
    assert {j.judge for j in comp.judges if j.score is None and "budget" in j.reason} == set("abcd")
    assert [(j.judge, j.status, j.requests) for j in card.llm_usage.judges] == [(n, "unavailable", 1) for n in "abcd"]


def test_an_endpoint_that_trickles_its_answer_cannot_overrun_the_panel_budget(make_input, make_judges):
    """Stops: a client read timeout that restarts with every byte, so a slow drip never times out."""
    drip = Reply(body=openai_reply(GOOD).body, trickle_s=0.1)
    with FakeLLMServer(drip, lifetime_s=40) as server:
        judges = make_judges(server.url, {"timeout_s": 0.5, "max_total_s": 300}, budget_s=1.2, cache=False)
        elapsed, judged, _ = _timed(judges, make_input())
    assert elapsed < 1.2 + MARGIN_S, f"returned after {elapsed:.2f} s for a 1.2 s budget"
    (verdict,) = judged.verdicts
    assert isinstance(verdict.score, NotScored) and "a request was still open" in verdict.score.reason
    assert len(server.requests) == 1


def test_judges_that_answer_in_time_score_and_the_rest_are_not_scored_with_the_reason(make_input, make_judges):
    """One request at a time (max_concurrency 1), 0.6 s each, a 1.0 s budget: the first judge
    answers, the second is cut off mid-request, the third never gets to ask."""
    slow = Reply(body=openai_reply(GOOD).body, delay_s=0.6)
    with FakeLLMServer(slow, lifetime_s=40) as server:
        judges = make_judges(
            server.url, *({"name": n, "timeout_s": 30} for n in "abc"), max_concurrency=1, budget_s=1.0, cache=False
        )
        elapsed, judged, card = _timed(judges, make_input())
    assert elapsed < 1.0 + MARGIN_S
    scored = [v.judge for v in judged.verdicts if isinstance(v.score, Explained)]
    unscored = {v.judge: v.score.reason for v in judged.verdicts if isinstance(v.score, NotScored)}
    assert len(scored) == 1 and len(unscored) == 2
    assert all("panel's 1 s budget" in why for why in unscored.values())
    assert card.components["code_quality"].score == 80  # the one that answered
    # The third judge gets the one request slot only as the budget ends, if at all.
    assert 2 <= card.llm_usage.requests <= 3 and len(card.llm_usage.judges) == 3
    assert sorted(j.status for j in card.llm_usage.judges) == ["scored", "unavailable", "unavailable"]


def test_the_budget_is_per_scorecard_not_per_process(make_input, make_judges):
    """Stops: a long-lived worker whose first scorecard used up the budget for every later one."""
    with FakeLLMServer(openai_reply(GOOD)) as server:
        (judge,) = make_judges(server.url, budget_s=0.5, cache=False)
        first = judge.judge(make_input())
        time.sleep(0.6)
        second = judge.judge(make_input())
    assert isinstance(first.score, Explained) and isinstance(second.score, Explained)
    assert len(server.requests) == 2


def test_the_text_scorecard_shows_tokens_cost_and_cache_hits(make_input, make_judges):
    """Stops: the LLM judges' spending visible only with ``--json``."""
    with FakeLLMServer(openai_reply(GOOD)) as server:
        judges = make_judges(
            server.url, {"name": "llm-a", "price_per_1k_in": 0.01}, {"name": "llm-b", "price_per_1k_out": 0.05}
        )
        _score(judges, make_input())
        _, card = _score([*judges[:1], *make_judges(server.url, {"name": "llm-c"}, cache=False)], make_input())
    console = Console(record=True, width=160, color_system=None)
    render.scorecard(console, card)
    text = console.export_text()
    assert "LLM judges" in text
    for header in ("requests", "cache hits", "tokens in", "tokens out", "cost USD"):
        assert header in text
    lines = {line.split("│")[1].strip(): line for line in text.splitlines() if line.count("│") > 6}
    assert lines["llm-a"].split("│")[4].strip() == "1"  # a cache hit
    assert lines["llm-c"].split("│")[5].strip() == "1000"  # tokens in
    assert "2000" not in lines["total"] and "1000" in lines["total"] and "0.0000" in lines["total"]
    assert usage_of([]).requests == 0


def test_a_deliverables_verdict_has_one_time_cap_for_all_its_documents(make_input, make_judges):
    """Stops: the verdict's ``max_total_s`` restarting with every document (n documents, n × the cap)."""
    from bouts.models.challenge import Deliverable

    text = (
        "# Root cause\n\nThe add function subtracted its second argument instead of adding it, so every\n"
        "sum with a non-zero second operand was wrong. The fix replaces the minus with a plus.\n"
    )
    docs = dict.fromkeys(("ROOT_CAUSE.md", "NOTES.md"), text)
    wanted = tuple(Deliverable(path=name, kind="root-cause-analysis") for name in docs)
    answer = answer_json({"accuracy": 4, "clarity": 4, "completeness": 4, "actionability": 4})
    slow = Reply(body=openai_reply(answer).body, delay_s=0.6)
    with FakeLLMServer(slow, lifetime_s=40) as server:
        (judge,) = make_judges(
            server.url, {"component": "deliverables", "max_total_s": 1.0, "timeout_s": 30}, cache=False
        )
        started = time.monotonic()
        verdict = judge.judge(make_input(docs=docs, deliverables=wanted))
        elapsed = time.monotonic() - started
    assert elapsed < 1.0 + MARGIN_S
    assert isinstance(verdict.score, NotScored) and "the 1 s cap" in verdict.score.reason
    assert len(server.requests) == 2 and verdict.versions["llm.requests"] == "2"
