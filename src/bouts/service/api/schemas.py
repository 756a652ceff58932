"""What the API sends and accepts: pydantic models, published in ``/openapi.json``."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bouts.calibration.review import ReviewItem, current_score
from bouts.service.standings import Standing
from bouts.service.storage.records import ChallengeInfo, FlagInfo, SubmissionInfo


class _Out(BaseModel):
    model_config = ConfigDict(from_attributes=True)


class ErrorOut(BaseModel):
    detail: str
    field: str | None = None
    """The field (or file!field) to fix, when there is one."""
    request_id: str | None = None


class ChallengeOut(_Out):
    id: str
    title: str
    family: str
    profile: str
    active: bool
    content_hash: str
    versions: int
    registered_at: datetime

    @classmethod
    def of(cls, c: ChallengeInfo) -> ChallengeOut:
        return cls(id=c.slug, title=c.title, family=c.family, profile=c.profile, active=c.active,
                   content_hash=c.content_hash, versions=c.versions, registered_at=c.registered_at)  # fmt: skip


class ChallengeIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str = Field(min_length=1, max_length=4096)
    """Absolute path of the challenge directory on the server."""


class ChallengePatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    active: bool


class SubmissionOut(_Out):
    id: str
    challenge: str
    challenge_hash: str
    agent: str
    iteration: int
    state: Literal["queued", "running", "scored", "failed_infra", "rejected"]
    attempt: int
    error: str | None
    final: int | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    scorecard_url: str | None

    @classmethod
    def of(cls, s: SubmissionInfo) -> SubmissionOut:
        return cls(id=s.id, challenge=s.challenge, challenge_hash=s.challenge_hash, agent=s.agent,
                   iteration=s.iteration, state=s.state, attempt=s.attempt, error=s.last_error,  # type: ignore[arg-type]
                   final=s.final, created_at=s.created_at, started_at=s.started_at, finished_at=s.finished_at,
                   scorecard_url=f"/api/v1/submissions/{s.id}/scorecard" if s.state == "scored" else None)  # fmt: skip


class ScorecardOut(BaseModel):
    submission_id: str
    version: int
    reason: str
    created_at: datetime
    scorecard: dict[str, Any]
    """The scorecard (``bouts.scorecard/1``) as the caller's role may see it."""


class StandingOut(_Out):
    rank: int
    agent: str
    final: int
    iterations: int
    time_s: float | None
    history: list[int]
    trajectory: str
    shape: Literal["one-shot", "monotonic", "regression", "last-jump"]
    submission_id: str

    @classmethod
    def of(cls, s: Standing) -> StandingOut:
        return cls.model_validate(s)


class LeaderboardOut(BaseModel):
    challenge: str
    order: str = "final desc, iterations asc, time asc"
    standings: list[StandingOut]


class KeyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    role: Literal["agent", "operator"]
    agent: str | None = Field(None, min_length=1, max_length=200)
    label: str = Field("", max_length=200)


class KeyOut(BaseModel):
    key: str
    """Shown once: only its hash is stored."""
    role: str
    agent: str | None


class FlagOut(_Out):
    id: int
    submission_id: str
    code: str
    message: str
    level: int
    status: str
    source: str
    created_at: datetime

    @classmethod
    def of(cls, f: FlagInfo) -> FlagOut:
        return cls.model_validate(f)


class ReviewActionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    item_id: str = Field(min_length=1, max_length=400)
    action: Literal["escalate", "decide", "appeal"]
    reason: str = Field(min_length=1, max_length=10_000)
    """Why: recorded with who and when."""
    score: float | None = Field(None, ge=0, le=100)
    """The decided score (``decide`` only)."""
    expected_version: int = Field(ge=1)
    """The item's version (history length) the decision was made on."""


class ReviewItemOut(BaseModel):
    id: str
    challenge: str
    agent: str
    iteration: int
    status: str
    level: int
    version: int
    original: float | None
    current: float | None
    item: dict[str, Any]
    """The whole ``bouts.review/1`` item, history included."""

    @classmethod
    def of(cls, item: ReviewItem) -> ReviewItemOut:
        return cls(id=item.id, challenge=item.challenge, agent=item.agent, iteration=item.iteration,
                   status=item.status, level=item.level, version=item.version, original=item.original,
                   current=current_score(item), item=item.model_dump(mode="json", by_alias=True))  # fmt: skip


class HealthOut(BaseModel):
    status: str
    dispatcher: str
    version: str
