"""Agents the service runs and records itself (docs/agents.md, "On the service"). Thin: parse, call
``bouts.service.agent_runs``, enqueue, render."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from bouts.service.agent_runs import RunRequest, accept_run
from bouts.service.api.deps import Ctx, Member, upload_limit
from bouts.service.api.params import ChallengeId
from bouts.service.api.schemas import AgentModelOut, AgentModelsOut, SubmissionOut, error_responses
from bouts.service.storage.records import Principal

router = APIRouter(prefix="/api/v1", tags=["runs"])
ERRORS = error_responses(409)


@router.post("/challenges/{challenge}/runs", status_code=202, response_model=SubmissionOut, responses=ERRORS)
def run(
    challenge: ChallengeId, body: RunRequest, ctx: Ctx, who: Annotated[Principal, Depends(upload_limit)]
) -> SubmissionOut:
    """Run an agent on the challenge in the sandbox: a registered harness with one of the service's
    models. The engine records every action, so the scorecard's trajectory is ``recorded`` and the
    run counts on the leaderboard's ``?recorded=true`` view. Queued now, run and scored by a
    worker: poll the submission as for an upload."""
    info = accept_run(ctx.repo, ctx.settings.data_dir, challenge=challenge, request=body, principal=who,
                      models=ctx.agent_models)  # fmt: skip
    ctx.enqueue(info.id)
    return SubmissionOut.of(info)


@router.get("/agent-models", response_model=AgentModelsOut, responses=error_responses())
def agent_models(ctx: Ctx, who: Member) -> AgentModelsOut:
    """The harnesses and models ``POST /challenges/{id}/runs`` accepts."""
    from bouts.agents import harnesses

    models = [AgentModelOut(name=name, model=m.model, price_in=m.price_in, price_out=m.price_out,
                            step_limit=m.step_limit) for name, m in sorted(ctx.agent_models.items())]  # fmt: skip
    return AgentModelsOut(harnesses=harnesses.names(), models=models)
