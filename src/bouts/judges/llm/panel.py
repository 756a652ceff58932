"""Seating LLM judges: build them from a panel config and register them in ``JUDGES`` beside the
offline judges, so the owner creates every judge of a panel the same way (``JUDGES.create(name)``)
and ``bouts.scoring.panel.aggregate`` sees one list of verdicts. See docs/llm-judges.md#seating.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Mapping

from pydantic import SecretStr

from bouts.judges.base import JUDGES, Judge
from bouts.judges.llm.calls import PanelRuntime
from bouts.judges.llm.config import LLMJudgeConfig, LLMPanelConfig
from bouts.judges.llm.judge import LLMJudge
from bouts.registry import Registry

# registry → judge name → what its registered factory builds. The factory registered for a name is
# one stable function reading this table, so a panel can be re-seated (new key, new config) in one
# process without the registry's "registered twice" guard tripping.
Seat = tuple[LLMJudgeConfig, SecretStr | None, PanelRuntime]
_SEATS: weakref.WeakKeyDictionary[Registry[Judge], dict[str, Seat]] = weakref.WeakKeyDictionary()


def _runtime(panel: LLMPanelConfig, sleep: Callable[[float], None], clock: Callable[[], float]) -> PanelRuntime:
    return PanelRuntime(panel.max_concurrency, panel.cache_dir, sleep, clock, panel.max_total_s)


def build_llm_judges(
    panel: LLMPanelConfig,
    keys: Mapping[str, SecretStr | None],
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> list[LLMJudge]:
    """The panel's judges, sharing one runtime (semaphore, cache). ``keys`` from ``resolve_keys``."""
    runtime = _runtime(panel, sleep, clock)
    return [LLMJudge(cfg, keys.get(cfg.judge_name), runtime) for cfg in panel.judges]


def seat_llm_judges(
    panel: LLMPanelConfig,
    keys: Mapping[str, SecretStr | None],
    *,
    registry: Registry[Judge] = JUDGES,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> list[str]:
    """Register every judge of ``panel`` in ``registry`` (``JUDGES`` unless a test passes its own):
    one factory per judge, built through its provider's factory in ``LLM_PROVIDERS``. Returns their
    names in panel order. A name another judge already holds is refused: the scorecard must say
    which judge sat.
    """
    runtime = _runtime(panel, sleep, clock)
    seats = _SEATS.setdefault(registry, {})
    taken = set(registry.names()) - set(seats)
    names = []
    for cfg in panel.judges:
        name = cfg.judge_name
        if name in taken:
            raise ValueError(f"judge name '{name}' is already registered by another judge; set `name`")
        first = name not in seats
        seats[name] = (cfg, keys.get(name), runtime)
        if first:
            registry.register(name, f"LLM judge ({cfg.component})")(_factory(seats, name))
        names.append(name)
    return names


def _factory(seats: dict[str, Seat], name: str) -> Callable[[], Judge]:
    def build() -> Judge:
        cfg, key, runtime = seats[name]
        return LLMJudge(cfg, key, runtime)

    return build
