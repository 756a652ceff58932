"""The service's tables (SQLAlchemy 2). The schema is owned by the Alembic migrations in
``bouts.service.migrations``; ``tests/service/test_service_migrations.py`` keeps the two in step.

Submission states (the state machine: ``docs/service.md``)::

    queued ──claim──▶ running ──complete──▶ scored
       ▲                 │ ──infra, retries left──▶ queued
       │                 │ ──infra, no retries left──▶ failed_infra
       └──(a redelivered task re-claims a running one)
                         └──input refused while scoring──▶ rejected
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

SubmissionState = Literal["queued", "running", "scored", "failed_infra", "rejected"]
TERMINAL_STATES: frozenset[str] = frozenset({"scored", "failed_infra", "rejected"})
JobState = Literal["queued", "running", "done", "failed_infra", "rejected"]
"""States of a check run or a re-score: the submission's machine, with ``done`` for ``scored``."""
JOB_TERMINAL_STATES: frozenset[str] = frozenset({"done", "failed_infra", "rejected"})
Role = Literal["agent", "operator"]


def utcnow() -> datetime:
    return datetime.now(UTC)


class UtcDateTime(TypeDecorator[datetime]):
    """A timestamp with its time zone, read back as UTC on every database: SQLite stores none, so
    what it returns is naive, and an API answer would leave out the offset its schema promises."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_result_value(self, value: datetime | None, dialect: object) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


class Base(DeclarativeBase):
    type_annotation_map = {datetime: UtcDateTime(), dict[str, Any]: JSON}


class AgentRow(Base):
    __tablename__ = "agents"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ApiKeyRow(Base):
    """An API key: ``bk_<key_id>_<secret>``; only the scrypt hash of the secret is stored."""

    __tablename__ = "api_keys"
    id: Mapped[int] = mapped_column(primary_key=True)
    key_id: Mapped[str] = mapped_column(String(32), unique=True)
    secret_hash: Mapped[str] = mapped_column(String(256))
    role: Mapped[str] = mapped_column(String(16))
    agent_id: Mapped[int | None] = mapped_column(ForeignKey("agents.id"))
    label: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    revoked_at: Mapped[datetime | None]


class ChallengeRow(Base):
    """A challenge id (``challenge.toml`` ``id``); its content lives in versions."""

    __tablename__ = "challenges"
    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(80), unique=True)
    title: Mapped[str] = mapped_column(String(400))
    family: Mapped[str] = mapped_column(String(80))
    profile: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    """The operator's switch; submissions are accepted when it is on and the current version's launch
    gate is open (``bouts.service.launch``)."""
    reveal_hidden: Mapped[str] = mapped_column(String(16), default="after-close", server_default="after-close")
    """When agents and the public see hidden and pre-built adversarial tests' names: ``after-close``
    (not while the challenge accepts submissions), ``never`` or ``always``."""


class ChallengeVersionRow(Base):
    """An immutable snapshot of a challenge directory, named by its content hash."""

    __tablename__ = "challenge_versions"
    __table_args__ = (UniqueConstraint("challenge_id", "content_hash"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    challenge_id: Mapped[int] = mapped_column(ForeignKey("challenges.id"), index=True)
    content_hash: Mapped[str] = mapped_column(String(128))
    path: Mapped[str] = mapped_column(Text)
    """The snapshot under the data dir that workers score against."""
    source_path: Mapped[str] = mapped_column(Text)
    is_current: Mapped[bool] = mapped_column(Boolean, default=True)
    registered_at: Mapped[datetime] = mapped_column(default=utcnow)
    registered_by: Mapped[str] = mapped_column(String(200), default="")
    forced_by: Mapped[str | None] = mapped_column(String(200))
    """The operator who opened this version to submissions without a passing launch check (the
    launch gate, ``bouts.service.launch``); with ``forced_at`` and ``forced_reason``."""
    forced_at: Mapped[datetime | None]
    forced_reason: Mapped[str | None] = mapped_column(Text)


class SubmissionRow(Base):
    __tablename__ = "submissions"
    __table_args__ = (
        UniqueConstraint("challenge_id", "agent_id", "iteration"),
        Index("ix_submissions_state_created", "state", "created_at"),
    )
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    challenge_id: Mapped[int] = mapped_column(ForeignKey("challenges.id"), index=True)
    challenge_version_id: Mapped[int] = mapped_column(ForeignKey("challenge_versions.id"))
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id"), index=True)
    iteration: Mapped[int] = mapped_column(Integer)
    elapsed_s: Mapped[float | None] = mapped_column(Float)
    """Time to this submission, from ``submission.toml``."""
    content_hash: Mapped[str] = mapped_column(String(128))
    archive_path: Mapped[str] = mapped_column(Text)
    state: Mapped[str] = mapped_column(String(16), default="queued")
    attempt: Mapped[int] = mapped_column(Integer, default=0)
    """Claims so far; a completion must name the latest claim (compare-and-set)."""
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    submitted_by: Mapped[int | None] = mapped_column(ForeignKey("api_keys.id"))
    heartbeat_at: Mapped[datetime | None]
    """Stamped by the worker while it runs the job; stale past the lease: handed back to the queue."""
    run_spec: Mapped[dict[str, Any] | None]
    """A run the service records itself (``bouts.service.agent_runs.RunSpec``: harness, model,
    endpoint without its key); None for an uploaded archive. ``archive_path`` is then the run's
    directory."""


class ScorecardRow(Base):
    """One scoring of a submission. Re-scores add a version; exactly one is current."""

    __tablename__ = "scorecards"
    __table_args__ = (
        UniqueConstraint("submission_id", "version"),
        Index("ix_scorecards_current_final", "is_current", "final"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[str] = mapped_column(ForeignKey("submissions.id"), index=True)
    version: Mapped[int] = mapped_column(Integer)
    is_current: Mapped[bool] = mapped_column(Boolean, default=True)
    final: Mapped[int | None] = mapped_column(Integer)
    raw: Mapped[float | None] = mapped_column(Float)
    band: Mapped[str | None] = mapped_column(String(20))
    profile: Mapped[str] = mapped_column(String(40))
    provisional: Mapped[bool] = mapped_column(Boolean)
    engine_version: Mapped[str] = mapped_column(String(40))
    card: Mapped[dict[str, Any]]
    """The full scorecard JSON (``bouts.scorecard/1``)."""
    reason: Mapped[str] = mapped_column(Text, default="scored")
    """Why this version exists: 'scored' or a re-score's reason."""
    created_by: Mapped[str] = mapped_column(String(200), default="worker")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ComponentScoreRow(Base):
    __tablename__ = "component_scores"
    __table_args__ = (Index("ix_component_scores_name_score", "name", "score"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    scorecard_id: Mapped[int] = mapped_column(ForeignKey("scorecards.id"), index=True)
    name: Mapped[str] = mapped_column(String(40))
    score: Mapped[float | None] = mapped_column(Float)
    weight: Mapped[float | None] = mapped_column(Float)
    points: Mapped[float | None] = mapped_column(Float)


class JudgeOutputRow(Base):
    __tablename__ = "judge_outputs"
    id: Mapped[int] = mapped_column(primary_key=True)
    scorecard_id: Mapped[int] = mapped_column(ForeignKey("scorecards.id"), index=True)
    component: Mapped[str] = mapped_column(String(40))
    judge: Mapped[str] = mapped_column(String(200))
    score: Mapped[float | None] = mapped_column(Float)
    reason: Mapped[str | None] = mapped_column(Text)
    dimensions: Mapped[dict[str, Any]]


class FlagRow(Base):
    """A flag raised on a scorecard (from the scorecard, or by a statistical check)."""

    __tablename__ = "flags"
    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[str] = mapped_column(ForeignKey("submissions.id"), index=True)
    scorecard_id: Mapped[int | None] = mapped_column(ForeignKey("scorecards.id"))
    code: Mapped[str] = mapped_column(String(80), index=True)
    message: Mapped[str] = mapped_column(Text)
    level: Mapped[int] = mapped_column(Integer, default=1)
    """Current escalation level: 1 statistical flag, 2 rubric review, 3 human arbitration."""
    status: Mapped[str] = mapped_column(String(16), default="open")
    """open or resolved."""
    source: Mapped[str] = mapped_column(String(80), default="scorecard")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ReviewItemRow(Base):
    """A review item of ``bouts.calibration.review`` (the queue; SPEC §3 escalation 1→2→3).

    ``item`` is the whole ``bouts.review/1`` document; the other columns index it. ``version`` is
    the history length, compared on every write (optimistic concurrency).
    """

    __tablename__ = "review_items"
    __table_args__ = (Index("ix_review_items_queue", "status", "level"),)
    id: Mapped[str] = mapped_column(String(400), primary_key=True)
    submission_id: Mapped[str | None] = mapped_column(ForeignKey("submissions.id"), index=True)
    challenge: Mapped[str] = mapped_column(String(80), index=True)
    agent: Mapped[str] = mapped_column(String(200))
    iteration: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))
    level: Mapped[int] = mapped_column(Integer)
    version: Mapped[int] = mapped_column(Integer)
    original_score: Mapped[float | None] = mapped_column(Float)
    decided_score: Mapped[float | None] = mapped_column(Float)
    """The latest decision's score (None until decided): the leaderboard shows it over the card's."""
    item: Mapped[dict[str, Any]]
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class ReviewEventRow(Base):
    """One event of a review item's append-only history: who did what, when, why, before/after."""

    __tablename__ = "review_events"
    __table_args__ = (UniqueConstraint("item_id", "seq"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[str] = mapped_column(ForeignKey("review_items.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))
    """opened, escalated, decided or appealed."""
    actor: Mapped[str] = mapped_column(String(200))
    at: Mapped[datetime]
    reason: Mapped[str] = mapped_column(Text)
    level: Mapped[int] = mapped_column(Integer)
    score_before: Mapped[float | None] = mapped_column(Float)
    score_after: Mapped[float | None] = mapped_column(Float)


class CheckRunRow(Base):
    """A ``bouts check`` of one challenge version, run by a worker (queued → running → done).

    ``report`` is the ``bouts.check/1`` JSON exactly as ``bouts check --json`` prints it.
    """

    __tablename__ = "check_runs"
    __table_args__ = (Index("ix_check_runs_state_created", "state", "created_at"),)
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    challenge_id: Mapped[int] = mapped_column(ForeignKey("challenges.id"), index=True)
    challenge_version_id: Mapped[int] = mapped_column(ForeignKey("challenge_versions.id"))
    runs: Mapped[int] = mapped_column(Integer)
    anchors: Mapped[bool] = mapped_column(Boolean)
    fresh_seeds: Mapped[list[int]] = mapped_column(JSON)
    """The fresh seed of each reference run, when the operator fixed them (else empty: random)."""
    state: Mapped[str] = mapped_column(String(16), default="queued")
    attempt: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    launch: Mapped[bool | None] = mapped_column(Boolean)
    report: Mapped[str | None] = mapped_column(Text)
    requested_by: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    heartbeat_at: Mapped[datetime | None]


class RescoreRow(Base):
    """A re-score of a scored submission and its trail: who asked, when, why, and the score before
    and after. The scorecard it adds is a new version; the earlier versions stay stored."""

    __tablename__ = "rescores"
    __table_args__ = (Index("ix_rescores_state_created", "state", "created_at"),)
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    submission_id: Mapped[str] = mapped_column(ForeignKey("submissions.id"), index=True)
    challenge_version_id: Mapped[int] = mapped_column(ForeignKey("challenge_versions.id"))
    """The challenge version scored against (the current one, or the one submitted to)."""
    reason: Mapped[str] = mapped_column(Text)
    requested_by: Mapped[str] = mapped_column(String(200))
    state: Mapped[str] = mapped_column(String(16), default="queued")
    attempt: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    before_version: Mapped[int | None] = mapped_column(Integer)
    before_final: Mapped[int | None] = mapped_column(Integer)
    after_version: Mapped[int | None] = mapped_column(Integer)
    after_final: Mapped[int | None] = mapped_column(Integer)
    review_score: Mapped[float | None] = mapped_column(Float)
    """A review decision that still stands over the new scorecard's final (None: the final stands)."""
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    heartbeat_at: Mapped[datetime | None]
