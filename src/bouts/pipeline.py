"""``score(...)``: the one entry point the CLI, the API and the workers call. The I/O edge.

It loads the challenge and the submission, runs the tests in the sandbox, reads the deliverables,
and hands the measurements to the pure ``bouts.assemble.build_scorecard``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bouts.assemble import Measurements, build_scorecard
from bouts.errors import SandboxError
from bouts.loading import check_matches, load_challenge, load_submission, severity_for
from bouts.models.challenge import Challenge
from bouts.models.results import RunReport, TestResult
from bouts.models.scorecard import Scorecard
from bouts.runner import run_suites
from bouts.sandbox import get_sandbox

MAX_DELIVERABLE_BYTES = 1_000_000


@dataclass(frozen=True)
class ScoreConfig:
    """How to score; typed and passed down (drivers read the environment, not this module)."""

    sandbox: str = "bubblewrap"
    seed: int | None = None
    """Override of the challenge's published seed (reproduce a scorecard's run)."""


def score(
    challenge_path: Path,
    submission_path: Path,
    *,
    config: ScoreConfig = ScoreConfig(),
    progress: Callable[[TestResult], None] | None = None,
    on_start: Callable[[Challenge, int], None] | None = None,
) -> Scorecard:
    """Score one submission (a directory or a .tar.gz/.zip) against one challenge directory.

    Raises ``InputError`` subclasses for malformed input. An infrastructure failure of the sandbox
    is recorded on the scorecard (``infra_error``), never scored as the agent's failure.
    """
    challenge = load_challenge(challenge_path)
    sandbox = get_sandbox(config.sandbox)
    with tempfile.TemporaryDirectory(prefix="bouts-submission-") as tmp:
        submission = load_submission(submission_path, Path(tmp))
        check_matches(challenge, submission)
        if on_start:
            on_start(challenge, sum(len(f) for f in challenge.test_files.values()))
        try:
            run = run_suites(challenge, submission.code_dir, sandbox=sandbox, progress=progress, seed=config.seed)
        except SandboxError as exc:
            run = RunReport(results=[], sandbox=sandbox.name, infra_error=exc.describe())
        run = _with_severities(challenge, run)
        texts = _read_deliverables(challenge, submission.deliverables_dir)
        return build_scorecard(challenge, submission.meta, Measurements(run, texts, submission.content_hash))


def _with_severities(challenge: Challenge, run: RunReport) -> RunReport:
    results = [
        r.model_copy(update={"severity": severity_for(challenge, r.id)}) if r.suite == "adversarial" else r
        for r in run.results
    ]
    return run.model_copy(update={"results": results})


def _read_deliverables(challenge: Challenge, directory: Path | None) -> dict[str, str | None]:
    texts: dict[str, str | None] = {}
    for d in challenge.spec.deliverables:
        path = (directory / d.path) if directory else None
        if path is None or not path.is_file() or path.is_symlink():
            texts[d.path] = None
            continue
        with path.open("rb") as fh:
            texts[d.path] = fh.read(MAX_DELIVERABLE_BYTES).decode("utf-8", errors="replace")
    return texts
