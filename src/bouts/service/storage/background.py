"""Background jobs besides scoring a submission: check runs (``bouts check`` on a challenge version)
and re-scores of a scored submission. Both follow the submissions' guarded state machine::

    queued ──claim──▶ running ──complete──▶ done
       ▲                 │ ──infra, retries left──▶ queued
       │                 │ ──infra, no retries left──▶ failed_infra
       └──(redelivered)  └──input refused while scoring──▶ rejected

Every transition is a compare-and-set on (state, attempt), so a stale worker writes nothing. A
re-score's new scorecard version lands in the same transaction as its ``running → done``, and the
row keeps the trail: who asked, when, why, the version and final before and after.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any, Generic

from sqlalchemy import Select, select, update
from sqlalchemy.orm import Session, defer, sessionmaker

from bouts.models.scorecard import Scorecard as ScorecardModel
from bouts.service.limits import storable
from bouts.service.storage import leases
from bouts.service.storage.models import (
    JOB_TERMINAL_STATES,
    AgentRow,
    ChallengeRow,
    ChallengeVersionRow,
    CheckRunRow,
    RescoreRow,
    ReviewItemRow,
    SubmissionRow,
    utcnow,
)
from bouts.service.storage.records import ChallengeInfo, CheckRunInfo, JobClaim, JobT, RescoreInfo
from bouts.service.storage.reviews import open_review
from bouts.service.storage.submissions import add_version

ACTIVE = ("queued", "running")


class _JobRows(Generic[JobT]):
    """The state machine shared by check runs and re-scores; subclasses say how to read a row."""

    model: type[CheckRunRow] | type[RescoreRow]

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    def _query(self) -> Select[Any]:
        raise NotImplementedError

    def _info(self, row: Any) -> JobT:
        raise NotImplementedError

    def get(self, job_id: str) -> JobT | None:
        with self.sessions() as session:
            row = session.execute(self._query().where(self.model.id == job_id)).first()
            return self._info(row) if row else None

    def pending(self, states: Sequence[str] = ACTIVE, older_than_s: float = 0.0) -> list[str]:
        """Ids of jobs in ``states`` (by default: not finished), oldest first."""
        cutoff = utcnow() - timedelta(seconds=older_than_s)
        with self.sessions() as session:
            return list(session.scalars(
                select(self.model.id).where(self.model.state.in_(states), self.model.created_at <= cutoff)
                .order_by(self.model.created_at)
            ))  # fmt: skip

    def claim(self, job_id: str, *, lease_s: float = 0.0) -> JobClaim[JobT] | None:
        """queued/running → running with a new attempt number; None if finished or missing (a
        running job is claimed again when its worker died and the task was redelivered)."""
        with self.sessions.begin() as session:
            current = session.execute(
                select(self.model.state, self.model.attempt, self.model.heartbeat_at).where(self.model.id == job_id)
            ).first()
            if current is None or current.state in JOB_TERMINAL_STATES or leases.alive(current, lease_s):
                return None
            moved = session.execute(
                update(self.model)
                .where(self.model.id == job_id, self.model.attempt == current.attempt, self.model.state.in_(ACTIVE))
                .values(state="running", attempt=current.attempt + 1, started_at=utcnow(), heartbeat_at=utcnow())
            )  # fmt: skip
            if moved.rowcount != 1:  # type: ignore[attr-defined]
                return None
        info = self.get(job_id)
        assert info is not None
        return JobClaim(info, current.attempt + 1)

    def beat(self, claim: JobClaim[JobT]) -> bool:
        """Stamp the claim's heartbeat (``leases.beat``); False once it is superseded."""
        return leases.beat(self.sessions, self.model, claim.job.id, claim.attempt)

    def hand_back(self, job_ids: Sequence[str], error: str) -> list[str]:
        """running → queued: nothing runs these any more (``leases.hand_back``)."""
        return leases.hand_back(self.sessions, self.model, job_ids, error)

    def expire(self, lease_s: float) -> list[str]:
        """running → queued for jobs whose heartbeat stopped (``leases.expire``)."""
        return leases.expire(self.sessions, self.model, lease_s)

    def release(self, claim: JobClaim[JobT], error: str) -> bool:
        """running → queued for a retry after an infrastructure failure."""
        with self.sessions.begin() as session:
            return self._move(session, claim, "queued", error)

    def fail(self, claim: JobClaim[JobT], state: str, error: str) -> bool:
        """running → failed_infra (retries exhausted) or rejected (the input was refused)."""
        assert state in ("failed_infra", "rejected")
        with self.sessions.begin() as session:
            return self._move(session, claim, state, error)

    def _move(self, session: Session, claim: JobClaim[JobT], state: str, error: str | None, **values: object) -> bool:
        finished = utcnow() if state in JOB_TERMINAL_STATES else None
        moved = session.execute(
            update(self.model)
            .where(self.model.id == claim.job.id, self.model.state == "running", self.model.attempt == claim.attempt)
            .values(state=state, last_error=storable(error), finished_at=finished, heartbeat_at=None, **values)
        )  # fmt: skip
        return moved.rowcount == 1  # type: ignore[attr-defined]


class CheckRuns(_JobRows[CheckRunInfo]):
    """``bouts check`` runs, each on the challenge version that was current when it was asked for."""

    model = CheckRunRow

    def create(self, check_id: str, challenge: ChallengeInfo, *, runs: int, anchors: bool,
               fresh_seeds: Sequence[int], by: str) -> CheckRunInfo:  # fmt: skip
        with self.sessions.begin() as session:
            version = session.get_one(ChallengeVersionRow, challenge.version_id)
            session.add(CheckRunRow(id=check_id, challenge_id=version.challenge_id, challenge_version_id=version.id,
                                 runs=runs, anchors=anchors, fresh_seeds=list(fresh_seeds), state="queued", attempt=0,
                                 requested_by=by))  # fmt: skip
        info = self.get(check_id)
        assert info is not None
        return info

    def active(self, challenge: ChallengeInfo, *, runs: int, anchors: bool,
               fresh_seeds: Sequence[int]) -> CheckRunInfo | None:  # fmt: skip
        """A queued or running check of this version with these settings (asking twice runs it once)."""
        query = self._query().where(CheckRunRow.challenge_version_id == challenge.version_id,
                                    CheckRunRow.state.in_(ACTIVE), CheckRunRow.runs == runs,
                                    CheckRunRow.anchors == anchors)
        with self.sessions() as session:
            rows = [self._info(r) for r in session.execute(query.order_by(CheckRunRow.created_at))]  # fmt: skip
        return next((r for r in rows if r.fresh_seeds == tuple(fresh_seeds)), None)

    def list(self, challenge: str, *, limit: int = 100) -> list[CheckRunInfo]:
        """The checks of ``challenge`` (every version), newest first."""
        query = self._query().where(ChallengeRow.slug == challenge).order_by(CheckRunRow.created_at.desc()).limit(limit)
        with self.sessions() as session:
            return [self._info(r) for r in session.execute(query)]

    def report(self, check_id: str) -> str | None:
        """The stored ``bouts.check/1`` JSON of a finished check."""
        with self.sessions() as session:
            return session.scalar(select(CheckRunRow.report).where(CheckRunRow.id == check_id))

    def complete(self, claim: JobClaim[CheckRunInfo], report: str, launch: bool) -> bool:
        """running → done with the report; False if the claim is stale."""
        with self.sessions.begin() as session:
            return self._move(session, claim, "done", None, report=report, launch=launch)

    def _query(self) -> Select[Any]:
        return (
            select(CheckRunRow, ChallengeRow.slug, ChallengeVersionRow.content_hash, ChallengeVersionRow.path)
            .join(ChallengeRow, ChallengeRow.id == CheckRunRow.challenge_id)
            .join(ChallengeVersionRow, ChallengeVersionRow.id == CheckRunRow.challenge_version_id)
            .options(defer(CheckRunRow.report))  # read only by ``report()``
        )

    def _info(self, row: Any) -> CheckRunInfo:
        c, slug, chash, path = row
        return CheckRunInfo(
            id=c.id, challenge=slug, content_hash=chash, challenge_path=path, runs=c.runs, anchors=c.anchors,
            fresh_seeds=tuple(c.fresh_seeds or ()), state=c.state, attempt=c.attempt, last_error=c.last_error,
            launch=c.launch, requested_by=c.requested_by, created_at=c.created_at, started_at=c.started_at,
            finished_at=c.finished_at,
        )  # fmt: skip


class Rescores(_JobRows[RescoreInfo]):
    """Re-scores of scored submissions; a done one is an entry of the submission's trail."""

    model = RescoreRow

    def create(self, rescore_id: str, submission_id: str, *, reason: str, by: str, current: bool) -> RescoreInfo:
        """Queue a re-score against the challenge's current version (``current``) or the version the
        submission was made to."""
        with self.sessions.begin() as session:
            sub = session.get_one(SubmissionRow, submission_id)
            version_id = sub.challenge_version_id
            if current:
                version_id = session.scalars(select(ChallengeVersionRow.id).where(
                    ChallengeVersionRow.challenge_id == sub.challenge_id, ChallengeVersionRow.is_current.is_(True))
                ).first() or version_id  # fmt: skip
            session.add(RescoreRow(id=rescore_id, submission_id=submission_id, challenge_version_id=version_id,
                                reason=reason, requested_by=by, state="queued", attempt=0))  # fmt: skip
        info = self.get(rescore_id)
        assert info is not None
        return info

    def active(self, submission_id: str) -> RescoreInfo | None:
        """The queued or running re-score of a submission, if any."""
        query = self._query().where(RescoreRow.submission_id == submission_id, RescoreRow.state.in_(ACTIVE))
        with self.sessions() as session:
            row = session.execute(query.limit(1)).first()
            return self._info(row) if row else None

    def list(self, submission_id: str) -> list[RescoreInfo]:
        """A submission's re-scores, oldest first: its trail."""
        query = (self._query().where(RescoreRow.submission_id == submission_id)
                 .order_by(RescoreRow.created_at, RescoreRow.id))
        with self.sessions() as session:
            return [self._info(r) for r in session.execute(query)]

    def complete(self, claim: JobClaim[RescoreInfo], card: ScorecardModel) -> bool:
        """running → done, adding ``card`` as the submission's current scorecard version, in one
        transaction; False if the claim is stale (nothing is written)."""
        job = claim.job
        with self.sessions.begin() as session:
            if not self._move(session, claim, "done", None):
                return False
            added = add_version(session, job.submission_id, card, reason=job.reason, by=job.requested_by)
            open_review(session, card, job.submission_id, utcnow())
            decided = session.scalar(
                select(ReviewItemRow.decided_score).where(ReviewItemRow.submission_id == job.submission_id)
            )
            session.execute(update(RescoreRow).where(RescoreRow.id == job.id).values(
                before_version=added.before_version, before_final=added.before_final, after_version=added.version,
                after_final=card.final, review_score=decided,
            ))  # fmt: skip
        return True

    def _query(self) -> Select[Any]:
        return (
            select(RescoreRow, SubmissionRow, ChallengeRow.slug, AgentRow.name, ChallengeVersionRow.content_hash,
                   ChallengeVersionRow.path)
            .join(SubmissionRow, SubmissionRow.id == RescoreRow.submission_id)
            .join(ChallengeRow, ChallengeRow.id == SubmissionRow.challenge_id)
            .join(AgentRow, AgentRow.id == SubmissionRow.agent_id)
            .join(ChallengeVersionRow, ChallengeVersionRow.id == RescoreRow.challenge_version_id)
        )  # fmt: skip

    def _info(self, row: Any) -> RescoreInfo:
        r, sub, slug, agent, chash, path = row
        return RescoreInfo(
            id=r.id, submission_id=r.submission_id, challenge=slug, agent=agent, iteration=sub.iteration,
            content_hash=chash, challenge_path=path, archive_path=sub.archive_path, reason=r.reason,
            requested_by=r.requested_by, state=r.state, attempt=r.attempt, last_error=r.last_error,
            before_version=r.before_version, before_final=r.before_final, after_version=r.after_version,
            after_final=r.after_final, review_score=r.review_score, created_at=r.created_at,
            started_at=r.started_at, finished_at=r.finished_at,
        )  # fmt: skip
