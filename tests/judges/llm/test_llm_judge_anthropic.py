"""The Anthropic provider, through the real anthropic SDK against an Anthropic-shaped fake server."""

from __future__ import annotations

import pytest
from llm_fakes import DIMS_QUALITY, FakeLLMServer, answer_json, anthropic_reply, error_reply

from bouts.scoring.explain import Explained, NotScored

pytestmark = pytest.mark.slow_io  # runs an external tool for seconds (tests/conftest.py)

GOOD = answer_json(dict.fromkeys(DIMS_QUALITY, 5))
CLAUDE = {"provider": "anthropic", "model": "fake-claude"}
KEYS = {"llm-quality:fake-claude": "ak-secret"}


def test_anthropic_good_answer(make_input, make_judges):
    with FakeLLMServer(anthropic_reply(GOOD)) as server:
        verdict = make_judges(server.url, CLAUDE, keys=KEYS)[0].judge(make_input())
    assert isinstance(verdict.score, Explained) and verdict.score.value == 100
    (request,) = server.requests
    assert request.path == "/v1/messages"
    # This SDK version sends the key as a bearer token (older ones used x-api-key).
    assert "ak-secret" in (request.headers.get("x-api-key", ""), request.headers.get("authorization", "")[7:])
    assert "## readability" in request.body["system"]  # the system prompt travels in `system`
    assert [m["role"] for m in request.body["messages"]] == ["user"]
    assert "temperature" not in request.body and "seed" not in request.body  # not offered by this API
    assert verdict.versions["llm.provider"] == "anthropic"
    assert verdict.versions["llm.tokens_in"] == "500"


def test_anthropic_refusal_is_retried_then_unscored(make_input, make_judges):
    with FakeLLMServer(anthropic_reply("", stop_reason="refusal")) as server:
        verdict = make_judges(server.url, CLAUDE | {"max_answer_retries": 1}, keys=KEYS)[0].judge(make_input())
    assert isinstance(verdict.score, NotScored) and "refused" in verdict.score.reason
    assert len(server.requests) == 2


def test_anthropic_overloaded_529_is_retried(make_input, make_judges):
    sleeps: list[float] = []
    with FakeLLMServer(error_reply(529), anthropic_reply(GOOD)) as server:
        verdict = make_judges(server.url, CLAUDE, keys=KEYS, sleeps=sleeps)[0].judge(make_input())
    assert isinstance(verdict.score, Explained) and len(server.requests) == 2 and sleeps == [0.01]


def test_anthropic_and_openai_judges_sit_on_one_panel(make_input, make_judges):
    from llm_fakes import openai_reply

    with FakeLLMServer(anthropic_reply(GOOD)) as claude, FakeLLMServer(openai_reply(GOOD)) as gpt:
        (a,) = make_judges(claude.url, CLAUDE, keys=KEYS)
        (b,) = make_judges(gpt.url, {"model": "fake-gpt"})
        inp = make_input()
        assert a.judge(inp).judge == "llm-quality:fake-claude"
        assert b.judge(inp).judge == "llm-quality:fake-gpt"
    assert len(claude.requests) == len(gpt.requests) == 1
