"""Every Bouts challenge as an Inspect AI task, scored by Bouts (needs the ``agents`` extra).

    inspect eval bouts/challenge -T path=examples/inventory-ledger --model openai/<model>

or from Python, ``inspect_ai.eval(challenge("examples/inventory-ledger"), model=...)``. The sample's
input is the challenge's task; the sandbox is ``bouts`` (``bouts.agents._inspect_env``: the starter
and the visible tests, no network); the solver is Inspect's ReAct agent with ``bash``, ``python`` and
``text_editor`` unless another is given; the scorer builds the submission from the final workspace
and takes the trajectory from Inspect's own transcript, so Inspect, not the agent, recorded it. The
score's value is the scorecard's ``final``; its metadata holds the whole scorecard. docs/agents.md.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Literal

import anyio
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.log import transcript
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import Solver, TaskState
from inspect_ai.tool import Tool, ToolError, bash, python, tool
from inspect_ai.util import SandboxEnvironmentSpec, sandbox

from bouts.agents._guard import proxy_attempts
from bouts.agents._inspect_env import BoutsSandboxEnvironment
from bouts.agents._run import task_text
from bouts.agents._submit import score_recorded, write_submission
from bouts.loading import load_challenge
from bouts.models.scorecard import Recording
from bouts.models.trajectory import Trajectory
from bouts.pipeline import ScoreConfig
from bouts.trajectory import Clock
from bouts.trajectory import inspect_sample_events as sample_events

__all__ = ["BoutsSandboxEnvironment", "bouts_scorer", "challenge", "text_editor", "transcript_trajectory"]

COMMAND_TIMEOUT_S = 120


def transcript_trajectory(events: list[dict[str, Any]]) -> Trajectory:
    """Canonical events from an Inspect transcript (its events as JSON), by the Inspect log reader."""
    return Trajectory(harness="inspect-ai", events=list(sample_events({"events": events}, Clock(), 1)),
                      source="recorded by inspect-ai")  # fmt: skip


@tool(name="text_editor")
def text_editor() -> Tool:
    """View, create and edit files of the workspace (through the sandbox's file API)."""

    async def execute(
        command: Literal["view", "create", "str_replace", "insert"], path: str, file_text: str | None = None,
        old_str: str | None = None, new_str: str | None = None, insert_line: int | None = None,
    ) -> str:  # fmt: skip
        """View, create and edit files.

        Args:
          command: view, create, str_replace (old_str to new_str, once) or insert (after insert_line).
          path: The file's path, relative to the project directory.
          file_text: create: the whole content of the file.
          old_str: str_replace: the exact text to replace.
          new_str: str_replace and insert: the new text.
          insert_line: insert: the line after which new_str goes.
        """
        box = sandbox()
        try:
            if command == "create":
                await box.write_file(path, file_text or "")
                return f"created {path}"
            text = await box.read_file(path)
        except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
            raise ToolError(f"{path}: {exc}") from None
        if command == "view":
            return "\n".join(f"{n:6}\t{line}" for n, line in enumerate(text.splitlines(), start=1))
        if command == "str_replace":
            count = text.count(old_str or "") if old_str else 0
            if count != 1:
                raise ToolError(f"old_str must occur exactly once in {path}; it occurs {count} times")
            text = text.replace(old_str or "", new_str or "", 1)
        else:
            lines = text.splitlines(keepends=True)
            at = insert_line or 0
            if not 0 <= at <= len(lines):
                raise ToolError(f"insert_line must be between 0 and {len(lines)}")
            added = (new_str or "") if (new_str or "").endswith("\n") else (new_str or "") + "\n"
            text = "".join([*lines[:at], added, *lines[at:]])
        await box.write_file(path, text)
        return f"edited {path}"

    return execute


@scorer(metrics=[mean()])
def bouts_scorer(config: ScoreConfig | None = None) -> Scorer:
    """Score the sample's final workspace with Bouts; the value is ``final``, the metadata the scorecard."""

    async def score(state: TaskState, target: Target) -> Score:
        env = sandbox().as_type(BoutsSandboxEnvironment)
        box = env.box
        challenge = box.challenge
        trajectory = transcript_trajectory([e.model_dump(mode="json") for e in transcript().events])
        exploits = box.observed(proxy_attempts(env.proxy.refused()))
        recording = Recording(recorded_by="inspect-ai", harness="inspect-ai", exploits=list(exploits))

        def build_and_score() -> Any:
            with tempfile.TemporaryDirectory(prefix="bouts-inspect-") as tmp:
                workspace = box.export(Path(tmp) / "workspace")
                submission = write_submission(workspace, challenge, Path(tmp) / "submission",
                                              agent=str(state.model)[:200], trajectory=trajectory,
                                              elapsed_s=box.elapsed)  # fmt: skip
                return score_recorded(challenge, submission, recording, config or ScoreConfig())

        card = await anyio.to_thread.run_sync(build_and_score)
        return Score(
            value=card.final if card.final is not None else 0,
            answer=card.band,
            explanation=f"{card.challenge}: {card.final} ({card.band}); `bouts` shows the scorecard in metadata",
            metadata={"scorecard": card.model_dump(mode="json", by_alias=True)},
        )

    return score


@task
def challenge(
    path: str, solver: Solver | None = None, message_limit: int = 60, judges: str | None = None, generated: bool = True
) -> Task:
    """A Bouts challenge (its directory) as an Inspect task. ``judges``: comma-separated judges to
    seat (default: all); ``generated``: False skips the adversarial tests generated from the code."""
    from inspect_ai.agent import react

    loaded = load_challenge(Path(path))
    seated = None if judges is None else tuple(j for j in judges.split(",") if j and j != "none")
    config = ScoreConfig(judges=seated, adversarial_generation=None if generated else False)
    sample = Sample(id=loaded.spec.id, input=task_text(loaded, loaded.spec.tests.workdir),
                    metadata={"challenge": loaded.spec.id})  # fmt: skip
    return Task(
        dataset=[sample],
        solver=solver or react(tools=[bash(COMMAND_TIMEOUT_S), python(COMMAND_TIMEOUT_S), text_editor()]),
        scorer=bouts_scorer(config),
        sandbox=SandboxEnvironmentSpec("bouts", str(Path(path).resolve())),
        message_limit=message_limit,  # time: the sandbox refuses commands past the challenge's budget
    )
