"""Re-scoring a stored submission (after a challenge fix, an engine fix, an appeal): queued through
the same dispatcher as a first scoring, guarded the same way (``bouts.service.jobs.execute``).

A re-score never edits a scorecard: it adds a version and makes it current, so the leaderboard
shows the new final while every earlier version stays readable (``?version=``). Its row is the
trail entry: who asked, when, why, the challenge version scored against, the version and final
before and after. An infrastructure failure or a refused archive leaves the current scorecard as
it was. A review decision on the submission (``bouts.calibration.review``) is a person's ruling
and still stands over the new final until the item is appealed and decided again; the trail
entry records it (``review_score``).
"""

from __future__ import annotations

import uuid

from bouts.models.scorecard import Scorecard
from bouts.pipeline import ScoreConfig
from bouts.service.errors import ConflictError, NotFoundError
from bouts.service.jobs import JobOutcome, Scorer, execute, score_archive
from bouts.service.metrics import Usage
from bouts.service.storage import Repository
from bouts.service.storage.records import JobClaim, RescoreInfo


def request_rescore(repo: Repository, submission_id: str, *, reason: str, current_challenge: bool,
                    by: str) -> RescoreInfo:  # fmt: skip
    """Queue a re-score of a scored submission against the challenge's current version (or the
    version it was submitted to). Raises ``NotFoundError``, ``ConflictError`` (not scored, or a
    re-score of it already queued or running)."""
    info = repo.submissions.get(submission_id)
    if info is None:
        raise NotFoundError("no such submission", field="submission_id")
    if info.state != "scored":
        raise ConflictError(f"is {info.state}: only a scored submission can be re-scored", field="submission_id")
    active = repo.rescores.active(submission_id)
    if active is not None:
        raise ConflictError(f"re-score {active.id} of this submission is already {active.state}; wait for it",
                            field="submission_id")  # fmt: skip
    return repo.rescores.create(uuid.uuid4().hex, submission_id, reason=reason, by=by, current=current_challenge)


def run_rescore_job(repo: Repository, rescore_id: str, *, scorer: Scorer, config: ScoreConfig,
                    max_attempts: int, lease_s: float = 0.0) -> JobOutcome:  # fmt: skip
    """Run one re-score: score the stored archive again and add the scorecard as a new version."""

    def work(claim: JobClaim[RescoreInfo]) -> Scorecard:
        return score_archive(scorer, claim.job.challenge_path, claim.job.archive_path, config)

    return execute(repo.rescores, rescore_id, work, repo.rescores.complete, max_attempts=max_attempts, done="done",
                   lease_s=lease_s, usage=lambda _claim, card: Usage.of(card))  # fmt: skip
