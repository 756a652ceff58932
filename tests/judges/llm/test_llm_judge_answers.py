"""Good, malformed and refused answers, through the real openai SDK against the local fake server."""

from __future__ import annotations

import json

from llm_fakes import DIMS_QUALITY, STARTER, FakeLLMServer, answer_json, openai_reply

from bouts.judges.llm import usage_of
from bouts.scoring.explain import Explained, NotScored

GOOD = answer_json({"readability": 4, "architecture": 3, "robustness": 5, "idiomaticity": 2})


def test_good_answer_is_mapped_to_0_100_with_findings_and_cost(make_input, make_judges):
    with FakeLLMServer(openai_reply(GOOD)) as server:
        (judge,) = make_judges(server.url, {"price_per_1k_in": 0.01, "price_per_1k_out": 0.03}, keys={
            "llm-quality:fake-model": "sk-secret-123"})
        verdict = judge.judge(make_input())
    assert isinstance(verdict.score, Explained)
    assert dict(verdict.dimensions) == {"readability": 80, "architecture": 60, "robustness": 100, "idiomaticity": 40}
    assert verdict.score.value == 70  # 0.25 × (80 + 60 + 100 + 40)
    assert "code_quality = " in verdict.score.math[0]
    rationale = {f.dimension: f for f in verdict.findings if f.rule.endswith(f".{f.dimension}")}
    assert rationale["architecture"].message == "3/5: architecture rationale"
    assert rationale["architecture"].points == 10  # 25 × (5 − 3) / 5
    assert sum(f.points for f in verdict.findings) == 100 - verdict.score.value
    evidence = [f for f in verdict.findings if f.rule.endswith(".evidence")]
    assert {(f.file, f.line) for f in evidence} == {("app.py", 2)}
    assert verdict.versions["llm.tokens_in"] == "1000" and verdict.versions["llm.tokens_out"] == "200"
    assert verdict.versions["llm.cost_usd"] == "0.016000"  # 1000×0.01/1000 + 200×0.03/1000
    assert usage_of([verdict]).requests == 1

    (request,) = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.body["temperature"] == 0 and request.body["seed"] == 1234
    assert request.body["response_format"] == {"type": "json_object"}
    assert request.headers["authorization"] == "Bearer sk-secret-123"
    # The key reaches the endpoint and nowhere else.
    assert "sk-secret-123" not in json.dumps([dict(verdict.versions), [f.message for f in verdict.findings]])


def test_test_evidence_goes_in_but_hidden_test_names_and_details_do_not(make_input, make_judges):
    with FakeLLMServer(openai_reply(GOOD)) as server:
        make_judges(server.url)[0].judge(make_input())
    user = server.user_text()
    assert "visible: 1/2 passed" in user and "hidden: 0/1 passed" in user
    assert "assert add(-1, 1) == 0" in user  # a visible failure, with its reason
    assert "test_secret_value_42" not in user and "expected 42" not in user


def test_malformed_json_is_reasked_then_unscored_never_zero(make_input, make_judges):
    with FakeLLMServer(openai_reply("Sure! {readability: great")) as server:
        (judge,) = make_judges(server.url, {"max_answer_retries": 2})
        verdict = judge.judge(make_input())
    assert isinstance(verdict.score, NotScored)
    assert "no usable answer in 3 attempts" in verdict.score.reason
    assert verdict.dimensions == {}
    assert len(server.requests) == 3
    # The re-ask shows the model its answer and what was wrong with it.
    second = server.requests[1].body["messages"]
    assert second[-2] == {"role": "assistant", "content": "Sure! {readability: great"}
    assert "could not be used" in second[-1]["content"]


def test_malformed_then_good_scores_and_caches_the_good_answer(make_input, make_judges):
    bad_score = answer_json(dict.fromkeys(DIMS_QUALITY, 9))  # out of range 0-5
    with FakeLLMServer(openai_reply(bad_score), openai_reply(GOOD)) as server:
        (judge,) = make_judges(server.url)
        verdict = judge.judge(make_input())
        assert isinstance(verdict.score, Explained) and verdict.score.value == 70
        reask = server.requests[1].body["messages"][-1]["content"]
        assert "scores." in reask and "less than or equal to 5" in reask
        again = judge.judge(make_input())
    assert len(server.requests) == 2  # the re-score came from the cache
    assert again.score == verdict.score


def test_missing_dimension_is_malformed(make_input, make_judges):
    partial = answer_json({"readability": 4, "architecture": 3, "robustness": 5})
    with FakeLLMServer(openai_reply(partial)) as server:
        verdict = make_judges(server.url, {"max_answer_retries": 0})[0].judge(make_input())
    assert isinstance(verdict.score, NotScored) and "no score for idiomaticity" in verdict.score.reason


def test_refusal_is_retried_then_unscored(make_input, make_judges):
    with FakeLLMServer(openai_reply(None, refusal="I can't help with that.")) as server:
        verdict = make_judges(server.url, {"max_answer_retries": 1})[0].judge(make_input())
    assert isinstance(verdict.score, NotScored)
    assert "refused: I can't help with that." in verdict.score.reason
    assert len(server.requests) == 2


def test_content_filter_counts_as_refusal_and_a_later_answer_is_used(make_input, make_judges):
    with FakeLLMServer(openai_reply("", finish="content_filter"), openai_reply(GOOD)) as server:
        verdict = make_judges(server.url)[0].judge(make_input())
    assert isinstance(verdict.score, Explained) and len(server.requests) == 2


def test_answer_in_a_markdown_code_block_is_accepted(make_input, make_judges):
    with FakeLLMServer(openai_reply(f"```json\n{GOOD}\n```")) as server:
        verdict = make_judges(server.url)[0].judge(make_input())
    assert isinstance(verdict.score, Explained) and verdict.score.value == 70


def test_a_submission_that_changed_nothing_is_not_scored_without_a_call(make_input, make_judges):
    with FakeLLMServer(openai_reply(GOOD)) as server:
        verdict = make_judges(server.url)[0].judge(make_input(code={"app.py": STARTER}))
    assert isinstance(verdict.score, NotScored) and server.requests == []
