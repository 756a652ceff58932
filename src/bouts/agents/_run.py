"""``run_agent``: one agent on one challenge, recorded by the engine and scored (``bouts run``).

The harness (registered in :data:`harnesses`) drives a model; every action it takes goes through
the engine's tool layer (:class:`~bouts.agents._session.AgentSandbox`), and every model call through
the engine's proxy (:class:`~bouts.agents._proxy.ModelProxy`). The trajectory is what those two
saw, not what the harness says it did. See docs/agents.md.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from bouts.agents._guard import proxy_attempts
from bouts.agents._harness import HarnessModel, RunSettings
from bouts.agents._models import AgentRun, ModelEndpoint, ModelReply
from bouts.agents._proxy import ModelProxy
from bouts.agents._session import AgentSandbox
from bouts.agents._submit import score_recorded, write_submission
from bouts.loading import load_challenge
from bouts.models.challenge import Challenge
from bouts.models.scorecard import Recording
from bouts.models.trajectory import Event, Trajectory
from bouts.pipeline import ScoreConfig
from bouts.registry import Registry
from bouts.sandbox import get_sandbox
from bouts.trajectory import excerpt

DEFAULT_TIME_S = 1800.0
"""The run's wall budget when the challenge sets none (``[budgets] time_s``)."""
_FENCE = re.compile(r"```[a-z_]*\s*\n.*?\n```", re.S)


class Harness(Protocol):
    """An agent harness: runs a model against a task, acting only through ``box``."""

    name: str

    def run(self, box: AgentSandbox, task: str, model: HarnessModel, settings: RunSettings) -> str:
        """Work until done or out of budget; return how it ended (e.g. ``Submitted``)."""
        ...


harnesses = Registry[Harness]("agent harness")
"""Harness name → factory (kind "agent harness"); a plugin adds one with ``@harnesses.register``."""


@harnesses.register("mini-swe-agent")
def _mini_swe_agent() -> Harness:
    """mini-swe-agent: a small agent that works through one shell command per step."""
    from bouts.agents._mini import MiniSweAgent

    return MiniSweAgent()


def task_text(challenge: Challenge, workdir: str) -> str:
    """The task an agent is given: the challenge's title and description, and where things go."""
    wanted = ", ".join(f"deliverables/{d.path}" for d in challenge.spec.deliverables) or "none"
    return (
        f"{challenge.spec.title}\n\n{challenge.spec.description.strip()}\n\n"
        f"The project is in {workdir} (the current directory); its visible tests are in tests/visible/. "
        f"Written deliverables to leave: {wanted}."
    )


def model_events(replies: Sequence[ModelReply], start: float) -> list[Event]:
    """A message (the reply's words, its command block left to the tool layer) and a usage event per
    model reply the proxy counted."""
    events: list[Event] = []
    for reply in replies:
        t = max(0.0, round(reply.t - start, 3))
        text = _FENCE.sub("", reply.text).strip()
        if text:
            events.append(Event(t=t, kind="message", text=excerpt(text), role="assistant"))
        if reply.tokens_in or reply.tokens_out:
            events.append(Event(t=t, kind="usage", tokens_in=reply.tokens_in, tokens_out=reply.tokens_out))
    return events


def recorded_trajectory(
    actions: Sequence[Event], replies: Sequence[ModelReply], start: float, harness: str
) -> Trajectory:
    """The tool layer's events and the proxy's, in time order (a reply before the actions it asked for)."""
    said = model_events(replies, start)
    merged = sorted([*said, *actions], key=lambda e: (e.t, e.kind not in ("message", "usage")))
    events = [e.model_copy(update={"source_line": i}) for i, e in enumerate(merged, start=1)]
    return Trajectory(harness=harness, events=events, source="recorded by bouts")


def run_agent(
    challenge_path: Path, harness: str, endpoint: ModelEndpoint, *, out_dir: Path,
    settings: RunSettings = RunSettings(), config: ScoreConfig | None = None,
) -> AgentRun:  # fmt: skip
    """Run ``harness`` with ``endpoint``'s model on the challenge, record it, score it.

    The submission (code, deliverables, the recorded ``trajectory.jsonl``) is left in
    ``out_dir/submission``. Raises ``InputError`` for an unknown harness or a malformed challenge and
    ``SandboxError`` when the agent's sandbox cannot start or breaks.
    """
    challenge = load_challenge(challenge_path)
    agent = harnesses.create(harness)
    config = config or ScoreConfig()
    sandbox = get_sandbox(config.sandbox)
    time_s = settings.time_s or challenge.spec.budgets.time_s or DEFAULT_TIME_S
    with tempfile.TemporaryDirectory(prefix="bouts-proxy-") as sock_dir, ModelProxy(endpoint, Path(sock_dir)) as proxy:
        with AgentSandbox(challenge, sandbox=sandbox, timeout_s=time_s, proxy_socket=proxy.socket_path,
                          command_timeout_s=settings.command_timeout_s) as box:  # fmt: skip
            start = box.started_at
            budget = replace(settings, time_s=time_s)
            status = agent.run(box, task_text(challenge, box.workdir), HarnessModel(proxy.url, endpoint.model), budget)
            elapsed = box.elapsed
            workspace = box.export(out_dir / "workspace")
            actions = list(box.events)
            exploits = box.observed(proxy_attempts(proxy.refused()))
        usage = proxy.usage()
        replies = proxy.replies()
    trajectory = recorded_trajectory(actions, replies, start, agent.name)
    name = settings.agent or f"{agent.name}/{endpoint.model}"
    submission = write_submission(workspace, challenge, out_dir / "submission", agent=name[:200],
                                  trajectory=trajectory, elapsed_s=elapsed)  # fmt: skip
    recording = Recording(recorded_by="bouts", harness=agent.name, exploits=list(exploits))
    card = score_recorded(challenge, submission, recording, config)
    return AgentRun(scorecard=card, trajectory=trajectory, submission=submission, usage=usage,
                    exploits=exploits, exit_status=status, recording=recording)  # fmt: skip
