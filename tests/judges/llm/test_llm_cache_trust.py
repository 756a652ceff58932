"""The LLM answer cache decides verdicts as surely as the model does, so it is trusted only as
every engine cache is (``bouts.cache.Store``): an answer written without the cache's secret, a
damaged entry and an answer of another shape are misses (the model is asked again), never
verdicts; a cache directory others can write is refused by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from llm_fakes import FakeLLMServer, answer_json, openai_reply

from bouts.errors import InfrastructureError
from bouts.judges.llm.calls import ANSWERS
from bouts.scoring.explain import Explained

GOOD = answer_json({"readability": 4, "architecture": 3, "robustness": 5, "idiomaticity": 2})  # 70
RICH = answer_json({"readability": 5, "architecture": 5, "robustness": 5, "idiomaticity": 5})  # 100


def _entries(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache" / ANSWERS).rglob("*.json"))


def _score(judge, make_input) -> float:  # noqa: ANN001
    verdict = judge.judge(make_input())
    assert isinstance(verdict.score, Explained)
    return verdict.score.value


def test_an_answer_is_cached_in_the_store_and_served(make_input, make_judges, tmp_path: Path) -> None:
    with FakeLLMServer(openai_reply(GOOD)) as server:
        (judge,) = make_judges(server.url)
        assert _score(judge, make_input) == 70
        assert _score(judge, make_input) == 70
    assert len(server.requests) == 1  # the second verdict came from the cache
    (entry,) = _entries(tmp_path)
    assert json.loads(entry.read_text())["mac"]  # an entry of the engine's store, MAC'd
    assert (tmp_path / "cache" / "secret").stat().st_mode & 0o077 == 0


def _forge(entry: Path) -> None:
    """Another answer in the entry, as someone without the cache's secret can write it."""
    data = json.loads(entry.read_text())
    payload = json.loads(data["payload"])
    payload["text"] = RICH
    data["payload"] = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    entry.write_text(json.dumps(data))


@pytest.mark.parametrize("damage", ["forged", "cut short", "another shape"])
def test_a_forged_or_damaged_answer_is_asked_again(damage: str, make_input, make_judges, tmp_path: Path) -> None:
    with FakeLLMServer(openai_reply(GOOD), openai_reply(GOOD)) as server:
        (judge,) = make_judges(server.url)
        assert _score(judge, make_input) == 70
        (entry,) = _entries(tmp_path)
        if damage == "forged":
            _forge(entry)
        elif damage == "cut short":
            entry.write_bytes(entry.read_bytes()[:50])
        else:  # a valid entry (MAC'd with the secret) whose payload is no answer record
            data = json.loads(entry.read_text())
            text = json.dumps({"text": {"not": "text"}}, sort_keys=True, separators=(",", ":"))
            data["payload"], data["mac"] = text, judge._runtime.store()._mac(data["key"], text)
            entry.write_text(json.dumps(data))
        assert _score(judge, make_input) == 70  # the model's answer, not the entry's
    assert len(server.requests) == 2


def test_the_old_unauthenticated_layout_is_never_read(make_input, make_judges, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    from bouts.judges.llm import judge as judge_module

    asked: list[str] = []
    real = judge_module.cache_get
    monkeypatch.setattr(judge_module, "cache_get", lambda runtime, key: asked.append(key) or real(runtime, key))
    with FakeLLMServer(openai_reply(GOOD), openai_reply(GOOD)) as server:
        (judge,) = make_judges(server.url)
        assert _score(judge, make_input) == 70
        for path in _entries(tmp_path):
            path.unlink()
        # Before 2026-12-05 an answer was read from <cache_dir>/<2 hex>/<key>.json, unauthenticated.
        (key,) = set(asked)
        old = tmp_path / "cache" / key[:2] / f"{key}.json"
        old.parent.mkdir()
        old.write_text(json.dumps({"model": "fake-model", "text": RICH}))
        assert _score(judge, make_input) == 70
    assert len(server.requests) == 2


def test_a_cache_others_can_write_is_refused(make_input, make_judges, tmp_path: Path) -> None:
    (tmp_path / "cache").mkdir(mode=0o700)
    (tmp_path / "cache").chmod(0o777)
    with FakeLLMServer(openai_reply(GOOD)) as server:
        (judge,) = make_judges(server.url)
        with pytest.raises(InfrastructureError, match="writable by nobody else"):
            judge.judge(make_input())
    assert server.requests == []
