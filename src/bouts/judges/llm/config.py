"""Typed configuration of an LLM judge panel, and the one place an API key is looked up.

A panel is usually written as TOML by an operator (``--llm-panel panel.toml``)::

    schema = "bouts.llm-panel/1"
    max_concurrency = 4

    [[judges]]
    provider = "openai"
    model = "gpt-4.1"
    api_key_env = "OPENAI_API_KEY"

    [[judges]]
    provider = "anthropic"
    model = "claude-sonnet-4-5"
    api_key_env = "ANTHROPIC_API_KEY"

The config names the environment variable, never the key: the driver resolves keys with
``resolve_keys(panel, os.environ)`` and passes them down as ``SecretStr`` (which never prints).
See docs/llm-judges.md.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, model_validator

from bouts.errors import InputError
from bouts.loading import toml_loads

PANEL_SCHEMA = "bouts.llm-panel/1"
DEFAULT_CACHE_DIR = "~/.cache/bouts/llm"
"""Where drivers put the answer cache when the operator names none (the library never guesses)."""

LLMComponent = Literal["code_quality", "deliverables"]


class LLMJudgeConfig(BaseModel):
    """One LLM judge: which endpoint and model, how it samples, and what it may spend."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    provider: str = "openai"
    """A registered provider: ``openai`` (any OpenAI-compatible endpoint) or ``anthropic``."""
    model: str = Field(min_length=1)
    """Model id as the endpoint knows it; listed on the scorecard as the judge that sat."""
    component: LLMComponent = "code_quality"
    name: str | None = None
    """Judge name on the scorecard; default ``llm-quality:<model>`` / ``llm-deliverables:<model>``."""
    base_url: str | None = None
    """Endpoint root, e.g. ``http://localhost:11434/v1`` for Ollama; None: the provider's default."""
    api_key_env: str | None = None
    """NAME of the environment variable holding the key; None for keyless local servers."""
    temperature: float | None = Field(0.0, ge=0, le=2)
    """Sent where the provider accepts one (OpenAI-compatible); None leaves the provider default."""
    seed: int | None = None
    """Sampling seed sent where the provider has one; None: derived from the scorecard seed."""
    json_mode: bool = True
    """Ask OpenAI-compatible endpoints for ``response_format: json_object`` (turn off for servers
    that reject it; the answer is validated either way)."""
    timeout_s: float = Field(60.0, gt=0)
    """Client timeout of one HTTP request."""
    max_retries: int = Field(4, ge=0, le=20)
    """Retries of one request on 429, 5xx, timeouts and dropped connections."""
    max_answer_retries: int = Field(2, ge=0, le=5)
    """Times a malformed or refused answer is asked again before the verdict is *not scored*."""
    max_total_s: float = Field(300.0, gt=0)
    """Cap on the wall time one verdict may spend, backoff included."""
    backoff_s: float = Field(0.5, ge=0)
    """First backoff delay; doubles on every retry (a ``Retry-After`` header takes precedence)."""
    max_backoff_s: float = Field(30.0, ge=0)
    max_output_tokens: int = Field(2048, ge=64)
    max_diff_chars: int = Field(60_000, ge=1000)
    """Size cap of the diff view; the cut is marked in the prompt."""
    max_view_chars: int = Field(60_000, ge=1000)
    """Size cap of the comment-free view (and of one deliverable document)."""
    price_per_1k_in: float = Field(0.0, ge=0)
    """USD per 1,000 input tokens, for the cost record (0: unknown or free)."""
    price_per_1k_out: float = Field(0.0, ge=0)

    @property
    def judge_name(self) -> str:
        short = "quality" if self.component == "code_quality" else "deliverables"
        return self.name or f"llm-{short}:{self.model}"


class LLMPanelConfig(BaseModel):
    """The LLM judges an operator seats, and what they share (concurrency, cache)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_id: Literal["bouts.llm-panel/1"] = Field(PANEL_SCHEMA, alias="schema")
    judges: list[LLMJudgeConfig] = Field(default_factory=list)
    max_concurrency: int = Field(4, ge=1, le=256)
    """Requests in flight at once across every judge of the panel (one semaphore)."""
    cache_dir: Path | None = None
    """Answer cache; None disables it (drivers default it to ``DEFAULT_CACHE_DIR``)."""
    max_total_s: float | None = Field(600.0, gt=0)
    """Wall-time budget of the whole panel on one scorecard, every judge, retry and backoff
    included; counted from the first LLM judge that starts. None: only each judge's own cap."""

    @model_validator(mode="after")
    def _unique_names(self) -> LLMPanelConfig:
        names = [j.judge_name for j in self.judges]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"judge names must be unique on a panel; repeated: {dupes} (set `name`)")
        return self

    @classmethod
    def from_toml(cls, text: str, file: str | None = None) -> LLMPanelConfig:
        """Parse a panel file's text; errors name the file and the field."""
        try:
            return cls.model_validate(toml_loads(text))
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"not valid TOML: {exc}", file=file) from exc
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise InputError(first["msg"], file=file, field=where) from exc


def resolve_keys(panel: LLMPanelConfig, environ: Mapping[str, str]) -> dict[str, SecretStr | None]:
    """Each judge's API key, read from the variable its config names. Called by drivers only.

    A named variable that is unset is the operator's error; the message names the variable, never a
    value.
    """
    keys: dict[str, SecretStr | None] = {}
    for judge in panel.judges:
        if judge.api_key_env is None:
            keys[judge.judge_name] = None
            continue
        value = environ.get(judge.api_key_env)
        if not value:
            raise InputError(
                f"LLM judge '{judge.judge_name}' reads its API key from ${judge.api_key_env}, which is not set",
                field="api_key_env",
            )
        keys[judge.judge_name] = SecretStr(value)
    return keys
