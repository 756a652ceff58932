"""Timeouts, rate limits, server errors, the time cap and the panel's concurrency limit."""

from __future__ import annotations

import re
import threading

from llm_fakes import FakeLLMServer, Reply, answer_json, error_reply, openai_reply

from bouts.assemble import Measurements, build_scorecard
from bouts.errors import InfrastructureError
from bouts.judges.llm import LLMUnavailableError
from bouts.judging import judge_around
from bouts.models.submission import SubmissionMeta
from bouts.scoring.explain import Explained, NotScored

GOOD = answer_json({"readability": 4, "architecture": 4, "robustness": 4, "idiomaticity": 4})


def test_429_with_retry_after_is_waited_out_then_succeeds(make_input, make_judges):
    sleeps: list[float] = []
    with FakeLLMServer(error_reply(429, {"retry-after": "2"}), openai_reply(GOOD)) as server:
        verdict = make_judges(server.url, sleeps=sleeps)[0].judge(make_input())
    assert isinstance(verdict.score, Explained) and verdict.score.value == 80
    assert sleeps == [2.0]  # what the server asked, not our own backoff
    assert len(server.requests) == 2  # the SDK's own retries are off: one policy only
    assert verdict.versions["llm.requests"] == "2"


def test_retry_after_ms_is_understood(make_input, make_judges):
    sleeps: list[float] = []
    with FakeLLMServer(error_reply(429, {"retry-after-ms": "250"}), openai_reply(GOOD)) as server:
        make_judges(server.url, sleeps=sleeps)[0].judge(make_input())
    assert sleeps == [0.25]


def test_5xx_backs_off_exponentially_then_succeeds(make_input, make_judges):
    sleeps: list[float] = []
    script = (error_reply(500), error_reply(503), error_reply(502), openai_reply(GOOD))
    with FakeLLMServer(*script) as server:
        verdict = make_judges(server.url, {"backoff_s": 0.1}, sleeps=sleeps)[0].judge(make_input())
    assert isinstance(verdict.score, Explained)
    assert sleeps == [0.1, 0.2, 0.4]


def unavailable(verdict) -> str:
    """The reason of a verdict whose endpoint gave no answer: not scored (never 0), status recorded."""
    assert isinstance(verdict.score, NotScored) and verdict.versions["llm.status"] == "unavailable"
    assert "infrastructure, not the agent's fault" in verdict.score.reason
    return verdict.score.reason


def test_persistent_5xx_is_an_infrastructure_failure_not_a_zero(make_input, make_judges):
    assert issubclass(LLMUnavailableError, InfrastructureError)
    with FakeLLMServer(error_reply(500)) as server:
        (judge,) = make_judges(server.url, {"max_retries": 2})
        verdict = judge.judge(make_input())
    assert "gave up after 3 attempts" in unavailable(verdict)
    assert len(server.requests) == 3 and verdict.versions["llm.requests"] == "3"


def test_401_is_not_retried(make_input, make_judges):
    with FakeLLMServer(error_reply(401)) as server:
        verdict = make_judges(server.url)[0].judge(make_input())
    assert re.search("HTTP 401.*not retried", unavailable(verdict))
    assert len(server.requests) == 1


def test_a_retry_after_past_the_time_cap_gives_up_at_once(make_input, make_judges):
    sleeps: list[float] = []
    script = (error_reply(429, {"retry-after": "3600"}), openai_reply(GOOD))
    with FakeLLMServer(*script) as server:
        verdict = make_judges(server.url, sleeps=sleeps)[0].judge(make_input())
    assert "would pass the 10 s cap" in unavailable(verdict)
    assert sleeps == [] and len(server.requests) == 1


def test_timeout_is_retried_and_a_later_answer_is_used(make_input, make_judges):
    slow = Reply(body=openai_reply(GOOD).body, delay_s=1.0)
    with FakeLLMServer(slow, openai_reply(GOOD)) as server:
        verdict = make_judges(server.url, {"timeout_s": 0.2})[0].judge(make_input())
    assert isinstance(verdict.score, Explained)
    assert len(server.requests) == 2


def test_endless_timeouts_leave_the_verdict_unscored_with_a_flag_on_the_panel(make_input, make_judges):
    slow = Reply(body=openai_reply(GOOD).body, delay_s=1.0)
    with FakeLLMServer(slow) as server:
        (judge,) = make_judges(server.url, {"timeout_s": 0.2, "max_retries": 1})
        inp = make_input()
        _, ran = judge_around([judge], inp, run_tests=lambda: inp.run)
        card = build_scorecard(inp.challenge, SubmissionMeta(agent="a", challenge="demo"),
                               Measurements(inp.run, verdicts=ran.verdicts, notes=ran.flags))
    (verdict,) = ran.verdicts
    assert "timed out" in unavailable(verdict)
    assert [f.code for f in card.flags if f.code.startswith(("judge_", "llm_"))] == ["judge_unavailable"]
    assert len(server.requests) == 2


def test_the_panel_shares_one_concurrency_limit(make_input, make_judges):
    slow = Reply(body=openai_reply(GOOD).body, delay_s=0.15)
    with FakeLLMServer(slow) as server:
        judges = make_judges(server.url, {"name": "a"}, {"name": "b"}, {"name": "c"}, max_concurrency=1,
                             cache=False)
        inp = make_input()
        threads = [threading.Thread(target=j.judge, args=(inp,)) for j in judges]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=10)
    assert len(server.requests) == 3
    assert server.max_in_flight == 1


def test_retry_after_forms():
    from bouts.judges.llm.providers import retry_after

    assert retry_after({"retry-after": "3"}) == 3
    assert retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0  # a date in the past
    assert retry_after({"retry-after": "soon"}) is None and retry_after(None) is None
