"""Submissions: upload, status, scorecard. Thin: parse, call intake/repository, render."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, File, HTTPException, Query, UploadFile

from bouts.service.api.deps import Caller, Ctx, Member, upload_limit
from bouts.service.api.params import ChallengeFilter, ChallengeId, SubmissionId, Version
from bouts.service.api.schemas import ScorecardOut, SubmissionOut, error_responses
from bouts.service.intake import accept_submission
from bouts.service.storage.records import Principal, SubmissionInfo
from bouts.service.views import scorecard_view

router = APIRouter(prefix="/api/v1", tags=["submissions"])
ERRORS = error_responses(409, 413)


@router.post("/challenges/{challenge}/submissions", status_code=202, response_model=SubmissionOut, responses=ERRORS)
def submit(
    challenge: ChallengeId,
    ctx: Ctx,
    who: Annotated[Principal, Depends(upload_limit)],
    archive: Annotated[UploadFile, File(description="The submission: .tar.gz, .tgz, .tar or .zip (SPEC §5).")],
) -> SubmissionOut:
    """Upload a submission archive; it is validated now and scored asynchronously (poll its status)."""
    info = accept_submission(ctx.repo, ctx.settings.data_dir, challenge=challenge, upload=archive.file,
                             filename=archive.filename or "", principal=who,
                             max_bytes=ctx.settings.max_upload_bytes)  # fmt: skip
    ctx.enqueue(info.id)
    return SubmissionOut.of(info)


@router.get("/submissions", response_model=list[SubmissionOut], responses=ERRORS)
def list_submissions(
    ctx: Ctx, who: Member, challenge: ChallengeFilter = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> list[SubmissionOut]:
    """Submissions, newest first: an agent sees its own, an operator everyone's."""  # fmt: skip
    agent = who.agent if who.role == "agent" else None
    return [SubmissionOut.of(s) for s in ctx.repo.submissions.list(agent=agent, challenge=challenge, limit=limit)]


@router.get("/submissions/{submission_id}", response_model=SubmissionOut, responses=ERRORS)
def get_submission(submission_id: SubmissionId, ctx: Ctx, who: Member) -> SubmissionOut:
    """A submission's state (queued, running, scored, failed_infra, rejected): its agent or an operator."""
    return SubmissionOut.of(_own(ctx.repo.submissions.get(submission_id), who))


@router.get("/submissions/{submission_id}/scorecard", response_model=ScorecardOut, responses=ERRORS)
def get_scorecard(
    submission_id: SubmissionId, ctx: Ctx, who: Caller, version: Version = None
) -> ScorecardOut:
    """A submission's current scorecard (or ``version``); public, hidden tests' detail kept for operators."""
    stored = ctx.repo.submissions.scorecard(submission_id, version)
    if stored is None:
        raise HTTPException(404, "no scorecard (yet) for this submission")
    return ScorecardOut(submission_id=stored.submission_id, version=stored.version, reason=stored.reason,
                        created_at=stored.created_at,
                        scorecard=scorecard_view(stored.card, who, ctx.challenge_of(stored.card)))  # fmt: skip


def _own(info: SubmissionInfo | None, who: Principal) -> SubmissionInfo:
    # Another agent's submission is reported missing, not forbidden: ids are not confirmed to outsiders.
    if info is None or (who.role == "agent" and info.agent != who.agent):
        raise HTTPException(404, "no such submission")
    return info
