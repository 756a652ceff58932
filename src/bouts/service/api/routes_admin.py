"""Operators' routes: API keys, flags, the review queue (``bouts.calibration.review`` transitions on
the database's ``SqlReviewStore``); plus health and whoami."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Path, Query
from fastapi.responses import JSONResponse

from bouts.calibration import review
from bouts.calibration.store import ReviewConflictError
from bouts.service import health
from bouts.service.api.deps import Caller, Ctx, Operator, ServiceContext
from bouts.service.api.params import ChallengeFilter, NameFilter, ReviewItemFilter
from bouts.service.api.schemas import (
    AgentKeyIn,
    ErrorOut,
    FlagOut,
    HealthOut,
    KeyIn,
    KeyOut,
    LiveOut,
    ReviewActionIn,
    ReviewItemOut,
    error_responses,
)
from bouts.service.errors import ConflictError
from bouts.service.storage.records import Principal
from bouts.version import __version__

router = APIRouter(prefix="/api/v1", tags=["operators"])
ERRORS = error_responses()
log = logging.getLogger(__name__)


HEALTH_ERRORS: dict[int | str, dict[str, Any]] = {503: {"model": ErrorOut, "description": "a dependency is down"}}


@router.get("/health/live", response_model=LiveOut, tags=["meta"])
def live() -> LiveOut:
    """Liveness: the process answers. Restart it only when this fails."""
    return LiveOut(status="alive", version=__version__)


@router.get("/health/ready", response_model=HealthOut, tags=["meta"], responses=HEALTH_ERRORS)
def ready(ctx: Ctx) -> HealthOut | JSONResponse:
    """Readiness: the database answers, and the broker when there is one; else 503 naming the
    dependency that is down (send no traffic here until it is back)."""
    checks = health.check(ctx.repo, ctx.dispatcher)
    down = [name for name, state in checks.items() if state not in ("ok", "n/a")]
    if down:
        log.warning("not ready: %s", checks)
        return JSONResponse({"detail": health.unavailable(down[0]), "field": down[0]}, status_code=503,  # type: ignore[arg-type]
                            headers={"Retry-After": str(health.RETRY_AFTER_S)})  # fmt: skip
    return HealthOut(status="ok", dispatcher=ctx.dispatcher.name, version=__version__, checks=checks)


@router.get("/health", response_model=HealthOut, tags=["meta"], responses=HEALTH_ERRORS)
def health_route(ctx: Ctx) -> HealthOut | JSONResponse:
    """The readiness check (kept at its first address)."""
    return ready(ctx)


@router.get("/whoami", tags=["meta"], responses=ERRORS)
def whoami(who: Caller) -> dict[str, str | None]:
    return {"role": who.role, "agent": who.agent, "key_id": who.key_id}


@router.post("/keys", response_model=KeyOut, status_code=201, responses=ERRORS)
def create_key(body: KeyIn, ctx: Ctx, who: Operator) -> KeyOut:
    """Create an API key; the plaintext is in this response only."""
    agent = body.agent if isinstance(body, AgentKeyIn) else None
    key = ctx.repo.catalog.create_key(body.role, agent, body.label)
    return KeyOut(key=key, role=body.role, agent=agent)


@router.delete("/keys/{key_id}", status_code=204, responses=ERRORS)
def revoke_key(key_id: Annotated[str, Path(pattern=r"^[0-9a-f]{16}$")], ctx: Ctx, who: Operator) -> None:
    if not ctx.repo.catalog.revoke_key(key_id):
        raise HTTPException(404, "no such active key")


@router.get("/flags", response_model=list[FlagOut], responses=ERRORS)
def list_flags(
    ctx: Ctx,
    who: Operator,
    code: NameFilter = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 500,
) -> list[FlagOut]:
    """Flags the scorecards raised (any code), oldest first."""  # fmt: skip
    return [FlagOut.of(f) for f in ctx.repo.flags.list(code=code, limit=limit)]


@router.get("/reviews", response_model=list[ReviewItemOut], responses=ERRORS)
def list_reviews(
    ctx: Ctx,
    who: Operator,
    challenge: ChallengeFilter = None,
    status: Annotated[Literal["open", "decided"] | None, Query()] = "open",
    level: Annotated[int | None, Query(ge=1, le=3)] = None,
    id: ReviewItemFilter = None,
) -> list[ReviewItemOut]:
    """The review queue (SPEC §3): items with their whole history; ``id`` picks one."""  # fmt: skip
    if id is not None:
        item = ctx.repo.reviews.get(id)
        return [ReviewItemOut.of(item)] if item else []
    return [ReviewItemOut.of(i) for i in ctx.repo.reviews.list(challenge=challenge, status=status, level=level)]


@router.post("/reviews/decisions", response_model=ReviewItemOut, responses=ERRORS | {409: {"model": ErrorOut}})
def review_decision(body: ReviewActionIn, ctx: Ctx, who: Operator) -> ReviewItemOut:
    """Escalate, decide or appeal a review item; ``expected_version`` guards against a concurrent
    decision (409: read the item again)."""
    return ReviewItemOut.of(apply_review_action(ctx, who, body))


def apply_review_action(ctx: ServiceContext, who: Principal, body: ReviewActionIn) -> review.ReviewItem:
    """The decision of ``POST /api/v1/reviews/decisions`` (and of the review page's forms)."""
    item = ctx.repo.reviews.get(body.item_id)
    if item is None:
        raise HTTPException(404, "no such review item")
    at = datetime.now(UTC)
    if body.action == "decide":
        if body.score is None:
            raise HTTPException(422, "a decision needs 'score'")
        new = review.decide(item, actor=who.name, at=at, reason=body.reason, score=body.score, outcome=body.outcome)
    elif body.action == "escalate":
        new = review.escalate(item, actor=who.name, at=at, reason=body.reason)
    else:
        new = review.appeal(item, actor=who.name, at=at, reason=body.reason)
    try:
        ctx.repo.reviews.put(new, expected_version=body.expected_version)
    except ReviewConflictError as exc:
        raise ConflictError(exc.message, field="expected_version") from None
    return new
