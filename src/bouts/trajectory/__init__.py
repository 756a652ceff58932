"""Trajectories: every harness's native log converted into the canonical events of SPEC §5.

    from bouts.trajectory import load_trajectory, parse_trajectory, classify_command

    trajectory = load_trajectory("submission/trajectory.jsonl")   # detected by content
    trajectory = parse_trajectory(text, source="trajectory.traj")  # pure: text or bytes in

Adapters live in one registry, ``adapters`` (kind "trajectory adapter"); a plugin adds one with
``@adapters.register(name)``. See docs/trajectories.md for the formats, the mapping and the rules.
"""

from __future__ import annotations

# Built-in adapters register on import, like plugins.
from bouts.trajectory import (  # noqa: F401
    _aider,
    _canonical,
    _claude_code,
    _codex,
    _gemini,
    _inspect,
    _openhands,
    _openhands_v1,
    _swe_agent,
)
from bouts.trajectory._base import EXCERPT_CHARS, Clock, ToolResult, TrajectoryAdapter, adapters, excerpt
from bouts.trajectory._classify import (
    Action,
    classify_command,
    command_segments,
    is_probe,
    is_test_command,
    program_segments,
    status_program,
)
from bouts.trajectory._events import command_events, refused_by_shell
from bouts.trajectory._inspect import sample_events as inspect_sample_events
from bouts.trajectory._load import detect_adapter, iter_trajectory, load_trajectory, parse_trajectory
from bouts.trajectory._outcomes import parse_test_counts
from bouts.trajectory._summary import TestRun, TrajectorySummary, summarize, to_jsonl

__all__ = [
    "EXCERPT_CHARS",
    "Action",
    "Clock",
    "TestRun",
    "ToolResult",
    "TrajectoryAdapter",
    "TrajectorySummary",
    "adapters",
    "classify_command",
    "command_events",
    "command_segments",
    "detect_adapter",
    "excerpt",
    "inspect_sample_events",
    "is_probe",
    "is_test_command",
    "iter_trajectory",
    "load_trajectory",
    "parse_test_counts",
    "parse_trajectory",
    "program_segments",
    "refused_by_shell",
    "status_program",
    "summarize",
    "to_jsonl",
]
