"""Calibration (docs/calibration.md) on the service's data: ``bouts stats`` over a challenge's stored
scorecards (anyone, as the calibration page), and ``bouts check`` on a registered challenge as a
background job (operators). Thin: parse, call ``bouts.service.calibration``, render."""

from __future__ import annotations

import logging
from typing import Annotated

from fastapi import APIRouter, Query, Response

from bouts.calibration import CheckReport
from bouts.service.api.deps import Caller, Ctx, Operator
from bouts.service.api.params import ChallengeId, JobId
from bouts.service.api.schemas import CheckIn, CheckRunOut, StatsOut, error_responses
from bouts.service.calibration import challenge_stats, request_check
from bouts.service.errors import NotFoundError
from bouts.service.storage.records import ChallengeInfo

router = APIRouter(prefix="/api/v1", tags=["calibration"])
log = logging.getLogger(__name__)
CheckId = JobId
ERRORS = error_responses()
STATS_LIMIT = 2000
"""Scorecards read by default (the newest), as the calibration page."""


def _challenge(ctx: Ctx, challenge: str) -> ChallengeInfo:
    info = ctx.repo.catalog.challenge(challenge)
    if info is None:
        raise NotFoundError(f"no challenge '{challenge}'", field="challenge")
    return info


@router.get("/challenges/{challenge}/stats", response_model=StatsOut, responses=ERRORS)
def stats(
    challenge: ChallengeId, ctx: Ctx, who: Caller, limit: Annotated[int, Query(ge=1, le=10_000)] = STATS_LIMIT
) -> StatsOut:
    """``bouts stats`` over the current scorecard of every scored submission: distributions,
    discrimination, Pearson correlations, panel reliability, and from 50 attempts the findings
    (``cheating_suspected`` when objective vs integrity r < -0.5, weight suggestions)."""
    info = _challenge(ctx, challenge)
    stored = ctx.repo.submissions.current_scorecards(challenge, limit=limit)
    report, picked = challenge_stats(info, stored)
    return StatsOut(challenge=info.slug, content_hash=info.content_hash, scorecards=len(stored),
                    attempts=len(picked.runs), left_out=len(picked.cards) - len(picked.runs),
                    unreadable=picked.unreadable, limited=limit if len(stored) >= limit else None,
                    report=report)  # fmt: skip


@router.post("/challenges/{challenge}/checks", status_code=202, response_model=CheckRunOut,
             responses=ERRORS | {200: {"model": CheckRunOut, "description": "the same check, already queued/running"}})
def start_check(challenge: ChallengeId, body: CheckIn, ctx: Ctx, who: Operator, response: Response) -> CheckRunOut:
    """Run ``bouts check`` on the challenge's current version in the background (the reference
    through the sandbox, the anchors through ``score()``); poll ``/checks/{id}``. The same check
    already queued or running is answered with 200 instead of being run twice."""
    info = _challenge(ctx, challenge)
    check, created = request_check(ctx.repo, info, runs=body.runs, anchors=body.anchors,
                                   fresh_seeds=body.fresh_seeds, by=who.name)  # fmt: skip
    if not created:
        response.status_code = 200
    ctx.enqueue(check.id, "check")
    return CheckRunOut.of(check)


@router.get("/challenges/{challenge}/checks", response_model=list[CheckRunOut], responses=ERRORS)
def list_checks(
    challenge: ChallengeId, ctx: Ctx, who: Operator, limit: Annotated[int, Query(ge=1, le=500)] = 100
) -> list[CheckRunOut]:
    """The challenge's checks (every version), newest first."""
    _challenge(ctx, challenge)
    return [CheckRunOut.of(c) for c in ctx.repo.checks.list(challenge, limit=limit)]


@router.get("/checks/{check_id}", response_model=CheckRunOut, responses=ERRORS)
def get_check(check_id: CheckId, ctx: Ctx, who: Operator) -> CheckRunOut:
    """A check's state (queued, running, done, failed_infra) and, once done, whether it may launch."""
    check = ctx.repo.checks.get(check_id)
    if check is None:
        raise NotFoundError("no such check", field="check_id")
    return CheckRunOut.of(check)


@router.get("/checks/{check_id}/report", response_model=CheckReport, responses=ERRORS)
def check_report(check_id: CheckId, ctx: Ctx, who: Operator) -> Response:
    """The finished check's report: the ``bouts.check/1`` JSON that ``bouts check --json`` prints."""
    check = ctx.repo.checks.get(check_id)
    if check is None:
        raise NotFoundError("no such check", field="check_id")
    report = ctx.repo.checks.report(check_id) if check.state == "done" else None
    if report is None:
        raise NotFoundError(f"no report: the check is {check.state}", field="check_id")
    return Response(content=report, media_type="application/json")
