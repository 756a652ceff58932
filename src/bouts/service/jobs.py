"""One scoring job: the state machine every dispatcher (local pool, Celery task) runs.

claim → ``score()`` → complete, with the outcome decided here and nowhere else (``execute``, which
the other background jobs, check runs and re-scores, run the same way):

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

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, Protocol, TypeVar

from bouts.errors import InfrastructureError, InputError, SubmissionError
from bouts.models.scorecard import Scorecard
from bouts.pipeline import ScoreConfig, score
from bouts.service.config import ServiceSettings
from bouts.service.metrics import Usage
from bouts.service.storage import Repository
from bouts.service.storage.records import Claim

log = logging.getLogger(__name__)

Scorer = Callable[[Path, Path, ScoreConfig], Scorecard]
"""What a job calls to score: ``pipeline_scorer`` unless a test or a load rig injects another."""
OutcomeKind = Literal["scored", "done", "retry", "failed_infra", "rejected", "skipped", "stale"]
JobKind = Literal["score", "check", "rescore"]
"""What a dispatched job does: score a submission, check a challenge, re-score a submission."""


class _Claimed(Protocol):
    @property
    def attempt(self) -> int: ...


ClaimT = TypeVar("ClaimT", bound=_Claimed)
ResultT = TypeVar("ResultT")


@dataclass(frozen=True)
class JobOutcome:
    kind: OutcomeKind
    attempt: int = 0
    error: str | None = None
    seconds: float = 0.0
    """How long the claim took to reach this outcome (the work and its save)."""
    usage: Usage | None = None
    """The LLM tokens and cost the work spent (``bouts.service.metrics``)."""


def pipeline_scorer(challenge: Path, submission: Path, config: ScoreConfig) -> Scorecard:
    """The real thing: ``bouts.pipeline.score``."""
    return score(challenge, submission, config=config)


class JobStore(Protocol[ClaimT]):
    """The guarded transitions ``execute`` needs (``Submissions``, ``CheckRuns``, ``Rescores``)."""

    def claim(self, job_id: str, *, lease_s: float = 0.0) -> ClaimT | None: ...

    def beat(self, claim: ClaimT) -> bool: ...

    def release(self, claim: ClaimT, error: str) -> bool: ...

    def fail(self, claim: ClaimT, state: str, error: str) -> bool: ...


def execute(
    store: JobStore[ClaimT], job_id: str, work: Callable[[ClaimT], ResultT],
    complete: Callable[[ClaimT, ResultT], bool], *, max_attempts: int, done: OutcomeKind = "scored",
    lease_s: float = 0.0, usage: Callable[[ClaimT, ResultT], Usage] | None = None,
) -> JobOutcome:
    """claim → ``work`` → ``complete``, guarded by the database; see the module docstring.

    While ``work`` runs, the claim's heartbeat is stamped four times per ``lease_s`` (0: no lease),
    so a job whose worker died is handed back once its lease runs out, and a running job whose
    heartbeat is fresh is not claimed again: a duplicate delivery while its worker lives is skipped
    (``bouts.service.storage.leases``).
    A claim past ``max_attempts`` (its earlier workers died mid-job, none recorded a failure) ends
    the job ``failed_infra`` instead of running it again: a job that kills its worker cannot loop."""  # fmt: skip
    started = time.monotonic()
    outcome = _execute(store, job_id, work, complete, max_attempts=max_attempts, done=done, lease_s=lease_s,
                       usage=usage)  # fmt: skip
    return replace(outcome, seconds=time.monotonic() - started)


def _execute(
    store: JobStore[ClaimT], job_id: str, work: Callable[[ClaimT], ResultT],
    complete: Callable[[ClaimT, ResultT], bool], *, max_attempts: int, done: OutcomeKind,
    lease_s: float, usage: Callable[[ClaimT, ResultT], Usage] | None,
) -> JobOutcome:  # fmt: skip
    claim = store.claim(job_id, lease_s=lease_s)
    if claim is None:
        return JobOutcome("skipped")
    attempt = claim.attempt
    if attempt > max_attempts:
        error = f"gave up after {attempt - 1} attempts: each lost its worker before it finished"
        moved = store.fail(claim, "failed_infra", error)
        return JobOutcome("failed_infra" if moved else "stale", attempt, error)
    with _heartbeat(store, claim, lease_s / 4):
        try:
            with _working(store, claim):
                result = work(claim)
        except SubmissionError as exc:
            moved = store.fail(claim, "rejected", exc.describe())
            return JobOutcome("rejected" if moved else "stale", attempt, exc.describe())
        except (InfrastructureError, InputError) as exc:  # a broken challenge or setting is the operator's
            return _infra(store, claim, exc.describe(), max_attempts)
        except Exception as exc:  # the engine's own bug is not the agent's failure either
            log.exception("job %s failed unexpectedly", job_id)
            return _infra(store, claim, f"{type(exc).__name__}: {exc}", max_attempts)
        # the heartbeat goes on while the result waits for the database: the job is alive
        spent = usage(claim, result) if usage is not None else None
        if not save_patiently(lambda: complete(claim, result), f"job {job_id}"):
            return JobOutcome("stale", attempt, usage=spent)
    return JobOutcome(done, attempt, usage=spent)


SAVE_PATIENCE_S = 600.0
"""How long a finished job keeps trying to save its result while the database does not answer,
before it gives up (the task is retried; a kept scoring is reused, not scored again)."""


def save_patiently(save: Callable[[], bool], what: str, *, patience_s: float | None = None) -> bool:
    """``save()``, tried again while the database does not answer (1 s doubling to 10 s between
    tries) for up to ``patience_s``: a finished job is not thrown away because of an outage. Any
    other error, or the last outage error, propagates."""
    from bouts.service.storage.db import DATABASE_DOWN

    patience = SAVE_PATIENCE_S if patience_s is None else patience_s
    deadline = time.monotonic() + patience
    delay = 1.0
    while True:
        try:
            return save()
        except DATABASE_DOWN as exc:
            if time.monotonic() + delay > deadline:
                raise
            log.warning("%s finished but the database does not answer (%s); saving again in %g s",
                        what, type(exc).__name__, delay)  # fmt: skip
            time.sleep(delay)
            delay = min(10.0, delay * 2)


_WORKING: dict[int, tuple[JobStore[object], object]] = {}
"""The claims this process is working on, by thread: what a stopping worker hands back
(``bouts.service.worker.shutdown``)."""


def working() -> list[tuple[JobStore[object], object]]:
    """(store, claim) of every job this process is running now."""
    return list(_WORKING.values())


@contextlib.contextmanager
def _working(store: JobStore[ClaimT], claim: ClaimT) -> Iterator[None]:
    key = threading.get_ident()
    _WORKING[key] = (store, claim)  # type: ignore[assignment]
    try:
        yield
    finally:
        _WORKING.pop(key, None)


@contextlib.contextmanager
def _heartbeat(store: JobStore[ClaimT], claim: ClaimT, every_s: float) -> Iterator[None]:
    """Stamp ``claim``'s heartbeat every ``every_s`` from a thread while the block runs."""
    if every_s <= 0:
        yield
        return
    stop = threading.Event()

    def run() -> None:
        while not stop.wait(every_s):
            try:
                if not store.beat(claim):
                    return  # superseded: a newer claim owns the job now
            except Exception:  # the database blinked: the next beat may get through
                log.warning("heartbeat of attempt %s failed", claim.attempt, exc_info=True)

    thread = threading.Thread(target=run, name="bouts-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=5)


def score_archive(scorer: Scorer, challenge_path: str, archive_path: str, config: ScoreConfig) -> Scorecard:
    """Score one stored submission; a scorecard carrying ``infra_error`` is raised as that failure.

    A run the service recorded (``bouts.service.agent_runs``) is scored again as recorded, with its
    recording, by the pipeline itself: ``scorer`` stands in for scoring uploads only."""
    from bouts.service.agent_runs import recorded_submission

    recorded = recorded_submission(archive_path)
    if recorded is None:
        card = scorer(Path(challenge_path), Path(archive_path), config)
    else:
        card = score(Path(challenge_path), recorded[0], config=config, recording=recorded[1])
    return _checked(card)


def _checked(card: Scorecard) -> Scorecard:
    if card.infra_error:
        raise InfrastructureError(card.infra_error)
    return card


def run_job(repo: Repository, submission_id: str, *, scorer: Scorer, config: ScoreConfig,
            max_attempts: int, lease_s: float = 0.0) -> JobOutcome:  # fmt: skip
    """Score ``submission_id`` once, guarded by the database; see the module docstring. A queued
    agent run (``run_spec``) is run in the sandbox first, recorded by the engine, then scored."""

    def work(claim: Claim) -> Scorecard:
        sub = claim.submission
        kept = kept_path(sub.archive_path)
        card = _kept(kept)
        if card is not None:  # an earlier attempt finished this scoring; its save is what failed
            log.warning("submission %s: saving the scoring attempt %s kept, not scoring again",
                        sub.id, claim.attempt)  # fmt: skip
            return card
        if sub.run_spec is not None:
            from bouts.service.agent_runs import run_recorded

            card = _checked(run_recorded(Path(sub.challenge_path), Path(sub.archive_path), sub.run_spec, sub.agent,
                                         config))  # fmt: skip
        else:
            card = score_archive(scorer, sub.challenge_path, sub.archive_path, config)
        _keep(kept, card)
        return card

    def complete(claim: Claim, card: Scorecard) -> bool:
        saved = repo.submissions.complete(claim, card)
        if saved:
            kept_path(claim.submission.archive_path).unlink(missing_ok=True)
        return saved

    def spent(claim: Claim, card: Scorecard) -> Usage:
        summary = None
        if claim.submission.run_spec is not None:
            import json

            with contextlib.suppress(OSError, ValueError):
                summary = json.loads((Path(claim.submission.archive_path) / "run.json").read_text(encoding="utf-8"))
        return Usage.of(card, summary)

    return execute(repo.submissions, submission_id, work, complete, max_attempts=max_attempts,
                   lease_s=lease_s, usage=spent)  # fmt: skip


def kept_path(archive_path: str) -> Path:
    """Where a finished scoring is kept until it is saved: beside the archive, in the data dir every
    worker shares, so whichever attempt claims the job next saves it instead of scoring again."""
    from bouts.service.intake import KEPT_SUFFIX

    return Path(f"{archive_path}{KEPT_SUFFIX}")


def _keep(path: Path, card: Scorecard) -> None:
    tmp = path.with_name(f"{path.name}.{threading.get_ident()}.tmp")
    try:
        tmp.write_text(card.model_dump_json(), encoding="utf-8")
        tmp.replace(path)  # atomic: a reader sees the whole card or none
    except OSError as exc:  # the result is still saved normally; only the outage insurance is lost
        log.warning("could not keep the finished scoring at %s: %s", path, exc)
        tmp.unlink(missing_ok=True)


def _kept(path: Path) -> Scorecard | None:
    try:
        return Scorecard.model_validate_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:  # torn or unreadable: score again rather than trust it
        log.warning("ignoring the kept scoring at %s: %s", path, exc)
        return None


def _infra(store: JobStore[ClaimT], claim: ClaimT, error: str, max_attempts: int) -> JobOutcome:
    attempt = claim.attempt
    if attempt >= max_attempts:
        moved = store.fail(claim, "failed_infra", error)
        return JobOutcome("failed_infra" if moved else "stale", attempt, error)
    moved = store.release(claim, error)
    return JobOutcome("retry" if moved else "stale", attempt, error)


def retry_delay(attempt: int, base_s: float, cap_s: float = 300.0) -> float:
    """Exponential backoff: ``base``, ``2·base``, ``4·base``… capped."""
    return min(cap_s, base_s * 2 ** max(0, attempt - 1))


def score_config(settings: ServiceSettings) -> ScoreConfig:
    """How the service's workers score, from its settings: ``bouts.score_settings.configure``, the
    function ``bouts score`` and ``bouts check`` call, over the same variables (sandbox, judges, LLM
    panel, PostgreSQL variant, advisories), so a scorecard scored by the service reproduces with
    ``bouts score --reproduce``. Seats the LLM panel in this process. Raises ``InputError`` naming
    the setting when one is wrong (checked when the API or a worker starts)."""
    import os

    from bouts.score_settings import ScoreSettings, configure, parse_judges

    panel = Path(settings.llm_panel).expanduser() if settings.llm_panel else None
    shared = ScoreSettings(
        sandbox=settings.sandbox, workers=settings.score_workers, cache_dir=(settings.data_dir / "cache").resolve(),
        judges=parse_judges(settings.judges) if settings.judges else None, llm_panel=panel,
        advisories=Path(settings.advisories).expanduser() if settings.advisories else None,
        postgres_dsn=settings.postgres_dsn or None,
    )  # fmt: skip
    return configure(shared, os.environ, panel_setting="BOUTS_LLM_PANEL").config
