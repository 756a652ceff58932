"""Re-scores (operators ask; a submission's agent and operators read the trail). Thin: parse, call
``bouts.service.rescoring``, enqueue, render."""

from __future__ import annotations

from fastapi import APIRouter

from bouts.service.api.deps import Ctx, Member, Operator
from bouts.service.api.params import JobId, SubmissionId
from bouts.service.api.schemas import RescoreIn, RescoreOut, error_responses
from bouts.service.errors import NotFoundError
from bouts.service.rescoring import request_rescore
from bouts.service.storage.records import Principal

router = APIRouter(prefix="/api/v1", tags=["submissions"])
RescoreId = JobId
ERRORS = error_responses(409)


@router.post("/submissions/{submission_id}/rescores", status_code=202, response_model=RescoreOut, responses=ERRORS)
def rescore(submission_id: SubmissionId, body: RescoreIn, ctx: Ctx, who: Operator) -> RescoreOut:
    """Score a scored submission again (after a challenge fix or an appeal), through the queue; the
    result becomes a new current scorecard version, the earlier ones stay. 409 while another
    re-score of it is queued or running."""
    job = request_rescore(ctx.repo, submission_id, reason=body.reason,
                          current_challenge=body.challenge_version == "current", by=who.name)  # fmt: skip
    ctx.enqueue(job.id, "rescore")
    return RescoreOut.of(job)


@router.get("/submissions/{submission_id}/rescores", response_model=list[RescoreOut], responses=ERRORS)
def rescore_trail(submission_id: SubmissionId, ctx: Ctx, who: Member) -> list[RescoreOut]:
    """A submission's re-scores, oldest first: who asked, when, why, the score before and after."""
    sub = ctx.repo.submissions.get(submission_id)
    if sub is None or (who.role == "agent" and sub.agent != who.agent):
        raise NotFoundError("no such submission", field="submission_id")
    return [RescoreOut.of(r) for r in ctx.repo.rescores.list(submission_id)]


@router.get("/rescores/{rescore_id}", response_model=RescoreOut, responses=ERRORS)
def get_rescore(rescore_id: RescoreId, ctx: Ctx, who: Member) -> RescoreOut:
    """One re-score's state (queued, running, done, failed_infra, rejected) and outcome."""
    job = ctx.repo.rescores.get(rescore_id)
    if job is None or not _may_read(job.agent, who):
        raise NotFoundError("no such re-score", field="rescore_id")
    return RescoreOut.of(job)


def _may_read(agent: str, who: Principal) -> bool:
    # Another agent's is reported missing, not forbidden: ids are not confirmed to outsiders.
    return who.role == "operator" or who.agent == agent
