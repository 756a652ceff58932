"""LLM judges for code quality and deliverables, through any OpenAI-compatible endpoint or Anthropic.

Public surface (docs/llm-judges.md)::

    panel = LLMPanelConfig.from_toml(text)               # typed config; names env vars, holds no key
    keys = resolve_keys(panel, os.environ)               # drivers only
    names = seat_llm_judges(panel, keys)                 # registers each judge in JUDGES
    judges = [JUDGES.create(n) for n in names]           # sit next to the offline judges

The SDKs are imported only when a judge is built. ``reliability`` holds the pure panel statistics.
"""

from __future__ import annotations

from bouts.judges.llm.calls import LLMUnavailableError, PanelRuntime, Usage
from bouts.judges.llm.config import DEFAULT_CACHE_DIR, LLMJudgeConfig, LLMPanelConfig, resolve_keys
from bouts.judges.llm.judge import LLMJudge
from bouts.judges.llm.panel import build_llm_judges, seat_llm_judges
from bouts.judges.llm.prompt import PROMPT_VERSION
from bouts.judges.llm.providers import LLM_PROVIDERS, ChatRequest, Completion, Provider, ProviderError
from bouts.judges.llm.usage import JudgeUsage, UsageSummary, usage_flags, usage_of

__all__ = [
    "DEFAULT_CACHE_DIR",
    "LLM_PROVIDERS",
    "PROMPT_VERSION",
    "ChatRequest",
    "Completion",
    "JudgeUsage",
    "LLMJudge",
    "LLMJudgeConfig",
    "LLMPanelConfig",
    "LLMUnavailableError",
    "PanelRuntime",
    "Provider",
    "ProviderError",
    "Usage",
    "UsageSummary",
    "build_llm_judges",
    "resolve_keys",
    "seat_llm_judges",
    "usage_flags",
    "usage_of",
]
