"""Flags and the review queue in the database.

``SqlReviewStore`` implements ``bouts.calibration.store.ReviewStore`` (the calibration toolkit's
contract: get / put with an expected version / list), so the review workflow of
``bouts.calibration.review`` runs unchanged on the service's database: the item document is kept
whole, its indexed columns (status, level, current score) and every history event are rows. A put
is a compare-and-set on the version; the history is only ever extended.

``Flags`` stores every flag a scorecard raised (any code), for queries across scorecards.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from bouts.calibration.review import ReviewItem, Status, open_item
from bouts.calibration.store import ReviewConflictError, check_put
from bouts.models.scorecard import Scorecard
from bouts.service.storage.models import (
    AgentRow,
    ChallengeRow,
    FlagRow,
    ReviewEventRow,
    ReviewItemRow,
    SubmissionRow,
    utcnow,
)
from bouts.service.storage.records import FlagInfo


class SqlReviewStore:
    """The review queue on the service's database (``ReviewStore`` contract)."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    def get(self, item_id: str) -> ReviewItem | None:
        with self.sessions() as session:
            row = session.get(ReviewItemRow, item_id)
            return ReviewItem.model_validate(row.item) if row else None

    def list(self, *, challenge: str | None = None, status: Status | None = None,
             level: int | None = None) -> list[ReviewItem]:  # fmt: skip
        query = select(ReviewItemRow.item).order_by(ReviewItemRow.id)
        if challenge is not None:
            query = query.where(ReviewItemRow.challenge == challenge)
        if status is not None:
            query = query.where(ReviewItemRow.status == status)
        if level is not None:
            query = query.where(ReviewItemRow.level == level)
        with self.sessions() as session:
            return [ReviewItem.model_validate(doc) for doc in session.scalars(query)]

    def put(self, item: ReviewItem, *, expected_version: int | None) -> None:
        """Store ``item`` if the stored version is still ``expected_version``; else ``ReviewConflictError``."""
        try:
            with self.sessions.begin() as session:
                put_item(session, item, expected_version)
        except IntegrityError:  # a concurrent first put of the same item, or of the same event
            raise ReviewConflictError("changed while being decided; read it again", field=item.id) from None


def put_item(
    session: Session, item: ReviewItem, expected_version: int | None, submission_id: str | None = None
) -> None:
    """``SqlReviewStore.put`` inside the caller's transaction."""
    row = session.get(ReviewItemRow, item.id)
    stored = ReviewItem.model_validate(row.item) if row else None
    check_put(stored, item, expected_version)
    decided = next((e.after for e in reversed(item.history) if e.kind == "decided"), None)
    values = dict(status=item.status, level=item.level, version=item.version, decided_score=decided,
                  item=item.model_dump(mode="json", by_alias=True), updated_at=utcnow())  # fmt: skip
    if row is None:
        session.add(ReviewItemRow(id=item.id, submission_id=submission_id or _submission_of(session, item),
                                  challenge=item.challenge, agent=item.agent, iteration=item.iteration,
                                  original_score=item.original, **values))  # fmt: skip
        session.flush()
    else:
        moved = session.execute(update(ReviewItemRow).where(
            ReviewItemRow.id == item.id, ReviewItemRow.version == expected_version).values(**values))  # fmt: skip
        if moved.rowcount != 1:  # type: ignore[attr-defined]
            raise ReviewConflictError("changed while being decided; read it again", field=item.id)
    first_new = stored.version if stored else 0
    for seq, event in enumerate(item.history[first_new:], start=first_new + 1):
        session.add(ReviewEventRow(item_id=item.id, seq=seq, kind=event.kind, actor=event.actor, at=event.at,
                                   reason=event.reason, level=event.level, score_before=event.before,
                                   score_after=event.after))  # fmt: skip


def open_review(session: Session, card: Scorecard, submission_id: str, at: datetime) -> None:
    """Open the level-1 review item of a freshly stored scorecard that carries a queued flag."""
    item = open_item(card, actor="bouts service", at=at)
    if item is not None and session.get(ReviewItemRow, item.id) is None:
        put_item(session, item, None, submission_id)


def _submission_of(session: Session, item: ReviewItem) -> str | None:
    return session.scalar(
        select(SubmissionRow.id).join(ChallengeRow, ChallengeRow.id == SubmissionRow.challenge_id)
        .join(AgentRow, AgentRow.id == SubmissionRow.agent_id)
        .where(ChallengeRow.slug == item.challenge, AgentRow.name == item.agent,
               SubmissionRow.iteration == item.iteration, SubmissionRow.content_hash == item.submission_hash)
    )  # fmt: skip


class Flags:
    """Flags raised by scorecards, queryable across submissions."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    def list(self, *, code: str | None = None, submission_id: str | None = None, limit: int = 500) -> list[FlagInfo]:
        query = select(FlagRow).order_by(FlagRow.created_at, FlagRow.id).limit(limit)
        if code:
            query = query.where(FlagRow.code == code)
        if submission_id:
            query = query.where(FlagRow.submission_id == submission_id)
        with self.sessions() as session:
            return [FlagInfo(id=f.id, submission_id=f.submission_id, code=f.code, message=f.message, level=f.level,
                             status=f.status, source=f.source, created_at=f.created_at)  # fmt: skip
                    for f in session.scalars(query)]
