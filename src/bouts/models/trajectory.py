"""The canonical trajectory (SPEC §5): what every harness's log is converted into.

One JSON object per line, ``{"t": seconds, "kind": ...}``. Adapters for native harness logs produce
the same ``Event`` objects, so every trajectory judge reads one format.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

EventKind = Literal["read", "edit", "write", "delete", "search", "run", "message", "usage", "submit"]
EVENT_KINDS: tuple[EventKind, ...] = ("read", "edit", "write", "delete", "search", "run", "message", "usage", "submit")
SCHEMA = "bouts.trajectory/1"


class TestCounts(BaseModel):
    """Outcome of a run that executed tests."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    __test__ = False

    passed: int = Field(ge=0)
    failed: int = Field(ge=0)


class Event(BaseModel):
    """One action of the agent. Fields beyond ``t`` and ``kind`` depend on the kind."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    t: float = Field(ge=0)
    """Seconds since the start of the attempt (0 when the log has no times)."""
    kind: EventKind
    path: str | None = None
    """read / edit / write / delete: the file acted on."""
    query: str | None = None
    """search: what was searched for."""
    command: str | None = None
    """run: the shell command."""
    exit_code: int | None = None
    """run: its exit status, when the log records one."""
    tests: TestCounts | None = None
    """run: test outcomes, when the command ran tests."""
    output: str | None = None
    """run / read: an excerpt of what the action returned (capped by adapters)."""
    ok: bool | None = None
    """Whether the action succeeded, when the log says: False for a rejected edit, a tool error or a
    non-zero exit; None when the log does not tell."""
    text: str | None = None
    """message: what the agent said."""
    role: Literal["assistant", "user", "system", "tool"] | None = None
    """message: who said it (default assistant)."""
    tokens_in: int | None = Field(None, ge=0)
    tokens_out: int | None = Field(None, ge=0)
    source_line: int | None = Field(None, ge=1)
    """Line (or record) of the native log this event came from, for evidence on the scorecard."""


class Trajectory(BaseModel):
    """A whole converted log."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_: str = Field(SCHEMA, alias="schema")
    harness: str
    """Which adapter read it: canonical, swe-agent, mini-swe-agent, claude-code, codex-cli, openhands,
    aider, inspect-ai, gemini-cli."""
    events: list[Event]
    source: str = ""
    """The file it was read from, as given."""
    truncated_line: int | None = Field(None, ge=1)
    """The line a JSONL log was cut in (its last, unparseable line), when it was: the events are those
    of the lines before it, and the scorecard carries a ``trajectory_truncated`` flag."""

    @property
    def tokens(self) -> tuple[int, int]:
        """Total (tokens_in, tokens_out) over the usage events."""
        ins = sum(e.tokens_in or 0 for e in self.events if e.kind == "usage")
        outs = sum(e.tokens_out or 0 for e in self.events if e.kind == "usage")
        return ins, outs
