"""Run agents on Bouts challenges with trajectories the engine records itself.

    from bouts.agents import ModelEndpoint, run_agent

    run = run_agent(Path("examples/inventory-ledger"), "mini-swe-agent",
                    ModelEndpoint(base_url="https://host/v1", model="some-model"), out_dir=Path("run"))
    run.scorecard.trajectory.source   # "recorded"

Two paths (docs/agents.md): ``bouts run`` drives a registered harness (:data:`harnesses`, e.g.
mini-swe-agent) through the engine's tool layer; ``bouts.agents.inspect`` makes every challenge an
Inspect AI task whose scorer is Bouts. Both run the agent in the sandbox, reach the model only
through the engine's proxy, and score with ``trajectory.source = "recorded"``.
"""

from __future__ import annotations

from bouts.agents._guard import command_attempts, outside
from bouts.agents._models import AgentRun, ExecResult, FileChange, ModelEndpoint, ModelReply, Usage
from bouts.agents._proxy import ModelProxy
from bouts.agents._run import Harness, HarnessModel, RunSettings, harnesses, recorded_trajectory, run_agent, task_text
from bouts.agents._session import AgentSandbox
from bouts.agents._submit import score_recorded, write_submission

__all__ = [
    "AgentRun", "AgentSandbox", "ExecResult", "FileChange", "Harness", "HarnessModel", "ModelEndpoint",
    "ModelProxy", "ModelReply", "RunSettings", "Usage", "command_attempts", "harnesses", "outside",
    "recorded_trajectory", "run_agent", "score_recorded", "task_text", "write_submission",
]  # fmt: skip
