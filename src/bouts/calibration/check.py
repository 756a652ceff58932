"""``bouts check CHALLENGE``: is this challenge fit to launch? The I/O edge that runs every check.

1. spec: ``load_challenge`` plus the launch rules (:mod:`bouts.calibration.spec`);
2. lint: the test suites, statically (:mod:`bouts.calibration.lint`);
   starter: the visible suite once on ``starter/`` (:mod:`bouts.calibration.starter`);
3. reference: the reference solution ``runs`` times in both seed phases, quarantine and budgets,
   and the adversarial tests generated from it under the published and fresh seeds
   (:mod:`bouts.calibration.reference`);
4. anchors: low/mid/high scored with ``score()`` against their expected scores
   (:mod:`bouts.calibration.anchors`).

The launch is refused (``CheckReport.launch`` is False) when any problem is an error.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bouts.calibration.anchors import DEFAULT_BANDS, ScoreAnchor, check_anchors
from bouts.calibration.assertions import assertion_counts
from bouts.calibration.lint import SuiteFiles, lint_suites
from bouts.calibration.reference import (
    analyse,
    generated_problems,
    generated_summary,
    run_generated_on_reference,
    run_reference,
    write_quarantine,
)
from bouts.calibration.report import CheckReport, Problem
from bouts.calibration.spec import load_or_problem, spec_problems
from bouts.calibration.starter import run_starter, starter_problems
from bouts.errors import SandboxError
from bouts.languages import language_of
from bouts.loading.quarantine import FILE
from bouts.models.challenge import SUITES, Challenge
from bouts.prepare import dependency_manifests, unpinned_requirements
from bouts.sandbox import get_sandbox

if TYPE_CHECKING:
    from bouts.pipeline import ScoreConfig

QUARANTINE_FILE = FILE


@dataclass(frozen=True)
class CheckConfig:
    """How to check; typed and passed down from the CLI or the service."""

    runs: int = 5
    """Reference runs (each: published seed, then a fresh seed for the hidden suite); 0 skips them."""
    anchors: bool = True
    sandbox: str = "bubblewrap"
    fresh_seeds: Sequence[int] | None = None
    """The fresh seeds of the reference runs, one per run (reproduce a check); default: random."""
    write_quarantine: bool = False
    """Write the quarantine list to ``quarantine.toml`` in the challenge (removed when empty)."""
    scoring: ScoreConfig | None = None
    """How the anchors are scored (``bouts.score_settings.configure``: the judges, LLM panel,
    advisory store and PostgreSQL variant real scoring uses); ``None``: ``ScoreConfig(sandbox=sandbox)``."""
    bands: Mapping[str, tuple[int, int]] = field(default_factory=lambda: dict(DEFAULT_BANDS))
    """The final each anchor should reach (inclusive ranges): outside it, a warning that the anchors
    do not span the bands."""


def check_challenge(
    path: Path, config: CheckConfig = CheckConfig(), *, score: ScoreAnchor | None = None
) -> CheckReport:
    """Run every check on the challenge at ``path``. ``score`` scores one anchor (default: the
    real pipeline with ``config.sandbox``)."""
    path = Path(path)
    problems: list[Problem] = []
    skipped: list[str] = []
    challenge, found = load_or_problem(path)
    problems += found
    lint = None
    support = language_of(challenge) if challenge is not None else None
    if challenge is None or support is None:  # no language to ask: the Python suites the folder holds
        lint, found = lint_suites(_suite_files(path))
        problems += found
    elif support.has("check.lint"):
        files = _test_sources(challenge)
        lint, found = support.part("check.lint")(files, target=challenge.spec.tests.mix)
        problems += found
        if support.assertions == "golden":  # decided on the host: how many the runner can externalise
            counts, found = assertion_counts(files)
            lint = lint.model_copy(update={"assertions": counts})
            problems += found
    else:
        skipped.append(f"lint (no test-suite linter for {challenge.spec.language} yet)")
    reference = None
    starter = None
    anchors = []
    if challenge is None:
        skipped += ["starter", "reference", "anchors"]
    else:
        problems += spec_problems(challenge, _files(path)) + _preload_problems(challenge) + _pin_problems(path)
        if config.runs > 0:
            try:
                starter, found = starter_problems(run_starter(challenge, get_sandbox(config.sandbox)))
                problems += found
            except SandboxError as e:
                problems.append(Problem(check="starter", level="error", message=e.describe()))
        else:
            skipped.append("starter")
        if config.runs > 0:
            try:
                phases = run_reference(challenge, get_sandbox(config.sandbox), runs=config.runs,
                                       fresh_seeds=config.fresh_seeds)
                reference, found = analyse(phases, challenge.spec.limits)
                problems += found
                if challenge.spec.adversarial.generate:
                    seeds = reference.seeds[: config.runs]  # the published seed, then fresh ones
                    generated = run_generated_on_reference(challenge, get_sandbox(config.sandbox), seeds=seeds)
                    found, not_scored = generated_problems(generated)
                    problems += found
                    reference = reference.model_copy(update={"generated": generated_summary(generated)})
                    if not_scored:
                        skipped.append(f"generated adversarial tests on the reference ({not_scored})")
                else:
                    skipped.append("generated adversarial tests on the reference ([adversarial] generate = false)")
                if config.write_quarantine:
                    target = path / QUARANTINE_FILE
                    if reference.quarantined:
                        write_quarantine(target, reference)
                        reference = reference.model_copy(update={"quarantine_file": QUARANTINE_FILE})
                    elif target.is_file():
                        target.unlink()
            except SandboxError as e:
                problems.append(Problem(check="reference", level="error", message=e.describe()))
        else:
            skipped.append("reference")
        if config.anchors:
            anchors, found = check_anchors(challenge, score or _pipeline_scorer(path, config), config.bands)
            problems += found
        else:
            skipped.append("anchors")
    incomplete = _not_a_launch_check(config) if challenge is not None else []
    return CheckReport(
        challenge=challenge.spec.id if challenge else str(path),
        launch=not incomplete and not any(p.level == "error" for p in problems),
        incomplete=incomplete,
        problems=problems, lint=lint, starter=starter, reference=reference, anchors=anchors, skipped=skipped,
    )  # fmt: skip


def _not_a_launch_check(config: CheckConfig) -> list[str]:
    """What a launch needs that this check did not run. Seed 002: every judge within ±10 of the
    anchors' expected scores, and flaky tests quarantined, *before* going live; a check that skips
    the reference runs or the anchors finds no errors in them but cannot clear a launch (only an
    operator's recorded force-open opens a challenge without)."""
    out = []
    if config.runs <= 0:
        out.append("the reference runs (--runs 0): flaky tests cannot be quarantined")
    if not config.anchors:
        out.append("the anchors (--no-anchors): no judge was checked against its expected scores")
    return out


def _pin_problems(path: Path) -> list[Problem]:
    """A Python challenge's ``requirements.txt`` must pin every package it installs (SPEC §5: the same
    versions for every submission); the preparation refuses it otherwise, so the check names each line."""
    out: list[Problem] = []
    for manifest in dependency_manifests(path, "python"):
        rel = str(manifest.relative_to(path))
        for line, why in unpinned_requirements(manifest.read_text(errors="replace")):
            out.append(Problem(check="spec", level="error", message=f"line {line}: {why}", file=rel,
                               field=f"line {line}"))  # fmt: skip
    return out


def _preload_problems(challenge: Challenge) -> list[Problem]:
    """``[tests] preload`` names the engine's environment does not hold (the workers skip them
    silently). Only the top-level package is looked up: finding a submodule would import its
    package here; a module of the challenge's prepared dependencies exists only at run time."""
    import importlib.util

    out: list[Problem] = []
    for i, name in enumerate(challenge.spec.tests.preload):
        top = name.partition(".")[0]
        if importlib.util.find_spec(top) is None:
            out.append(Problem(check="spec", level="warning", file="challenge.toml", field=f"tests.preload[{i}]",
                               message=f"'{top}' is not in the engine's environment: the workers skip '{name}' "
                               "(unless the challenge's requirements.txt brings it)"))  # fmt: skip
    return out


def _pipeline_scorer(challenge_path: Path, check: CheckConfig) -> ScoreAnchor:
    from bouts.pipeline import ScoreConfig, score

    config = check.scoring or ScoreConfig(sandbox=check.sandbox)

    def run(anchor: Path) -> object:
        return score(challenge_path, anchor, config=config)

    return run  # type: ignore[return-value]


def _files(root: Path) -> list[str]:
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in {"__pycache__", ".pytest_cache"})
        for name in filenames:
            out.append(str((Path(dirpath) / name).relative_to(root)).replace(os.sep, "/"))
    return sorted(out)


def _test_sources(challenge: Challenge) -> SuiteFiles:
    """The challenge's test files (as its language names them, ``Challenge.test_files``) with their text."""
    return {rel: (suite, (challenge.root / rel).read_text(encoding="utf-8", errors="replace"))
            for suite in SUITES for rel in challenge.test_files.get(suite, [])}  # fmt: skip


def _suite_files(root: Path) -> SuiteFiles:
    files: dict[str, tuple[str, str]] = {}
    for suite in SUITES:
        base = root / "tests" / suite
        if not base.is_dir():
            continue
        for p in sorted(base.rglob("*.py")):
            if p.is_file() and not p.is_symlink() and (p.name.startswith("test_") or p.name.endswith("_test.py")):
                files[str(p.relative_to(root)).replace(os.sep, "/")] = (suite, p.read_text(encoding="utf-8"))
    return files  # type: ignore[return-value]
