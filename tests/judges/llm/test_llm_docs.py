"""STYLE §10: every LLM judge setting and provider is documented in docs/llm-judges.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from bouts.judges.llm import LLM_PROVIDERS, LLMJudgeConfig, LLMPanelConfig

DOC = (Path(__file__).parents[3] / "docs" / "llm-judges.md").read_text()
SETTINGS = [f.alias or n for m in (LLMJudgeConfig, LLMPanelConfig) for n, f in m.model_fields.items()]


@pytest.mark.parametrize("setting", SETTINGS)
def test_every_setting_is_documented(setting):
    assert f"| `{setting}` |" in DOC


@pytest.mark.parametrize("provider", LLM_PROVIDERS.names())
def test_every_provider_is_documented(provider):
    assert f"`{provider}`" in DOC
