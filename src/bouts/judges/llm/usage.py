"""The LLM panel's cost record and its review flags, read from verdicts. Pure: verdicts in, data out.

Each LLM verdict carries its own spending in ``Verdict.versions`` (``llm.requests``,
``llm.cache_hits``, ``llm.tokens_in``, ``llm.tokens_out``, ``llm.cost_usd``) and what became of
its answer (``llm.status``). A scorecard seats several LLM judges, so these keys cannot be merged
into one flat mapping (the last judge would win): ``usage_of`` sums every judge and keeps each
judge's line. See docs/llm-judges.md#cache-and-cost.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bouts.models.verdict import Verdict
from bouts.scoring.explain import NotScored
from bouts.scoring.review import Flag

UNUSABLE_FLAG = "llm_answer_unusable"
"""Flag code of a judge whose answers stayed malformed or refused; it opens a review item."""
UNAVAILABLE_FLAG = "judge_unavailable"
"""The flag every judge whose tools broke raises (``bouts.judging``): infrastructure, not the agent."""
STATUS_UNUSABLE = "unusable answer"
STATUS_UNAVAILABLE = "unavailable"
COST_KEYS = ("llm.requests", "llm.cache_hits", "llm.tokens_in", "llm.tokens_out", "llm.cost_usd", "llm.status")
"""What one scoring spent and got: kept out of the scorecard's ``rule_sets`` (they are not versions)."""


@dataclass(frozen=True)
class JudgeUsage:
    """What one LLM judge spent on one scorecard."""

    judge: str
    provider: str
    model: str
    status: str
    """``scored``, ``unusable answer``, ``unavailable`` (no answer in time, endpoint down) or
    ``not scored`` (nothing to judge); ``reason`` says why when it did not score."""
    reason: str | None = None
    requests: int = 0
    cache_hits: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0


@dataclass(frozen=True)
class UsageSummary:
    """What a scorecard's LLM judges spent: the sums over ``judges``, and each judge's line."""

    requests: int = 0
    cache_hits: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    judges: tuple[JudgeUsage, ...] = ()


def _int(versions: dict[str, str], key: str) -> int:
    try:
        return int(versions.get(key, "0"))
    except ValueError:
        return 0


def _judge_usage(v: Verdict) -> JudgeUsage:
    versions = dict(v.versions)
    try:
        cost = float(versions.get("llm.cost_usd", "0"))
    except ValueError:
        cost = 0.0
    unscored = isinstance(v.score, NotScored)
    status = versions.get("llm.status") or ("not scored" if unscored else "scored")
    return JudgeUsage(
        judge=v.judge, provider=versions.get("llm.provider", ""), model=versions["llm.model"], status=status,
        reason=v.score.reason if isinstance(v.score, NotScored) else None,
        requests=_int(versions, "llm.requests"), cache_hits=_int(versions, "llm.cache_hits"),
        tokens_in=_int(versions, "llm.tokens_in"), tokens_out=_int(versions, "llm.tokens_out"), cost_usd=cost,
    )  # fmt: skip


def usage_of(verdicts: Iterable[Verdict]) -> UsageSummary:
    """Sum the cost records of every LLM verdict among ``verdicts`` (others are ignored), with one
    line per judge in verdict order."""
    judges = tuple(_judge_usage(v) for v in verdicts if "llm.model" in v.versions)
    return UsageSummary(
        requests=sum(j.requests for j in judges),
        cache_hits=sum(j.cache_hits for j in judges),
        tokens_in=sum(j.tokens_in for j in judges),
        tokens_out=sum(j.tokens_out for j in judges),
        cost_usd=round(sum(j.cost_usd for j in judges), 6),
        judges=judges,
    )


def usage_flags(verdicts: Iterable[Verdict]) -> list[Flag]:
    """The flags of LLM judges that did not score. Answers that stayed malformed or refused: a
    level-1 review flag (the verdict is *not scored*, never 0, and a person should look at why: a
    prompt injection in the submission, a model that cannot follow the schema). No answer at all
    (endpoint down, the time budget spent): ``judge_unavailable``, as for any judge whose tools broke."""
    flags = []
    for v in verdicts:
        if not isinstance(v.score, NotScored):
            continue
        status = v.versions.get("llm.status")
        if status == STATUS_UNUSABLE:
            flags.append(Flag(UNUSABLE_FLAG, f"{v.judge}: {v.score.reason}", level=1))
        elif status == STATUS_UNAVAILABLE:
            flags.append(Flag(UNAVAILABLE_FLAG, v.score.reason, level=1))
    return flags
