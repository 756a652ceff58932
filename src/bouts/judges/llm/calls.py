"""One verdict's calls to a provider: the panel's shared limits, retries with backoff, the answer
cache, and the record of tokens and cost. The I/O edge of the LLM judges (clock, sleep, files).

Retry policy: 429, 5xx, timeouts and dropped connections are retried up to ``max_retries`` times,
waiting what ``Retry-After`` asks or else ``backoff_s × 2^n`` (at most ``max_backoff_s``); a wait that
would pass the deadline ends the attempts at once. The deadline is the earlier of the verdict's
``max_total_s`` and the panel's budget for the scorecard (``LLMPanelConfig.max_total_s``, started
by the first judge); every request is sent with a timeout no longer than what is left, and waited
for on a watchdog, so an endpoint that hangs or trickles its answer cannot overrun it. Other errors (401, 400, 404) are
configuration problems and are not retried. Either way the endpoint, not the agent, failed:
``LLMUnavailableError`` is an ``InfrastructureError``, so the verdict becomes *not scored* with a
``judge_unavailable`` flag, never a 0.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from bouts.cache import Store
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
    unusable: bool = False
    """An answer stayed malformed or refused after the re-asks (the verdict is not scored)."""

    def add(self, completion: Completion, config: LLMJudgeConfig) -> None:
        self.tokens_in += completion.tokens_in
        self.tokens_out += completion.tokens_out
        self.cost_usd += (
            completion.tokens_in * config.price_per_1k_in + completion.tokens_out * config.price_per_1k_out
        ) / 1000


@dataclass(frozen=True)
class Deadline:
    """A clock value to answer by, and how to name it in a reason."""

    at: float
    cap: str
    """e.g. "the 300 s cap" (one verdict) or "the panel's 600 s budget"."""


@dataclass
class PanelRuntime:
    """What the judges of one panel share: the concurrency limit, the cache, the clock, the budget."""

    max_concurrency: int = 4
    cache_dir: Path | None = None
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    budget_s: float | None = None
    """The panel's wall-time budget per scorecard (``LLMPanelConfig.max_total_s``)."""
    semaphore: threading.BoundedSemaphore = field(init=False)
    _budgets: dict[int, tuple[weakref.ref[object], Deadline]] = field(init=False, default_factory=dict)
    _lock: threading.Lock = field(init=False, default_factory=threading.Lock)
    _store: Store | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.semaphore = threading.BoundedSemaphore(self.max_concurrency)

    def store(self) -> Store | None:
        """The answer cache (opened once), or None without a ``cache_dir``. Not keyed by the engine's
        fingerprint: an answer depends on the model, the prompt version and the prompt's every byte
        (its key, :func:`cache_key`), not on the engine's code, and asking again costs money."""
        if self.cache_dir is None:
            return None
        with self._lock:
            if self._store is None:
                self._store = Store.open(self.cache_dir, ANSWERS, engine_keyed=False)
            return self._store

    def budget_for(self, scoring: object) -> Deadline | None:
        """The panel's deadline on one scorecard, started by the first judge asking with that
        ``scoring`` object (the ``JudgeInput`` every late judge of a scoring shares). None: no budget."""
        if self.budget_s is None:
            return None
        with self._lock:
            self._budgets = {k: e for k, e in self._budgets.items() if e[0]() is not None}
            entry = self._budgets.get(id(scoring))
            if entry is None or entry[0]() is not scoring:
                entry = (weakref.ref(scoring), Deadline(self.clock() + self.budget_s,
                                                        f"the panel's {self.budget_s:g} s budget"))
                self._budgets[id(scoring)] = entry
            return entry[1]


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


ANSWERS = "answers"
"""The answer cache's namespace in the panel's ``cache_dir`` (``bouts.cache.Store``)."""


def cache_get(runtime: PanelRuntime, key: str) -> str | None:
    """A cached answer's text; a missing, damaged or forged entry is a miss (asked again). The entry
    is served only as every engine cache entry is (``bouts.cache.Store``: the engine user's, MAC'd
    under the cache's own secret): whoever can write the cache would otherwise decide the judges'
    answers. A cache directory others can write is refused (``InfrastructureError``: the judge
    cannot run, named as the environment's fault)."""
    store = runtime.store()
    if store is None:
        return None
    payload = store.get({"prompt": key})
    text = payload.get("text") if isinstance(payload, dict) else None
    return text if isinstance(text, str) else None


def cache_put(runtime: PanelRuntime, key: str, config: LLMJudgeConfig, text: str) -> None:
    """Store a *validated* answer (failures are never cached). Atomic; a read-only or full cache
    costs a future call, never a verdict (``Store.put``)."""
    store = runtime.store()
    if store is not None:
        store.put({"prompt": key}, {"model": config.model, "prompt_version": PROMPT_VERSION, "text": text})


def call(
    provider: Provider,
    request: ChatRequest,
    config: LLMJudgeConfig,
    runtime: PanelRuntime,
    usage: Usage,
    deadline: Deadline,
) -> Completion:
    """One answer from the provider, retrying transient failures within ``deadline``."""
    attempt = 0
    name = config.judge_name
    while True:
        remaining = deadline.at - runtime.clock()
        # The semaphore is held only while a request is in flight, never during backoff.
        if remaining <= 0 or not runtime.semaphore.acquire(timeout=remaining):
            raise LLMUnavailableError(f"{name}: no answer within {deadline.cap} ({_sent(usage)})")
        try:
            remaining = deadline.at - runtime.clock()
            if remaining <= 0:  # the slot came free just as the deadline passed: send nothing
                raise LLMUnavailableError(f"{name}: no answer within {deadline.cap} ({_sent(usage)})")
            usage.requests += 1
            completion = _complete_within(provider, replace(request, timeout_s=min(config.timeout_s, remaining)),
                                          remaining)
        except ProviderError as exc:
            error = exc
        else:
            if completion is None:
                raise LLMUnavailableError(
                    f"{name}: no answer within {deadline.cap}; a request was still open ({_sent(usage)})"
                )
            usage.add(completion, config)
            return completion
        finally:
            runtime.semaphore.release()
        if not error.retryable:
            raise LLMUnavailableError(f"{name}: {error} (not retried)")
        if attempt >= config.max_retries:
            raise LLMUnavailableError(f"{name}: {error}; gave up after {attempt + 1} attempts")
        delay = error.retry_after if error.retry_after is not None else config.backoff_s * 2**attempt
        delay = delay if error.retry_after is not None else min(delay, config.max_backoff_s)
        if runtime.clock() + delay > deadline.at:
            raise LLMUnavailableError(f"{name}: {error}; waiting {delay:g} s more would pass {deadline.cap} "
                                      f"({_sent(usage)})")
        runtime.sleep(delay)
        attempt += 1


def _sent(usage: Usage) -> str:
    return f"{usage.requests} request{'s' if usage.requests != 1 else ''} sent"


def _complete_within(provider: Provider, request: ChatRequest, seconds: float) -> Completion | None:
    """``provider.complete(request)``, waited for at most ``seconds``; None if it is still running.

    The client timeout alone does not bound wall time (it restarts with every byte a trickling
    server sends), so the request runs on a daemon thread and is abandoned at the deadline; the
    client's own timeout ends it soon after.
    """
    box: list[Completion | BaseException] = []

    def run() -> None:
        try:
            box.append(provider.complete(request))
        except BaseException as exc:  # noqa: BLE001 (handed to the waiting thread, which raises it)
            box.append(exc)

    worker = threading.Thread(target=run, name="llm-request", daemon=True)
    worker.start()
    worker.join(max(0.0, seconds))
    if not box:
        return None
    if isinstance(box[0], BaseException):
        raise box[0]
    return box[0]
