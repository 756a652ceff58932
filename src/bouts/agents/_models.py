"""The typed values that cross the agents package's boundaries."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bouts.models.results import ObservedExploit
from bouts.models.scorecard import Recording, Scorecard
from bouts.models.trajectory import Trajectory


class ModelEndpoint(BaseModel):
    """The OpenAI-compatible endpoint an agent's model is served from (typed, passed down: the CLI
    reads the environment, nothing here does)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str = Field(pattern=r"^https?://")
    """Base URL of the API, ending where ``/chat/completions`` starts (e.g. ``https://host/v1``)."""
    model: str = Field(min_length=1)
    """Model id as the endpoint knows it."""
    api_key: str | None = Field(None, repr=False)
    """Sent by the proxy only: never enters the sandbox."""
    price_in_per_mtok: float | None = Field(None, ge=0)
    """USD per million prompt tokens, to put a cost on the run; None: the cost is not known."""
    price_out_per_mtok: float | None = Field(None, ge=0)
    """USD per million completion tokens."""
    timeout_s: float = Field(300.0, gt=0)

    def cost(self, tokens_in: int, tokens_out: int) -> float | None:
        """USD for these tokens at the configured prices; None when no price is configured."""
        if self.price_in_per_mtok is None and self.price_out_per_mtok is None:
            return None
        return round(
            (tokens_in * (self.price_in_per_mtok or 0.0) + tokens_out * (self.price_out_per_mtok or 0.0)) / 1e6, 6
        )


@dataclass(frozen=True)
class ModelReply:
    """One model reply that went through the proxy."""

    t: float
    """When it arrived (``time.monotonic()``)."""
    text: str
    tokens_in: int
    tokens_out: int


@dataclass(frozen=True)
class Usage:
    """What the model proxy counted for one run."""

    requests: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = None


@dataclass(frozen=True)
class FileChange:
    """A file the engine saw change in the workspace after an action (workspace-relative path)."""

    path: str
    kind: Literal["write", "edit", "delete"]


@dataclass(frozen=True)
class ExecResult:
    """How one command ended in the agent's sandbox."""

    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool = False
    changes: tuple[FileChange, ...] = ()


@dataclass(frozen=True)
class AgentRun:
    """One recorded run of an agent on a challenge, scored."""

    scorecard: Scorecard
    trajectory: Trajectory
    """What the engine recorded (also written as ``trajectory.jsonl`` in the submission)."""
    submission: Path
    """The submission directory built from the final workspace."""
    usage: Usage
    exploits: tuple[ObservedExploit, ...] = ()
    """Attempts the sandbox stopped (another host, a write outside the workspace)."""
    exit_status: str = ""
    """How the harness said it ended (``Submitted``, ``LimitsExceeded``, …)."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    recording: Recording | None = None
    """Who recorded the run and what its sandbox stopped, as handed to ``score(...)``: what a
    re-score of ``submission`` needs to score it as recorded again."""

    def summary(self) -> dict[str, object]:
        """``run.json``: how it ended, the model calls the proxy counted, what was stopped."""
        usage = self.usage
        return {
            "exit_status": self.exit_status,
            "usage": {"requests": usage.requests, "tokens_in": usage.tokens_in, "tokens_out": usage.tokens_out,
                      "cost_usd": usage.cost_usd},  # fmt: skip
            "stopped": [e.model_dump() for e in self.exploits],
            "events": len(self.trajectory.events),
        }
