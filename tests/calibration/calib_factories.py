"""Builders for calibration tests: minimal valid scorecards made in memory."""

from __future__ import annotations

from collections.abc import Mapping

from bouts.models.scorecard import ComponentScore, FlagModel, JudgeScore, Reproducibility, Scorecard

WEIGHTS = {"objective": 0.45, "process": 0.2, "strategy": 0.1, "recovery": 0.2, "efficiency": 0.05}


def make_card(
    components: Mapping[str, float],
    *,
    agent: str = "agent-x",
    iteration: int = 1,
    final: int = 70,
    band: str = "Competent",
    flags: tuple[tuple[str, str], ...] = (),
    panel: Mapping[str, float] | None = None,
    challenge: str = "demo",
) -> Scorecard:
    comps = {
        name: ComponentScore(
            score=score,
            weight=WEIGHTS.get(name),
            judges=[JudgeScore(judge=j, score=s) for j, s in panel.items()]
            if panel and name == "code_quality"
            else [],
        )
        for name, score in components.items()
    }
    return Scorecard(
        challenge=challenge, agent=agent, iteration=iteration, profile="composite", family="blacksite-debug",
        weights=WEIGHTS, weights_source="blacksite-debug", final=final, raw=float(final), band=band,
        provisional=False, components=comps, adjustments={}, profiles={"composite": final}, profile_details={},
        flags=[FlagModel(code=c, message=m, level=1 if c == "judge_divergence" else None) for c, m in flags],
        math=[],
        reproducibility=Reproducibility(
            engine_version="0", challenge_hash="c", suite_hashes={}, sandbox="none",
            submission_hash=f"{agent}-{iteration}".ljust(16, "0"),
        ),
    )  # fmt: skip
