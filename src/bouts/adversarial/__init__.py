"""Adversarial tests generated from the submitted code (SPEC §1, the generated share).

analyse (per language, pure) → generate (test sources, pure, seeded) → run in the sandbox through
``bouts.runner`` (``run_generated``) → score (``score_generated``) → a ``Verdict`` for the
``adversarial_generated`` component and a list for the scorecard. What a language does at each step
is its entry's ``adversarial`` part (``Generation``, named in ``bouts.languages``).
See ``docs/adversarial.md``.
"""

from __future__ import annotations

from bouts.adversarial._generate import GeneratedSuite, GeneratedTest, generate
from bouts.adversarial._model import SEVERITY, TARGET_KINDS, Analysis, Entry, Probe, Target, TargetKind
from bouts.adversarial._run import (
    GeneratedRun,
    Prepared,
    finish_generated,
    prepare_generated,
    read_sources,
    run_generated,
    run_prepared,
    score_generated,
)
from bouts.adversarial.analysers import Analyser, Generation, PythonAnalyser, analyser_for
from bouts.models.scorecard import GeneratedAdversarialModel, GeneratedTestModel


def to_model(run: GeneratedRun) -> GeneratedAdversarialModel:
    """The scorecard's view of a generated run."""
    tests = [
        GeneratedTestModel(
            id=t.id,
            target=t.target.kind,
            file=t.target.file,
            line=t.target.line,
            function=t.target.function,
            detail=t.target.detail,
            entry=t.entry,
            param=t.param,
            strategy=t.strategy,
            severity=t.severity,
            outcome=r.outcome if r else None,
            result=r.detail[:1000] if r else "",
            source=t.source,
        )  # fmt: skip
        for t, r in run.outcomes()
    ]
    skipped = [f"{t.kind} at {t.where} ({t.function}): {why}" for t, why in (run.suite.skipped if run.suite else ())]
    return GeneratedAdversarialModel(
        seed=run.suite.seed if run.suite else 0, analyser=run.analyser, tests=tests, skipped=skipped,
        notes=list(run.notes),
    )  # fmt: skip


__all__ = [
    "SEVERITY",
    "TARGET_KINDS",
    "Analyser",
    "Analysis",
    "Entry",
    "GeneratedRun",
    "Generation",
    "GeneratedSuite",
    "GeneratedTest",
    "Prepared",
    "Probe",
    "PythonAnalyser",
    "Target",
    "TargetKind",
    "analyser_for",
    "finish_generated",
    "generate",
    "prepare_generated",
    "read_sources",
    "run_generated",
    "run_prepared",
    "score_generated",
    "to_model",
]
