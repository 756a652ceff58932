"""Providers: one chat call through an official SDK, with its errors sorted into "try again" and
"give up". Each SDK is imported inside the factory that builds its client, so a machine with no LLM
configured never imports one. The SDKs' own retries are turned off: ``calls.py`` owns the retry
policy (Retry-After, backoff, a cap on total time), so there is exactly one.

A third party adds a provider like a plugin::

    @LLM_PROVIDERS.register("bedrock")
    def _bedrock() -> ProviderFactory: return BedrockProvider
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import SecretStr

from bouts.judges.llm.config import LLMJudgeConfig
from bouts.judges.llm.prompt import Message
from bouts.registry import Registry

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})


@dataclass(frozen=True)
class ChatRequest:
    system: str
    messages: tuple[Message, ...]
    seed: int | None
    timeout_s: float | None = None
    """Client timeout of this request (no longer than what is left of the deadline); None: the judge's."""


@dataclass(frozen=True)
class Completion:
    """One answer: its text, a refusal if the provider flagged one, and what it cost in tokens."""

    text: str
    tokens_in: int = 0
    tokens_out: int = 0
    refusal: str | None = None


class ProviderError(Exception):
    """A call that failed. ``retryable``: rate limit, server error, timeout, dropped connection."""

    def __init__(self, message: str, *, retryable: bool, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after


class Provider(Protocol):
    """Sends one chat request; raises ``ProviderError`` and nothing else."""

    def complete(self, request: ChatRequest) -> Completion: ...


ProviderFactory = Callable[[LLMJudgeConfig, SecretStr | None], Provider]
LLM_PROVIDERS: Registry[ProviderFactory] = Registry("llm provider")


def retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms``, ``retry-after`` seconds or HTTP date)."""
    if not headers:
        return None
    if ms := headers.get("retry-after-ms"):
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None  # unreadable: fall back to our own backoff
    return max(0.0, when.timestamp() - time.time())


def _sdk_error(exc: Exception, sdk: Any) -> ProviderError:
    """Map an SDK exception (openai and anthropic share the shape) to a ``ProviderError``."""
    if isinstance(exc, sdk.APITimeoutError):
        return ProviderError("request timed out", retryable=True)
    if isinstance(exc, sdk.APIConnectionError):
        return ProviderError(f"connection failed: {exc}", retryable=True)
    if isinstance(exc, sdk.APIStatusError):
        status = exc.status_code
        # The message of a 4xx may echo the request; keep it short and never include headers.
        return ProviderError(
            f"HTTP {status}: {str(exc)[:200]}",
            retryable=status in RETRYABLE_STATUS or status >= 500,
            retry_after=retry_after(exc.response.headers),
        )
    return ProviderError(f"{type(exc).__name__}: {str(exc)[:200]}", retryable=False)


class OpenAICompatible:
    """Any OpenAI-compatible chat-completions endpoint: OpenAI, vLLM, Ollama, llama.cpp server."""

    def __init__(self, config: LLMJudgeConfig, api_key: SecretStr | None) -> None:
        import openai  # heavy SDK: imported only when an OpenAI-compatible judge is built

        self._sdk = openai
        self._config = config
        # Local servers take no key, but the SDK insists on one: a placeholder is not a secret.
        self._client = openai.OpenAI(
            api_key=api_key.get_secret_value() if api_key else "no-key",
            base_url=config.base_url,
            timeout=config.timeout_s,
            max_retries=0,
        )

    def complete(self, request: ChatRequest) -> Completion:
        cfg = self._config
        messages = [{"role": "system", "content": request.system}]
        messages += [{"role": m.role, "content": m.content} for m in request.messages]
        extra: dict[str, Any] = {}
        if cfg.temperature is not None:
            extra["temperature"] = cfg.temperature
        if request.seed is not None:
            extra["seed"] = request.seed
        if cfg.json_mode:
            extra["response_format"] = {"type": "json_object"}
        if request.timeout_s is not None:
            extra["timeout"] = request.timeout_s
        try:
            reply = self._client.chat.completions.create(
                model=cfg.model, messages=messages, max_tokens=cfg.max_output_tokens, **extra
            )
        except self._sdk.OpenAIError as exc:
            raise _sdk_error(exc, self._sdk) from None
        if not reply.choices:
            return Completion("", refusal="the endpoint returned no choices")
        choice = reply.choices[0]
        usage = reply.usage
        refusal = choice.message.refusal
        if refusal is None and choice.finish_reason == "content_filter":
            refusal = "the provider's content filter stopped the answer"
        return Completion(
            choice.message.content or "",
            usage.prompt_tokens if usage else 0,
            usage.completion_tokens if usage else 0,
            refusal,
        )


class Anthropic:
    """Anthropic's Messages API. It has no seed, and this SDK exposes no temperature: the answer
    cache is what makes a re-score reproducible."""

    def __init__(self, config: LLMJudgeConfig, api_key: SecretStr | None) -> None:
        import anthropic  # heavy SDK: imported only when an Anthropic judge is built

        self._sdk = anthropic
        self._config = config
        self._client = anthropic.Anthropic(
            api_key=api_key.get_secret_value() if api_key else None,
            base_url=config.base_url,
            timeout=config.timeout_s,
            max_retries=0,
        )

    def complete(self, request: ChatRequest) -> Completion:
        messages: list[Any] = [{"role": m.role, "content": m.content} for m in request.messages]
        extra: dict[str, Any] = {} if request.timeout_s is None else {"timeout": request.timeout_s}
        try:
            reply = self._client.messages.create(
                model=self._config.model,
                max_tokens=self._config.max_output_tokens,
                system=request.system,
                messages=messages,
                **extra,
            )
        except self._sdk.AnthropicError as exc:
            raise _sdk_error(exc, self._sdk) from None
        text = "".join(getattr(block, "text", "") for block in reply.content)
        refusal = "the model refused (stop_reason=refusal)" if reply.stop_reason == "refusal" else None
        return Completion(text, reply.usage.input_tokens, reply.usage.output_tokens, refusal)


@LLM_PROVIDERS.register("openai")
def _openai() -> ProviderFactory:
    """Any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp) via the openai SDK."""
    return OpenAICompatible


@LLM_PROVIDERS.register("anthropic")
def _anthropic() -> ProviderFactory:
    """Anthropic's Messages API via the anthropic SDK."""
    return Anthropic
