"""One scoring job: the state machine every dispatcher (local pool, Celery task) runs.

claim → ``score()`` → complete, with the outcome decided here and nowhere else:

- the submission is already finished, or another claim superseded ours → ``skipped``/``stale``:
  nothing is written (idempotency: a redelivered task does no harm);
- a scorecard → ``scored``, written in the same transaction as the state change;
- an infrastructure failure (``InfrastructureError``, a scorecard carrying ``infra_error``, or any
  unexpected exception of the engine) → ``retry`` while attempts remain, then ``failed_infra``;
  never a score of 0 for the agent;
- the engine refuses the submission (``SubmissionError``) → ``rejected`` with the message; any other
  ``InputError`` (a broken challenge snapshot, an unknown sandbox setting) is the operator's, so it
  is handled as an infrastructure failure.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bouts.errors import InfrastructureError, InputError, SubmissionError
from bouts.models.scorecard import Scorecard
from bouts.pipeline import ScoreConfig, score
from bouts.service.config import ServiceSettings
from bouts.service.storage import Repository
from bouts.service.storage.records import Claim

log = logging.getLogger(__name__)

Scorer = Callable[[Path, Path, ScoreConfig], Scorecard]
"""What a job calls to score: ``pipeline_scorer`` unless a test or a load rig injects another."""
OutcomeKind = Literal["scored", "retry", "failed_infra", "rejected", "skipped", "stale"]


@dataclass(frozen=True)
class JobOutcome:
    kind: OutcomeKind
    attempt: int = 0
    error: str | None = None


def pipeline_scorer(challenge: Path, submission: Path, config: ScoreConfig) -> Scorecard:
    """The real thing: ``bouts.pipeline.score``."""
    return score(challenge, submission, config=config)


def run_job(repo: Repository, submission_id: str, *, scorer: Scorer, config: ScoreConfig,
            max_attempts: int) -> JobOutcome:  # fmt: skip
    """Score ``submission_id`` once, guarded by the database; see the module docstring."""
    claim = repo.submissions.claim(submission_id)
    if claim is None:
        return JobOutcome("skipped")
    sub = claim.submission
    try:
        card = scorer(Path(sub.challenge_path), Path(sub.archive_path), config)
    except SubmissionError as exc:
        moved = repo.submissions.fail(claim, "rejected", exc.describe())
        return JobOutcome("rejected" if moved else "stale", claim.attempt, exc.describe())
    except (InfrastructureError, InputError) as exc:  # a broken challenge or setting is the operator's
        return _infra(repo, claim, exc.describe(), max_attempts)
    except Exception as exc:  # the engine's own bug is not the agent's failure either
        log.exception("scoring submission %s failed unexpectedly", submission_id)
        return _infra(repo, claim, f"{type(exc).__name__}: {exc}", max_attempts)
    if card.infra_error:
        return _infra(repo, claim, card.infra_error, max_attempts)
    if not repo.submissions.complete(claim, card):
        return JobOutcome("stale", claim.attempt)
    return JobOutcome("scored", claim.attempt)


def _infra(repo: Repository, claim: Claim, error: str, max_attempts: int) -> JobOutcome:
    if claim.attempt >= max_attempts:
        moved = repo.submissions.fail(claim, "failed_infra", error)
        return JobOutcome("failed_infra" if moved else "stale", claim.attempt, error)
    moved = repo.submissions.release(claim, error)
    return JobOutcome("retry" if moved else "stale", claim.attempt, error)


def retry_delay(attempt: int, base_s: float, cap_s: float = 300.0) -> float:
    """Exponential backoff: ``base``, ``2·base``, ``4·base``… capped."""
    return min(cap_s, base_s * 2 ** max(0, attempt - 1))


def score_config(settings: ServiceSettings) -> ScoreConfig:
    """How the service's workers score, from its settings."""
    return ScoreConfig(sandbox=settings.sandbox, workers=settings.score_workers,
                       cache_dir=(settings.data_dir / "cache").resolve())  # fmt: skip
