"""Config, keys, the provider and judge registries, lazy SDK imports, and a mixed panel."""

from __future__ import annotations

import subprocess
import sys

import pytest
from llm_fakes import DIMS_QUALITY, FakeLLMServer, answer_json, openai_reply
from pydantic import SecretStr, ValidationError

from bouts.combine import combine
from bouts.errors import InputError
from bouts.judges.base import Judge, Verdict
from bouts.judges.llm import LLM_PROVIDERS, LLMJudge, LLMJudgeConfig, LLMPanelConfig, resolve_keys, seat_llm_judges
from bouts.registry import Registry
from bouts.scoring.explain import Explained, NotScored

PANEL_TOML = """
schema = "bouts.llm-panel/1"
max_concurrency = 2
cache_dir = "/tmp/bouts-llm-cache"

[[judges]]
provider = "openai"
model = "gpt-x"
api_key_env = "BOUTS_TEST_OPENAI_KEY"
price_per_1k_in = 0.002

[[judges]]
provider = "anthropic"
model = "claude-x"
api_key_env = "BOUTS_TEST_ANTHROPIC_KEY"
"""


def test_panel_config_from_toml():
    panel = LLMPanelConfig.from_toml(PANEL_TOML)
    assert [j.judge_name for j in panel.judges] == ["llm-quality:gpt-x", "llm-quality:claude-x"]
    assert panel.judges[0].temperature == 0 and panel.max_concurrency == 2


def test_bad_panel_config_names_the_field():
    with pytest.raises(InputError, match="judges.0.timeout_s"):
        LLMPanelConfig.from_toml('[[judges]]\nmodel = "m"\ntimeout_s = -1\n', file="panel.toml")
    with pytest.raises(ValidationError, match="repeated"):
        LLMPanelConfig(judges=[LLMJudgeConfig(model="m"), LLMJudgeConfig(model="m")])


def test_keys_come_from_the_named_variable_and_never_print():
    panel = LLMPanelConfig.from_toml(PANEL_TOML)
    env = {"BOUTS_TEST_OPENAI_KEY": "sk-1", "BOUTS_TEST_ANTHROPIC_KEY": "ak-2"}
    keys = resolve_keys(panel, env)
    assert keys["llm-quality:gpt-x"].get_secret_value() == "sk-1"
    assert "sk-1" not in repr(keys) and "sk-1" not in str(keys)
    with pytest.raises(InputError, match=r"\$BOUTS_TEST_ANTHROPIC_KEY, which is not set") as info:
        resolve_keys(panel, {"BOUTS_TEST_OPENAI_KEY": "sk-1"})
    assert "sk-1" not in str(info.value)


def test_providers_are_registered_and_sdks_load_only_when_a_judge_is_built():
    assert {"openai", "anthropic"} <= set(LLM_PROVIDERS.names())
    code = ("import sys, bouts.judges.llm, bouts.judges.llm.reliability; "
            "assert 'openai' not in sys.modules and 'anthropic' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_seated_judges_are_created_through_the_registry(make_input):
    with FakeLLMServer(openai_reply(answer_json(dict.fromkeys(DIMS_QUALITY, 4)))) as server:
        panel = LLMPanelConfig(judges=[LLMJudgeConfig(model="seat-me", name="llm-seat-test",
                                                       base_url=server.url + "/v1")])
        judges: Registry[Judge] = Registry("judge")  # not the global JUDGES: other tests seat every judge
        judges.register("quality-offline", "an offline judge")(lambda: None)
        names = seat_llm_judges(panel, {"llm-seat-test": SecretStr("k")}, registry=judges)
        assert names == ["llm-seat-test"] and judges.names() == ["llm-seat-test", "quality-offline"]
        judge = judges.create("llm-seat-test")
        assert isinstance(judge, LLMJudge)
        assert seat_llm_judges(panel, {}, registry=judges) == names  # re-seating in one process is allowed
        clash = LLMPanelConfig(judges=[LLMJudgeConfig(model="m", name="quality-offline")])
        with pytest.raises(ValueError, match="already registered"):
            seat_llm_judges(clash, {}, registry=judges)
        verdict = judge.judge(make_input())
    assert verdict.score.value == 80


def test_an_llm_judge_sits_on_a_panel_with_offline_judges_and_an_unscored_one_is_left_out():
    offline = [Verdict("quality-offline-a", "code_quality", Explained(72)),
               Verdict("quality-offline-b", "code_quality", Explained(68))]
    llm = Verdict("llm-quality:gpt-x", "code_quality", Explained(76))
    combined = combine("code_quality", [*offline, llm], pending="no judge")
    assert combined.score.value == 72  # median of [72, 68, 76]
    assert [j.judge for j in combined.judges] == ["quality-offline-a", "quality-offline-b", "llm-quality:gpt-x"]
    unscored = Verdict("llm-quality:gpt-x", "code_quality", NotScored("no usable answer"))
    combined = combine("code_quality", [*offline, unscored], pending="no judge")
    assert combined.score.value == 70  # the two that answered
    assert any("did not score" in line for line in combined.score.math)
