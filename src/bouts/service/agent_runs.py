"""Agents the service runs itself: a recorded run is a submission whose archive the engine makes.

An agent (or an operator for it) asks for a run: a registered harness (``bouts.agents.harnesses``)
with one of the models the operator lists in ``BOUTS_AGENT_MODELS``. The request is checked now
(challenge open, launch gate, harness, model, iteration budget) and stored as a ``queued``
submission whose ``run_spec`` says what to run; its archive path is the run's directory, empty
until a worker runs it. The worker's job (``bouts.service.jobs.run_job``) runs the agent in the
sandbox with ``bouts.agents.run_agent`` — the model reached only through the engine's proxy, every
action recorded by the engine — and stores the scorecard like any other, with
``trajectory.source = "recorded"``: the leaderboard's ``?recorded=true`` view is made of these
(docs/agents.md, "On the service").

The run's directory keeps ``submission/`` (what was scored) and ``recording.json`` (who recorded
it, what the sandbox stopped), so a re-score scores the same work as recorded, never as an upload.
The model's API key is never stored: the row names the variable that holds it, read by the worker.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from bouts.errors import InfrastructureError, InputError
from bouts.models.scorecard import Recording, Scorecard
from bouts.pipeline import ScoreConfig
from bouts.service.errors import ConflictError, ForbiddenError, ServiceInputError
from bouts.service.storage import DuplicateSubmissionError, Repository
from bouts.service.storage.records import Principal, SubmissionInfo

RUNS = "runs"
"""Under the data dir: one directory per recorded run (``runs/<submission id>``)."""
RECORDING = "recording.json"
SUBMISSION = "submission"


class AgentModel(BaseModel):
    """One model agents may be run with (a ``[models.<name>]`` table of ``BOUTS_AGENT_MODELS``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str = Field(pattern=r"^https?://")
    """OpenAI-compatible API root, ending where ``/chat/completions`` starts."""
    model: str = Field(min_length=1)
    """The model id as the endpoint knows it."""
    api_key_env: str | None = Field(None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    """The NAME of the variable holding the key, in the workers' environment; none: keyless."""
    price_in: float | None = Field(None, ge=0)
    """USD per million prompt tokens (the run's cost on ``run.json``); none: cost unknown."""
    price_out: float | None = Field(None, ge=0)
    step_limit: int = Field(50, ge=1, le=1000)
    """Model calls at most per run."""


class _ModelsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    models: dict[str, AgentModel] = Field(min_length=1)


class RunSpec(BaseModel):
    """What a queued run will run (stored on the submission row; no secret in it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    harness: str
    model_name: str
    """The name the operator gave the model in ``BOUTS_AGENT_MODELS``."""
    endpoint: AgentModel


class RunRequest(BaseModel):
    """``POST /api/v1/challenges/{challenge}/runs``."""

    model_config = ConfigDict(extra="forbid")

    harness: str = Field("mini-swe-agent", min_length=1, max_length=100)
    """A registered harness (``bouts.agents.harnesses``)."""
    model: str = Field(min_length=1, max_length=100)
    """One of the models the operator lists (``GET /api/v1/agent-models``)."""
    agent: str | None = Field(None, min_length=1, max_length=200)
    """Whose run it is: an agent key runs as its own agent (leave it out); an operator names one."""
    iteration: int | None = Field(None, ge=1)
    """The attempt's number; none: the agent's next one on this challenge."""


def load_agent_models(setting: str) -> dict[str, AgentModel]:
    """The models of the ``BOUTS_AGENT_MODELS`` file (empty setting: none, runs are refused).
    Raises ``InputError`` naming the file and the field."""
    if not setting:
        return {}
    from bouts.loading import read_toml, validate

    path = Path(setting).expanduser()
    data = read_toml(path, display=str(path), error=InputError)
    return validate(_ModelsFile, data, display=str(path), error=InputError).models


def accept_run(
    repo: Repository, data_dir: Path, *, challenge: str, request: RunRequest, principal: Principal,
    models: dict[str, AgentModel],
) -> SubmissionInfo:  # fmt: skip
    """Check a run request and store it queued; the submission. Raises ``NotFoundError`` (challenge),
    ``ConflictError`` (closed, launch gate, iteration taken or past the budget),
    ``ForbiddenError`` (an agent running as another) and ``ServiceInputError`` naming the field."""
    from bouts.agents import harnesses
    from bouts.scoring.budgets import iteration_refusal
    from bouts.service.intake import iteration_budget, open_challenge

    info = open_challenge(repo, challenge)
    if request.harness not in harnesses.names():
        raise ServiceInputError(f"unknown harness '{request.harness}'; known: {', '.join(harnesses.names())}",
                                field="harness")  # fmt: skip
    if request.model not in models:
        known = ", ".join(sorted(models)) or "none (the operator has not set BOUTS_AGENT_MODELS)"
        raise ServiceInputError(f"unknown model '{request.model}'; this service runs: {known}", field="model")
    if principal.role == "agent":
        if request.agent not in (None, principal.agent):
            raise ForbiddenError(f"this key belongs to agent '{principal.agent}', not '{request.agent}'",
                                 field="agent")  # fmt: skip
        agent = principal.agent or ""
    elif request.agent is None:
        raise ServiceInputError("an operator names the agent the run is for", field="agent")
    else:
        agent = request.agent
    iteration = request.iteration or repo.submissions.next_iteration(challenge, agent)
    if why := iteration_refusal(iteration, iteration_budget(Path(info.path))):
        raise ConflictError(why, field="iteration")
    spec = RunSpec(harness=request.harness, model_name=request.model, endpoint=models[request.model])
    submission_id = uuid.uuid4().hex
    run_dir = (data_dir / RUNS / submission_id).resolve()
    try:
        return repo.submissions.create(
            submission_id=submission_id, challenge_version_id=info.version_id, agent=agent, iteration=iteration,
            elapsed_s=None, content_hash="", archive_path=str(run_dir), submitted_by=principal.key_pk,
            run_spec=spec.model_dump(mode="json"),
        )  # fmt: skip
    except DuplicateSubmissionError as exc:
        raise ConflictError(str(exc), field="iteration") from None


def run_recorded(challenge_path: Path, run_dir: Path, spec_data: dict[str, object], agent: str,
                 config: ScoreConfig) -> Scorecard:  # fmt: skip
    """Run the queued agent in the sandbox, record it, score it (a worker's job). A previous
    attempt's leftovers (its worker died) are removed first: every attempt starts from the starter."""
    from bouts.agents import ModelEndpoint, RunSettings, run_agent

    spec = RunSpec.model_validate(spec_data)
    key = None
    if spec.endpoint.api_key_env:
        key = os.environ.get(spec.endpoint.api_key_env)
        if not key:  # the operator's setting, not the agent's failure: retried, then failed_infra
            raise InfrastructureError(f"the worker's environment has no {spec.endpoint.api_key_env} "
                                      f"(the key of model '{spec.model_name}')")  # fmt: skip
    wanted = spec.endpoint
    endpoint = ModelEndpoint(base_url=wanted.base_url, model=wanted.model, api_key=key,
                             price_in_per_mtok=wanted.price_in, price_out_per_mtok=wanted.price_out)  # fmt: skip
    if run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True)
    # run_agent leaves submission/ (what it scored) and workspace/ (as the agent left it) in run_dir;
    # how it was recorded goes beside them, where a re-score finds it.
    run = run_agent(challenge_path, spec.harness, endpoint, out_dir=run_dir, config=config,
                    settings=RunSettings(step_limit=spec.endpoint.step_limit, agent=agent))  # fmt: skip
    assert run.recording is not None  # run_agent always records
    (run_dir / RECORDING).write_text(run.recording.model_dump_json(), encoding="utf-8")
    (run_dir / "run.json").write_text(json.dumps(run.summary(), indent=2), encoding="utf-8")
    return run.scorecard


def recorded_submission(archive_path: str) -> tuple[Path, Recording] | None:
    """For a stored recorded run: the submission that was scored and how it was recorded; None
    for an uploaded archive (or a run that has not finished)."""
    run_dir = Path(archive_path)
    recording = run_dir / RECORDING
    if not run_dir.is_dir() or not recording.is_file():
        return None
    return run_dir / SUBMISSION, Recording.model_validate_json(recording.read_text(encoding="utf-8"))
