"""What the API sends and accepts: pydantic models, published in ``/openapi.json``."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from bouts.calibration.review import ReviewItem, current_score
from bouts.calibration.stats_report import StatsReport
from bouts.service.launch import LaunchGate, launch_gate
from bouts.service.limits import NAME_PATTERN, TEXT_PATTERN, unstorable
from bouts.service.standings import Standing
from bouts.service.storage.records import (
    ChallengeInfo,
    CheckRunInfo,
    CheckSummary,
    FlagInfo,
    RescoreInfo,
    SubmissionInfo,
)


def _text(value: str) -> str:
    why = unstorable(value)
    if why:
        raise ValueError(why)
    return value


def _name(value: str) -> str:
    why = unstorable(value, name=True)
    if why:
        raise ValueError(why)
    return value


Text = Annotated[str, Field(pattern=TEXT_PATTERN), AfterValidator(_text)]
"""Free text the service stores (a reason, a path): no NUL, valid UTF-8."""
Name = Annotated[str, Field(pattern=NAME_PATTERN), AfterValidator(_name)]
"""A name the service stores and shows (an agent, a label, an item id): no control character either."""
JobStateOut = Literal["queued", "running", "done", "failed_infra", "rejected"]
MAX_CHECK_RUNS = 10


class _Out(BaseModel):
    model_config = ConfigDict(from_attributes=True)


def error_responses(*extra: int) -> dict[int | str, dict[str, Any]]:
    """The documented error answers of a route: those every route may give (a body that is not
    JSON 400, a key 401/403, 404, a refused value 422, a rate limit 429, a dependency down 503)
    and ``extra`` ones (409, 413)."""
    return {c: {"model": ErrorOut} for c in sorted({400, 401, 403, 404, 422, 429, 503, *extra})}


class ErrorOut(BaseModel):
    detail: str
    field: str | None = None
    """The field (or file!field) to fix, when there is one."""
    request_id: str | None = None


class GateCheckOut(BaseModel):
    """A check run as the launch gate reads it (the whole run: ``/api/v1/checks/{id}``)."""

    id: str
    state: JobStateOut
    launch: bool | None
    runs: int
    anchors: bool
    requested_by: str
    created_at: datetime
    finished_at: datetime | None

    @classmethod
    def of(cls, c: CheckSummary | None) -> GateCheckOut | None:
        if c is None:
            return None
        return cls(id=c.id, state=c.state, launch=c.launch, runs=c.runs, anchors=c.anchors,  # type: ignore[arg-type]
                   requested_by=c.requested_by, created_at=c.created_at, finished_at=c.finished_at)  # fmt: skip


class ForcedOut(BaseModel):
    by: str
    at: datetime
    reason: str


class LaunchGateOut(BaseModel):
    """Whether the current version passed its launch check (docs/service.md, "Launch gate")."""

    open: bool
    """The gate lets submissions in: the latest launch check passed, or an operator forced it open."""
    state: Literal["passed", "forced", "failed", "unchecked"]
    reason: str
    check: GateCheckOut | None
    """The current version's latest launch check with a verdict (``runs`` >= 1, done)."""
    pending: GateCheckOut | None
    """Its newest check still queued or running."""
    forced: ForcedOut | None
    """Who forced the current version open, when and why (kept after a check passes)."""

    @classmethod
    def of(cls, g: LaunchGate) -> LaunchGateOut:
        forced = ForcedOut(by=g.forced.by, at=g.forced.at, reason=g.forced.reason) if g.forced else None
        return cls(open=g.open, state=g.state, reason=g.reason, check=GateCheckOut.of(g.check),
                   pending=GateCheckOut.of(g.pending), forced=forced)  # fmt: skip


class ChallengeOut(_Out):
    id: str
    title: str
    family: str
    profile: str
    active: bool
    """The operator's open/close switch (``PATCH``)."""
    open: bool
    """Accepting submissions now: ``active`` and the launch gate open."""
    launch_gate: LaunchGateOut
    content_hash: str
    versions: int
    registered_at: datetime
    reveal_hidden: Literal["after-close", "never", "always"]

    @classmethod
    def of(cls, c: ChallengeInfo) -> ChallengeOut:
        gate = launch_gate(c)
        return cls(id=c.slug, title=c.title, family=c.family, profile=c.profile, active=c.active,
                   open=c.active and gate.open, launch_gate=LaunchGateOut.of(gate),
                   content_hash=c.content_hash, versions=c.versions, registered_at=c.registered_at,
                   reveal_hidden=c.reveal_hidden)  # type: ignore[arg-type]  # fmt: skip


MIN_FORCE_REASON = 12


class ForceOpenIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: Text = Field(min_length=MIN_FORCE_REASON, max_length=10_000)
    """Why the current version takes submissions without a passing launch check, in words (two
    words and 12 characters at least, letters among them): recorded with who and when, and shown
    on the challenge page."""

    @field_validator("reason")
    @classmethod
    def _a_reason(cls, reason: str) -> str:
        text = reason.strip()
        if not text:
            raise ValueError("must say why (not only spaces)")
        if len(text) < MIN_FORCE_REASON or len(text.split()) < 2 or not any(c.isalpha() for c in text):
            raise ValueError(f"must say why in words: at least two words and {MIN_FORCE_REASON} characters")
        return text


class ChallengeIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: Text = Field(min_length=1, max_length=4096, pattern=r"^/")
    """Absolute path of the challenge directory on the server."""


class ChallengePatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    active: bool | None = None
    """Accepting submissions."""
    reveal_hidden: Literal["after-close", "never", "always"] | None = None
    """When agents and the public see hidden and pre-built adversarial tests' names and messages:
    not while the challenge is open (``after-close``, the default), ``never``, or ``always``."""


class RunOut(BaseModel):
    """The agent run a submission stands for, when the service ran and recorded it."""

    harness: str
    model: str
    """The model's name in the service's list (``GET /api/v1/agent-models``)."""


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
    run: RunOut | None = None
    """Set when the service ran the agent itself (``POST /challenges/{id}/runs``); none: an upload."""

    @classmethod
    def of(cls, s: SubmissionInfo) -> SubmissionOut:
        run = RunOut(harness=s.run_spec["harness"], model=s.run_spec["model_name"]) if s.run_spec else None
        return cls(id=s.id, challenge=s.challenge, challenge_hash=s.challenge_hash, agent=s.agent,
                   iteration=s.iteration, state=s.state, attempt=s.attempt, error=s.last_error,  # type: ignore[arg-type]
                   final=s.final, created_at=s.created_at, started_at=s.started_at, finished_at=s.finished_at,
                   scorecard_url=f"/api/v1/submissions/{s.id}/scorecard" if s.state == "scored" else None,
                   run=run)  # fmt: skip


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
    provisional: bool = False
    """The standing scorecard is provisional (the platform failed to measure a component): ranked after
    every complete standing until a re-score completes it."""

    @classmethod
    def of(cls, s: Standing) -> StandingOut:
        return cls.model_validate(s)


class LeaderboardOut(BaseModel):
    challenge: str
    order: str = "complete before provisional, final desc, iterations asc, time asc"
    standings: list[StandingOut]


class AgentKeyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    role: Literal["agent"]
    agent: Name = Field(min_length=1, max_length=200)
    """The agent the key submits as."""
    label: Name = Field("", max_length=200)


class OperatorKeyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    role: Literal["operator"]
    label: Name = Field("", max_length=200)


KeyIn = Annotated[AgentKeyIn | OperatorKeyIn, Field(discriminator="role")]


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
    item_id: Name = Field(min_length=1, max_length=400)
    action: Literal["escalate", "decide", "appeal"]
    reason: Text = Field(min_length=1, max_length=10_000)
    """Why: recorded with who and when."""
    score: float | None = Field(None, ge=0, le=100)
    """The decided score (``decide`` only)."""
    outcome: Literal["both_valid", "rubric_fixed", "judge_bug"] | None = None
    """A level-3 decision's outcome (``decide`` at level 3 only, and required there)."""
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
    status: Literal["ok"]
    dispatcher: str
    version: str
    checks: dict[str, str] = Field(default_factory=dict)
    """Each dependency: ``ok``, or ``n/a`` when none is configured (no broker on the local pool)."""


class LiveOut(BaseModel):
    status: Literal["alive"]
    version: str


class StatsOut(BaseModel):
    challenge: str
    content_hash: str
    """The challenge's current version (the scorecards may come from earlier ones too)."""
    scorecards: int
    """Current scorecards read (the newest ``limit``)."""
    attempts: int
    """Of them, the attempts the statistics count."""
    left_out: int
    """Anchor runs (agent ``anchor-<level>``) and infrastructure-failed runs, not attempts."""
    unreadable: int
    limited: int | None
    """The ``limit``, when it was reached."""
    report: StatsReport
    """What ``bouts stats CHALLENGE --json`` prints for these scorecards (``bouts.stats/1``)."""


class CheckIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    runs: int = Field(5, ge=0, le=MAX_CHECK_RUNS)
    """Reference runs, each with the published and a fresh seed; 0 skips the reference check."""
    anchors: bool = True
    """Score the low/mid/high anchors against their expected scores."""
    fresh_seeds: list[Annotated[int, Field(ge=1, le=2**31 - 1)]] = Field(default_factory=list,
                                                                         max_length=MAX_CHECK_RUNS)  # fmt: skip
    """The fresh seed of each run, to reproduce a check (at most ``runs``); default random."""

    @field_validator("fresh_seeds")
    @classmethod
    def _at_most_runs(cls, seeds: list[int], info: ValidationInfo) -> list[int]:
        runs = info.data.get("runs")
        if runs is not None and len(seeds) > runs:
            raise ValueError(f"{len(seeds)} fresh seeds for {runs} runs: give at most one per run")
        return seeds


class CheckRunOut(BaseModel):
    id: str
    challenge: str
    content_hash: str
    """The challenge version checked."""
    runs: int
    anchors: bool
    fresh_seeds: list[int]
    state: JobStateOut
    attempt: int
    error: str | None
    launch: bool | None
    """Fit to launch (no error-level problem); None until done."""
    requested_by: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    report_url: str | None

    @classmethod
    def of(cls, c: CheckRunInfo) -> CheckRunOut:
        return cls(id=c.id, challenge=c.challenge, content_hash=c.content_hash, runs=c.runs, anchors=c.anchors,
                   fresh_seeds=list(c.fresh_seeds), state=c.state, attempt=c.attempt, error=c.last_error,  # type: ignore[arg-type]
                   launch=c.launch, requested_by=c.requested_by, created_at=c.created_at, started_at=c.started_at,
                   finished_at=c.finished_at,
                   report_url=f"/api/v1/checks/{c.id}/report" if c.state == "done" else None)  # fmt: skip


class RescoreIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: Text = Field(min_length=1, max_length=10_000)
    """Why: recorded with who and when, and as the new scorecard version's reason."""
    challenge_version: Literal["current", "submitted"] = "current"
    """Score against the challenge's current version (after a fix) or the one submitted to."""


class RescoreOut(BaseModel):
    id: str
    submission_id: str
    challenge: str
    agent: str
    iteration: int
    challenge_hash: str
    """The challenge version scored against."""
    reason: str
    requested_by: str
    state: JobStateOut
    attempt: int
    error: str | None
    before_version: int | None
    before_final: int | None
    after_version: int | None
    after_final: int | None
    review_score: float | None
    """A review decision that still stands over ``after_final`` on the leaderboard."""
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    scorecard_url: str | None
    """The scorecard version this re-score added."""

    @classmethod
    def of(cls, r: RescoreInfo) -> RescoreOut:
        url = f"/api/v1/submissions/{r.submission_id}/scorecard?version={r.after_version}" if r.after_version else None
        return cls(id=r.id, submission_id=r.submission_id, challenge=r.challenge, agent=r.agent, iteration=r.iteration,
                   challenge_hash=r.content_hash, reason=r.reason, requested_by=r.requested_by,
                   state=r.state, attempt=r.attempt, error=r.last_error, before_version=r.before_version,  # type: ignore[arg-type]
                   before_final=r.before_final, after_version=r.after_version, after_final=r.after_final,
                   review_score=r.review_score, created_at=r.created_at, started_at=r.started_at,
                   finished_at=r.finished_at, scorecard_url=url)  # fmt: skip


class AgentModelOut(BaseModel):
    """A model the service can run agents with (its endpoint and key stay the operator's)."""

    name: str
    model: str
    price_in: float | None
    price_out: float | None
    step_limit: int


class AgentModelsOut(BaseModel):
    harnesses: list[str]
    models: list[AgentModelOut]
