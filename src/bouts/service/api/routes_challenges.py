"""Challenges (list: public; register and (de)activate: operators) and their leaderboards."""

from __future__ import annotations

import logging
from pathlib import Path as FsPath
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Response

from bouts.service.api.deps import Caller, Ctx, Operator
from bouts.service.api.params import ChallengeId
from bouts.service.api.schemas import (
    ChallengeIn,
    ChallengeOut,
    ChallengePatch,
    ForceOpenIn,
    LeaderboardOut,
    StandingOut,
    error_responses,
)
from bouts.service.challenges import register_challenge
from bouts.service.standings import standings

router = APIRouter(prefix="/api/v1", tags=["challenges"])
log = logging.getLogger(__name__)
ERRORS = error_responses()
RecordedOnly = Annotated[bool, Query(description="Only runs whose trajectory the engine recorded (docs/agents.md).")]


@router.get("/challenges", response_model=list[ChallengeOut], responses=ERRORS)
def list_challenges(ctx: Ctx, who: Caller) -> list[ChallengeOut]:
    """Every registered challenge with its current version."""
    return [ChallengeOut.of(c) for c in ctx.repo.catalog.challenges()]


@router.get("/challenges/{challenge}", response_model=ChallengeOut, responses=ERRORS)
def get_challenge(challenge: ChallengeId, ctx: Ctx, who: Caller) -> ChallengeOut:
    info = ctx.repo.catalog.challenge(challenge)
    if info is None:
        raise HTTPException(404, f"no challenge '{challenge}'")
    return ChallengeOut.of(info)


@router.post("/challenges", response_model=ChallengeOut, status_code=201,
             responses=ERRORS | {200: {"model": ChallengeOut, "description": "unchanged: already the current version"}})
def add_challenge(body: ChallengeIn, ctx: Ctx, who: Operator, response: Response) -> ChallengeOut:
    """Register (or re-register) a challenge directory on the server; a changed directory becomes a
    new current version (named by its content hash); an unchanged one answers 200."""
    info, created = register_challenge(ctx.repo, ctx.settings.data_dir, FsPath(body.path), by=who.name)
    if not created:
        response.status_code = 200
    return ChallengeOut.of(info)


@router.patch("/challenges/{challenge}", response_model=ChallengeOut, responses=ERRORS)
def patch_challenge(challenge: ChallengeId, body: ChallengePatch, ctx: Ctx, who: Operator) -> ChallengeOut:
    """Open or close a challenge to submissions; set when its hidden tests' names are shown."""
    if not ctx.repo.catalog.set_active(challenge, body.active, reveal_hidden=body.reveal_hidden):
        raise HTTPException(404, f"no challenge '{challenge}'")
    return get_challenge(challenge, ctx, who)


@router.post("/challenges/{challenge}/force-open", response_model=ChallengeOut, responses=ERRORS)
def force_open(challenge: ChallengeId, body: ForceOpenIn, ctx: Ctx, who: Operator) -> ChallengeOut:
    """Open the current version to submissions without a passing launch check (docs/service.md,
    "Launch gate"). Recorded: who (the key's label), when, and the reason, shown on the challenge
    page and in ``launch_gate.forced``; a new version of the challenge is not forced."""
    if not ctx.repo.catalog.force_open(challenge, by=who.name, reason=body.reason):
        raise HTTPException(404, f"no challenge '{challenge}'")
    log.info("challenge %s forced open by %s: %s", challenge, who.name, body.reason)
    return get_challenge(challenge, ctx, who)


@router.delete("/challenges/{challenge}/force-open", response_model=ChallengeOut, responses=ERRORS)
def withdraw_force(challenge: ChallengeId, ctx: Ctx, who: Operator) -> ChallengeOut:
    """Withdraw a force-open: the launch check decides again."""
    if not ctx.repo.catalog.force_open(challenge, by=who.name, reason=None):
        raise HTTPException(404, f"no challenge '{challenge}'")
    log.info("challenge %s: force-open withdrawn by %s", challenge, who.name)
    return get_challenge(challenge, ctx, who)


@router.get("/challenges/{challenge}/leaderboard", response_model=LeaderboardOut, responses=ERRORS)
def leaderboard(challenge: ChallengeId, ctx: Ctx, who: Caller, recorded: RecordedOnly = False) -> LeaderboardOut:
    """SPEC §4: final desc, iterations asc, time asc; each agent's score trajectory and its shape.
    ``?recorded=true``: only runs whose trajectory the engine recorded (docs/agents.md#provenance)."""
    if ctx.repo.catalog.challenge(challenge) is None:
        raise HTTPException(404, f"no challenge '{challenge}'")
    rows = standings(ctx.repo.submissions.attempts(challenge), recorded_only=recorded)
    return LeaderboardOut(challenge=challenge, standings=[StandingOut.of(s) for s in rows])
