"""One verdict's calls to a provider: the panel's shared limits, retries with backoff, the answer
cache, and the record of tokens and cost. The I/O edge of the LLM judges (clock, sleep, files).

Retry policy: 429, 5xx, timeouts and dropped connections are retried up to ``max_retries`` times,
waiting what ``Retry-After`` asks or else ``backoff_s × 2^n`` (at most ``max_backoff_s``); a wait that
would pass the verdict's ``max_total_s`` ends the attempts at once. Other errors (401, 400, 404) are
configuration problems and are not retried. Either way the endpoint, not the agent, failed:
``LLMUnavailableError`` is an ``InfrastructureError``, so the verdict becomes *not scored* with a
``judge_unavailable`` flag, never a 0.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bouts.errors import InfrastructureError
from bouts.judges.llm.config import LLMJudgeConfig
from bouts.judges.llm.prompt import PROMPT_VERSION, Prompt
from bouts.judges.llm.providers import ChatRequest, Completion, Provider, ProviderError


class LLMUnavailableError(InfrastructureError):
    """The LLM endpoint could not give an answer (down, rate-limited past the cap, misconfigured)."""


@dataclass
class Usage:
    """What one verdict spent. Recorded on the verdict's ``versions`` as strings (``llm.*``)."""

    requests: int = 0
    """HTTP requests sent, failed ones included."""
    cache_hits: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0

    def add(self, completion: Completion, config: LLMJudgeConfig) -> None:
        self.tokens_in += completion.tokens_in
        self.tokens_out += completion.tokens_out
        self.cost_usd += (
            completion.tokens_in * config.price_per_1k_in + completion.tokens_out * config.price_per_1k_out
        ) / 1000


@dataclass
class PanelRuntime:
    """What the judges of one panel share: the concurrency limit, the cache, the clock."""

    max_concurrency: int = 4
    cache_dir: Path | None = None
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    semaphore: threading.BoundedSemaphore = field(init=False)

    def __post_init__(self) -> None:
        self.semaphore = threading.BoundedSemaphore(self.max_concurrency)


def cache_key(config: LLMJudgeConfig, prompt: Prompt, seed: int | None) -> str:
    """sha256 over the model, the prompt version and the full prompt (plus what else shapes the answer)."""
    material = {
        "provider": config.provider,
        "model": config.model,
        "prompt_version": PROMPT_VERSION,
        "temperature": config.temperature,
        "seed": seed,
        "system": prompt.system,
        "messages": [[m.role, m.content] for m in prompt.messages],
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


def cache_get(runtime: PanelRuntime, key: str) -> str | None:
    """A cached answer's text; a missing or unreadable entry is a miss (the cache is an optimisation)."""
    if runtime.cache_dir is None:
        return None
    path = runtime.cache_dir / key[:2] / f"{key}.json"
    try:
        return str(json.loads(path.read_text("utf-8"))["text"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def cache_put(runtime: PanelRuntime, key: str, config: LLMJudgeConfig, text: str) -> None:
    """Store a *validated* answer (failures are never cached). Atomic: a crash leaves no half file."""
    if runtime.cache_dir is None:
        return
    folder = runtime.cache_dir / key[:2]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        entry = {"model": config.model, "prompt_version": PROMPT_VERSION, "text": text}
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(entry, out)
        os.replace(tmp, folder / f"{key}.json")
    except OSError:
        pass  # a read-only or full cache costs a future call, never a verdict


def call(
    provider: Provider,
    request: ChatRequest,
    config: LLMJudgeConfig,
    runtime: PanelRuntime,
    usage: Usage,
    deadline: float,
) -> Completion:
    """One answer from the provider, retrying transient failures within ``deadline`` (a clock value)."""
    attempt = 0
    while True:
        remaining = deadline - runtime.clock()
        # The semaphore is held only while a request is in flight, never during backoff.
        if remaining <= 0 or not runtime.semaphore.acquire(timeout=remaining):
            raise LLMUnavailableError(f"{config.judge_name}: no answer within {config.max_total_s:g} s")
        try:
            usage.requests += 1
            completion = provider.complete(request)
        except ProviderError as exc:
            error = exc
        else:
            usage.add(completion, config)
            return completion
        finally:
            runtime.semaphore.release()
        if not error.retryable:
            raise LLMUnavailableError(f"{config.judge_name}: {error} (not retried)")
        if attempt >= config.max_retries:
            raise LLMUnavailableError(f"{config.judge_name}: {error}; gave up after {attempt + 1} attempts")
        delay = error.retry_after if error.retry_after is not None else config.backoff_s * 2**attempt
        delay = delay if error.retry_after is not None else min(delay, config.max_backoff_s)
        if runtime.clock() + delay > deadline:
            raise LLMUnavailableError(
                f"{config.judge_name}: {error}; waiting {delay:g} s more would pass the {config.max_total_s:g} s cap"
            )
        runtime.sleep(delay)
        attempt += 1
