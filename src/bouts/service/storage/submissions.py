"""Submissions and their scorecards: the guarded state machine (``docs/service.md``).

Every transition is a compare-and-set ``UPDATE ... WHERE state IN (...) AND attempt = ...``, so two
workers holding the same task can never both write: only the latest claim may complete, and a
submission already scored is never claimed again. A scorecard is inserted in the same transaction
as the ``running → scored`` transition, so a reader sees either both or neither.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import Select, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from bouts.models.scorecard import Scorecard as ScorecardModel
from bouts.service.limits import storable
from bouts.service.storage import leases
from bouts.service.storage.catalog import Catalog
from bouts.service.storage.models import (
    TERMINAL_STATES,
    AgentRow,
    ChallengeRow,
    ChallengeVersionRow,
    ComponentScoreRow,
    FlagRow,
    JudgeOutputRow,
    ReviewItemRow,
    ScorecardRow,
    SubmissionRow,
    utcnow,
)
from bouts.service.storage.records import AttemptRow, Claim, StoredScorecard, SubmissionInfo
from bouts.service.storage.reviews import open_review


class DuplicateSubmissionError(Exception):
    """This agent already submitted this iteration to this challenge."""


class Submissions:
    def __init__(self, sessions: sessionmaker[Session], catalog: Catalog) -> None:
        self.sessions = sessions
        self.catalog = catalog

    def create(
        self, *, submission_id: str, challenge_version_id: int, agent: str, iteration: int,
        elapsed_s: float | None, content_hash: str, archive_path: str, submitted_by: int | None,
        place: Callable[[], None] | None = None, run_spec: dict[str, Any] | None = None,
    ) -> SubmissionInfo:
        """Insert a queued submission; ``DuplicateSubmissionError`` if the iteration exists.

        ``place`` (moving the archive to ``archive_path``) runs inside the transaction, after the
        row is written and before the commit: a reader never sees the row without its archive, and
        an archive whose commit failed is the caller's to remove (or the start-up sweep's)."""  # fmt: skip
        agent_pk = self.catalog.ensure_agent(agent)
        try:
            with self.sessions.begin() as session:
                version = session.get_one(ChallengeVersionRow, challenge_version_id)
                session.add(SubmissionRow(
                    id=submission_id, challenge_id=version.challenge_id, challenge_version_id=version.id,
                    agent_id=agent_pk, iteration=iteration, elapsed_s=elapsed_s,
                    content_hash=content_hash, archive_path=archive_path, state="queued", attempt=0,
                    submitted_by=submitted_by, run_spec=run_spec,
                ))  # fmt: skip
                session.flush()  # a duplicate iteration fails here, before the archive moves
                if place is not None:
                    place()
        except IntegrityError as exc:
            raise DuplicateSubmissionError(f"{agent} already submitted iteration {iteration}") from exc
        info = self.get(submission_id)
        assert info is not None
        return info

    def next_iteration(self, challenge: str, agent: str) -> int:
        """One past the highest iteration ``agent`` has at ``challenge`` (1 for a first attempt)."""
        query = (
            select(func.max(SubmissionRow.iteration))
            .join(ChallengeRow, ChallengeRow.id == SubmissionRow.challenge_id)
            .join(AgentRow, AgentRow.id == SubmissionRow.agent_id)
            .where(ChallengeRow.slug == challenge, AgentRow.name == agent)
        )  # fmt: skip
        with self.sessions() as session:
            return (session.scalar(query) or 0) + 1

    def get(self, submission_id: str) -> SubmissionInfo | None:
        with self.sessions() as session:
            row = session.execute(_info_query().where(SubmissionRow.id == submission_id)).first()
            return _info(*row) if row else None

    def list(self, *, agent: str | None = None, challenge: str | None = None, limit: int = 100) -> list[SubmissionInfo]:
        query = _info_query().order_by(SubmissionRow.created_at.desc()).limit(limit)
        if agent is not None:
            query = query.where(AgentRow.name == agent)
        if challenge is not None:
            query = query.where(ChallengeRow.slug == challenge)
        with self.sessions() as session:
            return [_info(*row) for row in session.execute(query)]

    def archive_paths(self, paths: Sequence[str]) -> set[str]:
        """Which of ``paths`` a submission row names (the start-up sweep keeps those)."""
        found: set[str] = set()
        with self.sessions() as session:
            for i in range(0, len(paths), 500):
                chunk = list(paths[i : i + 500])
                found.update(session.scalars(select(SubmissionRow.archive_path).where(SubmissionRow.archive_path.in_(chunk))))
        return found

    def pending(self, states: tuple[str, ...] = ("queued", "running"), older_than_s: float = 0.0) -> list[str]:
        """Ids of submissions in ``states`` (by default: not finished), oldest first."""
        cutoff = utcnow() - timedelta(seconds=older_than_s)
        with self.sessions() as session:
            return list(session.scalars(
                select(SubmissionRow.id)
                .where(SubmissionRow.state.in_(states), SubmissionRow.created_at <= cutoff)
                .order_by(SubmissionRow.created_at)
            ))  # fmt: skip

    # -- the state machine -------------------------------------------------------------------
    def claim(self, submission_id: str, *, lease_s: float = 0.0) -> Claim | None:
        """queued/running → running with a new attempt number; None if finished or missing.

        A running submission may be claimed again: its worker died and the broker redelivered the
        task. The older claim then can no longer complete (its attempt number is stale). With a
        ``lease_s``, a running one whose heartbeat is younger than the lease is not: its worker is
        alive, and this is a duplicate delivery.
        """
        with self.sessions.begin() as session:
            current = session.execute(
                select(SubmissionRow.state, SubmissionRow.attempt, SubmissionRow.heartbeat_at)
                .where(SubmissionRow.id == submission_id)
            ).first()  # fmt: skip
            if current is None or current.state in TERMINAL_STATES or leases.alive(current, lease_s):
                return None
            moved = session.execute(
                update(SubmissionRow)
                .where(SubmissionRow.id == submission_id, SubmissionRow.attempt == current.attempt,
                       SubmissionRow.state.in_(("queued", "running")))
                .values(state="running", attempt=current.attempt + 1, started_at=utcnow(), heartbeat_at=utcnow())
            )  # fmt: skip
            if moved.rowcount != 1:  # type: ignore[attr-defined]
                return None
        info = self.get(submission_id)
        assert info is not None
        return Claim(info, current.attempt + 1)

    def complete(self, claim: Claim, card: ScorecardModel) -> bool:
        """running → scored, with the scorecard, in one transaction; False if the claim is stale."""
        with self.sessions.begin() as session:
            if not self._move(session, claim, "scored", None):
                return False
            insert_scorecard(session, claim.submission.id, card, version=1, reason="scored", by="worker")
            open_review(session, card, claim.submission.id, utcnow())
        return True

    def beat(self, claim: Claim) -> bool:
        """Stamp the claim's heartbeat (``leases.beat``); False once it is superseded."""
        return leases.beat(self.sessions, SubmissionRow, claim.submission.id, claim.attempt)

    def hand_back(self, job_ids: Sequence[str], error: str) -> list[str]:
        """running → queued: nothing runs these any more (``leases.hand_back``)."""
        return leases.hand_back(self.sessions, SubmissionRow, job_ids, error)

    def expire(self, lease_s: float) -> list[str]:
        """running → queued for jobs whose heartbeat stopped (``leases.expire``)."""
        return leases.expire(self.sessions, SubmissionRow, lease_s)

    def release(self, claim: Claim, error: str) -> bool:
        """running → queued for a retry after an infrastructure failure."""
        with self.sessions.begin() as session:
            return self._move(session, claim, "queued", error)

    def fail(self, claim: Claim, state: str, error: str) -> bool:
        """running → failed_infra (retries exhausted) or rejected (the input was refused)."""
        assert state in ("failed_infra", "rejected")
        with self.sessions.begin() as session:
            return self._move(session, claim, state, error)

    def _move(self, session: Session, claim: Claim, state: str, error: str | None) -> bool:
        finished = utcnow() if state in TERMINAL_STATES else None
        moved = session.execute(
            update(SubmissionRow)
            .where(SubmissionRow.id == claim.submission.id, SubmissionRow.state == "running",
                   SubmissionRow.attempt == claim.attempt)
            .values(state=state, last_error=storable(error), finished_at=finished, heartbeat_at=None)
        )  # fmt: skip
        return moved.rowcount == 1  # type: ignore[attr-defined]

    # -- scorecards ---------------------------------------------------------------------------
    def rescore(self, submission_id: str, card: ScorecardModel, *, reason: str, by: str) -> int:
        """Add a new current scorecard version (the old ones stay, not current); its version."""
        with self.sessions.begin() as session:
            return add_version(session, submission_id, card, reason=reason, by=by).version

    def scorecard(self, submission_id: str, version: int | None = None) -> StoredScorecard | None:
        """The current scorecard (or ``version``) of a submission."""
        query = select(ScorecardRow).where(ScorecardRow.submission_id == submission_id)
        current = ScorecardRow.version == version if version else ScorecardRow.is_current.is_(True)
        query = query.where(current)
        with self.sessions() as session:
            row = session.scalar(query)
            return _stored(row) if row else None

    def scorecard_history(self, submission_id: str) -> list[StoredScorecard]:
        with self.sessions() as session:
            rows = session.scalars(
                select(ScorecardRow).where(ScorecardRow.submission_id == submission_id).order_by(ScorecardRow.version)
            )
            return [_stored(r) for r in rows]

    def current_scorecards(self, challenge: str, *, limit: int = 10_000) -> list[StoredScorecard]:
        """The current scorecard of every scored submission to ``challenge``, newest first (the
        calibration page's input)."""
        query = (
            select(ScorecardRow)
            .join(SubmissionRow, SubmissionRow.id == ScorecardRow.submission_id)
            .join(ChallengeRow, ChallengeRow.id == SubmissionRow.challenge_id)
            .where(ChallengeRow.slug == challenge, SubmissionRow.state == "scored", ScorecardRow.is_current.is_(True))
            .order_by(SubmissionRow.created_at.desc(), SubmissionRow.id)
            .limit(limit)
        )  # fmt: skip
        with self.sessions() as session:
            return [_stored(r) for r in session.scalars(query)]

    def attempts(self, challenge: str) -> list[AttemptRow]:
        """Every scored attempt at ``challenge`` (current scorecards), for the leaderboard."""
        # A review decision overrides the scorecard's final (bouts.calibration.review.current_score).
        final = func.coalesce(func.round(ReviewItemRow.decided_score), ScorecardRow.final)
        source = ScorecardRow.card["trajectory"]["source"].as_string()  # recorded / uploaded (docs/agents.md)
        provisional = ScorecardRow.card["provisional"].as_boolean()  # ranked last until re-scored (SPEC §6)
        query = (
            select(AgentRow.name, SubmissionRow.iteration, final, SubmissionRow.elapsed_s, SubmissionRow.id,
                   SubmissionRow.created_at, source, provisional)
            .join(SubmissionRow, SubmissionRow.agent_id == AgentRow.id)
            .join(ChallengeRow, ChallengeRow.id == SubmissionRow.challenge_id)
            .join(ScorecardRow, ScorecardRow.submission_id == SubmissionRow.id)
            .outerjoin(ReviewItemRow, ReviewItemRow.submission_id == SubmissionRow.id)
            .where(ChallengeRow.slug == challenge, SubmissionRow.state == "scored", ScorecardRow.is_current.is_(True),
                   ScorecardRow.final.is_not(None))
            .order_by(AgentRow.name, SubmissionRow.iteration)
        )  # fmt: skip
        with self.sessions() as session:
            return [AttemptRow(a, i, int(f), e, sid, c, s, bool(p))
                    for a, i, f, e, sid, c, s, p in session.execute(query)]  # fmt: skip

@dataclass(frozen=True)
class AddedVersion:
    """What ``add_version`` replaced and added."""

    before_version: int | None
    before_final: int | None
    version: int


def add_version(session: Session, submission_id: str, card: ScorecardModel, *, reason: str, by: str) -> AddedVersion:
    """Inside the caller's transaction: make ``card`` the current scorecard of a scored submission
    as a new version; the earlier versions stay stored, no longer current."""
    state = session.scalar(select(SubmissionRow.state).where(SubmissionRow.id == submission_id).with_for_update())
    if state != "scored":
        raise ValueError(f"submission {submission_id} is {state or 'missing'}, not scored")
    last = session.execute(
        select(ScorecardRow.version, ScorecardRow.final).where(ScorecardRow.submission_id == submission_id)
        .order_by(ScorecardRow.version.desc()).limit(1)
    ).first()  # fmt: skip
    session.execute(update(ScorecardRow).where(ScorecardRow.submission_id == submission_id).values(is_current=False))
    version = (last.version if last else 0) + 1
    insert_scorecard(session, submission_id, card, version=version, reason=reason, by=by)
    return AddedVersion(last.version if last else None, last.final if last else None, version)


def insert_scorecard(session: Session, submission_id: str, card: ScorecardModel, *, version: int, reason: str,
                     by: str) -> ScorecardRow:  # fmt: skip
    # Text the submission put in the card (file names, messages, test output) is made storable:
    # PostgreSQL refuses NUL, and a lone surrogate cannot be encoded in a JSON answer.
    row = ScorecardRow(
        submission_id=submission_id, version=version, is_current=True, final=card.final, raw=card.raw,
        band=card.band, profile=card.profile, provisional=card.provisional,
        engine_version=card.reproducibility.engine_version,
        card=storable(card.model_dump(mode="json", by_alias=True)),
        reason=reason, created_by=by,
    )  # fmt: skip
    session.add(row)
    session.flush()
    for name, comp in card.components.items():
        weight = comp.effective_weight if comp.effective_weight is not None else comp.weight
        session.add(ComponentScoreRow(scorecard_id=row.id, name=name, score=comp.score, weight=weight,
                                   points=comp.points))  # fmt: skip
        for judge in comp.judges:
            session.add(JudgeOutputRow(scorecard_id=row.id, component=name, judge=storable(judge.judge),
                                    score=judge.score, reason=storable(judge.reason),
                                    dimensions=storable(dict(judge.dimensions))))  # fmt: skip
    for flag in card.flags:
        session.add(FlagRow(submission_id=submission_id, scorecard_id=row.id, code=flag.code,
                         message=storable(flag.message),
                         level=flag.level or 1, source="scorecard"))  # fmt: skip
    return row


def _info_query() -> Select[Any]:
    final = (
        select(ScorecardRow.final)
        .where(ScorecardRow.submission_id == SubmissionRow.id, ScorecardRow.is_current.is_(True))
        .scalar_subquery()
    )  # fmt: skip
    return (
        select(SubmissionRow, ChallengeRow.slug, ChallengeVersionRow.content_hash, ChallengeVersionRow.path,
               AgentRow.name, final)
        .join(ChallengeRow, ChallengeRow.id == SubmissionRow.challenge_id)
        .join(ChallengeVersionRow, ChallengeVersionRow.id == SubmissionRow.challenge_version_id)
        .join(AgentRow, AgentRow.id == SubmissionRow.agent_id)
    )


def _info(s: SubmissionRow, slug: str, chash: str, cpath: str, agent: str, final: int | None) -> SubmissionInfo:
    return SubmissionInfo(
        id=s.id, challenge=slug, challenge_hash=chash, challenge_path=cpath, agent=agent, iteration=s.iteration,
        elapsed_s=s.elapsed_s, archive_path=s.archive_path, state=s.state, attempt=s.attempt,
        last_error=s.last_error, created_at=s.created_at, started_at=s.started_at, finished_at=s.finished_at,
        final=final, run_spec=s.run_spec,
    )  # fmt: skip


def _stored(row: ScorecardRow) -> StoredScorecard:
    return StoredScorecard(submission_id=row.submission_id, version=row.version, card=row.card, reason=row.reason,
                           created_by=row.created_by, created_at=row.created_at)  # fmt: skip
