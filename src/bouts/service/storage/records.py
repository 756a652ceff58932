"""Plain, frozen records the repository returns: ORM objects never leave ``bouts.service.storage``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, Literal, TypeVar

PrincipalRole = Literal["public", "agent", "operator"]


@dataclass(frozen=True)
class Principal:
    """Who is calling: an API key's role and agent, or the public."""

    role: PrincipalRole
    key_id: str | None = None
    key_pk: int | None = None
    agent: str | None = None
    label: str = ""

    @property
    def name(self) -> str:
        """How this caller is named in audit columns (who registered, who reviewed)."""
        return self.label or self.agent or (f"key:{self.key_id}" if self.key_id else "public")


PUBLIC = Principal(role="public")


@dataclass(frozen=True)
class CheckSummary:
    """A check run as the launch gate reads it (``bouts.service.launch``)."""

    id: str
    state: str
    launch: bool | None
    runs: int
    anchors: bool
    requested_by: str
    created_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True)
class ForcedOpen:
    """An operator opened a challenge version without a passing launch check: who, when, why."""

    by: str
    at: datetime
    reason: str


@dataclass(frozen=True)
class ChallengeInfo:
    slug: str
    title: str
    family: str
    profile: str
    active: bool
    version_id: int
    content_hash: str
    path: str
    registered_at: datetime
    versions: int = 1
    reveal_hidden: str = "after-close"
    """When agents and the public see hidden tests' names (``bouts.service.views``)."""
    checked: CheckSummary | None = None
    """The current version's latest launch check with a verdict (done, the reference run)."""
    pending_check: CheckSummary | None = None
    """The current version's newest check still queued or running, if any."""
    forced: ForcedOpen | None = None
    """Set when an operator forced the current version open."""


@dataclass(frozen=True)
class SubmissionInfo:
    id: str
    challenge: str
    challenge_hash: str
    challenge_path: str
    agent: str
    iteration: int
    elapsed_s: float | None
    archive_path: str
    state: str
    attempt: int
    last_error: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    final: int | None = None
    run_spec: dict[str, Any] | None = None
    """What the service runs and records for this submission (``bouts.service.agent_runs``); None:
    an uploaded archive."""


@dataclass(frozen=True)
class Claim:
    """A worker's claim on a submission: the attempt number guards its completion."""

    submission: SubmissionInfo
    attempt: int


@dataclass(frozen=True)
class StoredScorecard:
    submission_id: str
    version: int
    card: dict[str, Any]
    reason: str
    created_by: str
    created_at: datetime


@dataclass(frozen=True)
class AttemptRow:
    """One scored attempt, as the leaderboard needs it."""

    agent: str
    iteration: int
    final: int
    elapsed_s: float | None
    submission_id: str
    created_at: datetime
    trajectory_source: str | None = None
    """Where the scorecard's trajectory came from: ``recorded`` (the engine ran the agent), ``uploaded``
    or ``none``; None for scorecards stored before provenance was recorded (docs/agents.md)."""
    provisional: bool = False
    """The scorecard is provisional (the platform failed to measure a component): ranked after every
    complete one until a re-score completes it (SPEC §6)."""


@dataclass(frozen=True)
class FlagInfo:
    id: int
    submission_id: str
    code: str
    message: str
    level: int
    status: str
    source: str
    created_at: datetime


@dataclass(frozen=True)
class CheckRunInfo:
    """A ``bouts check`` run of one challenge version (a background job)."""

    id: str
    challenge: str
    content_hash: str
    challenge_path: str
    runs: int
    anchors: bool
    fresh_seeds: tuple[int, ...]
    state: str
    attempt: int
    last_error: str | None
    launch: bool | None
    requested_by: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


@dataclass(frozen=True)
class RescoreInfo:
    """A re-score of a submission (a background job) and, once done, its trail entry."""

    id: str
    submission_id: str
    challenge: str
    agent: str
    iteration: int
    content_hash: str
    """The challenge version scored against."""
    challenge_path: str
    archive_path: str
    reason: str
    requested_by: str
    state: str
    attempt: int
    last_error: str | None
    before_version: int | None
    before_final: int | None
    after_version: int | None
    after_final: int | None
    review_score: float | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


JobT = TypeVar("JobT", CheckRunInfo, RescoreInfo)


@dataclass(frozen=True)
class JobClaim(Generic[JobT]):
    """A worker's claim on a check run or a re-score: the attempt number guards its completion."""

    job: JobT
    attempt: int
