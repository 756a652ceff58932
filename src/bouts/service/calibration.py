"""Calibration on the service's data (docs/calibration.md, docs/service.md):

- ``challenge_stats``: ``bouts stats`` over the stored current scorecards of a challenge; the math is
  ``bouts.calibration.stats.summarise``'s, this module only picks the scorecards (anchors' and
  infrastructure-failed runs left out, as on the calibration page);
- ``request_check`` / ``run_check_job``: ``bouts check`` on a registered challenge version as a
  background job of the dispatcher (it runs the reference through the sandbox), its report stored
  as the ``bouts.check/1`` JSON that ``bouts check --json`` prints.

Hidden tests: a check report carries test names, line numbers and exception types, never source;
``redact_hidden`` still blanks any line of a hidden test that would appear in one, so the check
route cannot become the way hidden tests leave the server.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bouts.calibration import CheckConfig, CheckReport, StatsReport, attempt_from_scorecard, check_challenge, summarise
from bouts.loading.challenge import ANCHOR_LEVELS
from bouts.models.scorecard import Scorecard
from bouts.pipeline import ScoreConfig
from bouts.sandbox import get_sandbox
from bouts.service.jobs import JobOutcome, Scorer, execute
from bouts.service.storage import Repository
from bouts.service.storage.records import ChallengeInfo, CheckRunInfo, JobClaim, StoredScorecard

ANCHOR_AGENT = "anchor-{level}"
"""The agent name under which an operator submits a challenge's anchor to measure it
(``anchor-low``, ``anchor-mid``, ``anchor-high``): such runs are not attempts."""
HIDDEN_MARK = "[hidden test source]"
MIN_REDACTED_LINE = 12
"""Shorter lines of hidden tests (``return``, ``)``) say nothing about them and are common words."""


# -- stats --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Attempts:
    """Which stored scorecards count as attempts."""

    cards: list[tuple[str, Scorecard]]
    """Every readable scorecard, with its submission id (newest first)."""
    runs: list[tuple[str, Scorecard]]
    """The attempts: not an anchor's run, not an infrastructure failure."""
    unreadable: int


def select_attempts(stored: Sequence[StoredScorecard]) -> Attempts:
    cards: list[tuple[str, Scorecard]] = []
    unreadable = 0
    for s in stored:
        try:
            cards.append((s.submission_id, Scorecard.model_validate(s.card)))
        except ValidationError:
            unreadable += 1
    anchors = {ANCHOR_AGENT.format(level=lvl) for lvl in ANCHOR_LEVELS}
    runs = [(sid, c) for sid, c in cards if c.agent not in anchors and c.infra_error is None]
    return Attempts(cards, runs, unreadable)


def challenge_stats(info: ChallengeInfo, stored: Sequence[StoredScorecard]) -> tuple[StatsReport, Attempts]:
    """``bouts stats`` over ``stored`` (``Submissions.current_scorecards`` of ``info``)."""
    picked = select_attempts(stored)
    report = summarise([attempt_from_scorecard(c) for _, c in picked.runs], challenge=info.slug)
    return report, picked


# -- check --------------------------------------------------------------------------------------
def request_check(repo: Repository, info: ChallengeInfo, *, runs: int, anchors: bool, fresh_seeds: Sequence[int],
                  by: str) -> tuple[CheckRunInfo, bool]:  # fmt: skip
    """Queue a check of ``info``'s current version; (the check, whether new). The same check
    already queued or running is returned instead of running it twice."""
    same = repo.checks.active(info, runs=runs, anchors=anchors, fresh_seeds=fresh_seeds)
    if same is not None:
        return same, False
    created = repo.checks.create(uuid.uuid4().hex, info, runs=runs, anchors=anchors, fresh_seeds=fresh_seeds, by=by)
    return created, True


def run_check_job(repo: Repository, check_id: str, *, scorer: Scorer, config: ScoreConfig,
                  max_attempts: int, lease_s: float = 0.0) -> JobOutcome:  # fmt: skip
    """Run one check run, guarded like a scoring (``bouts.service.jobs.execute``)."""

    def work(claim: JobClaim[CheckRunInfo]) -> CheckReport:
        job = claim.job
        path = Path(job.challenge_path)
        if job.runs > 0:
            # A sandbox that cannot start on this worker is the service's failure (retried, then
            # failed_infra), not a verdict on the challenge.
            get_sandbox(config.sandbox)
        check = CheckConfig(runs=job.runs, anchors=job.anchors, sandbox=config.sandbox,
                            fresh_seeds=list(job.fresh_seeds) or None)  # fmt: skip
        return check_challenge(path, check, score=partial(_score_anchor, scorer, path, config))

    def complete(claim: JobClaim[CheckRunInfo], report: CheckReport) -> bool:
        text = redact_hidden(report, hidden_lines(Path(claim.job.challenge_path)))
        return repo.checks.complete(claim, text, report.launch)

    return execute(repo.checks, check_id, work, complete, max_attempts=max_attempts, done="done",
                   lease_s=lease_s)


def _score_anchor(scorer: Scorer, challenge: Path, config: ScoreConfig, anchor: Path) -> Scorecard:
    return scorer(challenge, anchor, config)


def hidden_lines(challenge: Path) -> set[str]:
    """The distinctive lines of a challenge's hidden tests (the I/O edge of ``redact_hidden``)."""
    lines: set[str] = set()
    root = challenge / "tests" / "hidden"
    for path in sorted(root.rglob("*")) if root.is_dir() else []:
        if path.is_file() and not path.is_symlink():
            text = path.read_bytes().decode("utf-8", errors="replace")
            lines.update(s for line in text.splitlines() if len(s := line.strip()) >= MIN_REDACTED_LINE)
    return lines


def redact_hidden(report: CheckReport, secret_lines: Collection[str]) -> str:
    """``report`` as ``bouts check --json`` prints it, with any line of a hidden test found in one of
    its strings replaced by ``[hidden test source]``. Pure."""
    data = report.model_dump(mode="json", by_alias=True)
    cleaned = _scrub(data, sorted(secret_lines, key=len, reverse=True))
    if cleaned == data:
        return report.to_json()
    return CheckReport.model_validate(cleaned).to_json()


def _scrub(value: Any, lines: Sequence[str]) -> Any:
    if isinstance(value, str):
        for line in lines:
            if line in value:
                value = value.replace(line, HIDDEN_MARK)
        return value
    if isinstance(value, list):
        return [_scrub(v, lines) for v in value]
    if isinstance(value, dict):
        return {k: _scrub(v, lines) for k, v in value.items()}
    return value
