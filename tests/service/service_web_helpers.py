"""Scorecards for the web page tests, seeded straight through the repository (create → claim →
complete: the same transaction a worker's completion runs, review item included)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from bouts.calibration.review import decide, item_id
from bouts.models.scorecard import (
    ComponentScore,
    FindingModel,
    FlagModel,
    GeneratedAdversarialModel,
    GeneratedTestModel,
    JudgeScore,
    ProfileScore,
    Reproducibility,
    Scorecard,
    TestOutcomeModel,
)  # fmt: skip
from bouts.scoring.profiles import band
from bouts.service.storage import Repository

SCRIPT = '<script>alert("x")</script>'
HIDDEN_DETAIL = "HiddenOnlyOperatorsSeeThis"


def card(
    agent: str, iteration: int, final: int, *, objective: float = 80.0, integrity: float = 90.0,
    process: float = 70.0, challenge: str = "inventory-ledger", challenge_hash: str = "fake",
    message: str = "edit of ledger/core.py before reading it", diverge: bool = False, provisional: bool = True,
) -> Scorecard:
    """A scorecard with every part the scorecard page shows (values need not add up exactly)."""  # fmt: skip
    comps = {
        "static_tests": ComponentScore(score=90.0, math=["static_test_score = (36/40) × 100 = 90"]),
        "code_quality": ComponentScore(
            score=88.0, math=["code_quality: judges [90, 88, 70], spread 20 > 15 → median of the agreeing pair"],
            judges=[JudgeScore(judge="quality-lint", score=90.0, dimensions={"readability": 80.0}),
                    JudgeScore(judge="quality-metrics", score=88.0),
                    JudgeScore(judge="llm-judge", score=None, reason="no LLM configured")],
            findings=[FindingModel(judge="quality-lint", rule="ruff:PLR2004", message="magic value 19.99",
                                   file="ledger/money.py", line=8, points=20.0, dimension="readability")],
        ),
        "objective": ComponentScore(score=objective, weight=0.45, effective_weight=0.5, points=objective * 0.5,
                                    math=[f"objective = {objective}"]),
        "process": ComponentScore(
            score=process, weight=0.15, effective_weight=0.1667, points=process * 0.1667,
            math=[f"[trajectory-process] process = {process}"],
            judges=[JudgeScore(judge="trajectory-process", score=process)],
            findings=[FindingModel(judge="trajectory-process", rule="process.unread-edit", message=message, event=3,
                                   points=5.0)],
        ),
        "strategy": ComponentScore(score=75.0, weight=0.15, effective_weight=0.1667, points=12.5),
        "integrity": ComponentScore(score=integrity),
        "recovery": ComponentScore(score=None, weight=0.10, effective_weight=0.0, points=None, status="not_scored",
                                   reason="no failure met: nothing to recover from"),
        "efficiency": ComponentScore(score=100.0, weight=0.10, effective_weight=0.1667, points=16.67),
    }  # fmt: skip
    flags = [FlagModel(code="judge_divergence", message=f"objective {objective} vs integrity {integrity}", level=1)]
    generated = GeneratedAdversarialModel(seed=1234, analyser="python-ast/1", tests=[GeneratedTestModel(
        id="tests/generated/test_gen_unvalidated_input.py::test_gen_001_add_item_sku", target="unvalidated_input",
        file="ledger/core.py", line=73, function="ledger.core:Ledger.add_item", detail="sku indexes self._items[sku]",
        entry="ledger.core:Ledger.add_item", param="sku", strategy="fuzz", severity="high", outcome="failed",
        result="TypeError: unhashable type: 'list'", source="def test_gen_001(value):\n    probe(value)\n",
    )])  # fmt: skip
    return Scorecard(
        challenge=challenge, agent=agent, iteration=iteration, profile="composite", family="default",
        weights={"objective": 0.45}, weights_source="default", final=final, raw=final + 0.25, band=band(final),
        provisional=provisional, components=comps,
        adjustments={"integrity": 0.0, "exploit_penalties": 0.0, "calibration": 3.0},
        profiles={"engine": final - 1, "four-judge": final + 1, "composite": final},
        profile_details={
            "engine": ProfileScore(final=final - 1, raw=final - 1.0, band=band(final - 1), provisional=False),
            "four-judge": ProfileScore(final=final + 1, raw=final + 1.0, band=band(final + 1), provisional=False),
            "composite": ProfileScore(final=final, raw=final + 0.25, band=band(final), provisional=True,
                                      missing=["recovery"]),
        },
        flags=flags if diverge else [],
        math=["static_test_score = (36/40) × 100 = 90", f"objective = {objective}",
              f"composite = {final + 0.25} → {final}"],
        tests=[TestOutcomeModel(id="tests/visible/test_ledger.py::test_receive", suite="visible", outcome="passed"),
               TestOutcomeModel(id="tests/hidden/test_ledger_hidden.py::test_scale", suite="hidden", outcome="failed",
                                detail=HIDDEN_DETAIL)],
        reproducibility=Reproducibility(engine_version="test", challenge_hash=challenge_hash,
                                        suite_hashes={"visible": "v1"}, submission_hash=uuid.uuid4().hex,
                                        judges=["quality-lint"], seeds=[1234], sandbox="none"),
        generated_adversarial=generated,
    )  # fmt: skip


def seed(repo: Repository, scorecard: Scorecard, *, elapsed_s: float | None = None) -> str:
    """Store ``scorecard`` as a scored submission of its agent and iteration; its submission id."""
    info = repo.catalog.challenge(scorecard.challenge)
    assert info is not None
    sid = uuid.uuid4().hex
    repo.submissions.create(submission_id=sid, challenge_version_id=info.version_id, agent=scorecard.agent,
                            iteration=scorecard.iteration, elapsed_s=elapsed_s, content_hash=sid,
                            archive_path="", submitted_by=None)  # fmt: skip
    claim = repo.submissions.claim(sid)
    assert claim is not None and repo.submissions.complete(claim, scorecard)
    return sid


def decide_review(repo: Repository, scorecard: Scorecard, score: float, reason: str = "rubric review") -> None:
    """Decide the open review item of a seeded divergent scorecard."""
    item = repo.reviews.get(item_id(scorecard))
    assert item is not None, "the scorecard carried no judge_divergence flag"
    decided = decide(item, actor="operator", at=datetime.now(UTC), reason=reason, score=score)
    repo.reviews.put(decided, expected_version=item.version)
