"""Building canonical events from the two shapes every harness shares: a shell command with its result,
and a file tool (view/create/str_replace/…) with its result. Adapters only say which shape they saw."""

from __future__ import annotations

from bouts.models.trajectory import Event, EventKind, TestCounts
from bouts.trajectory._base import ToolResult, excerpt
from bouts.trajectory._classify import classify_command
from bouts.trajectory._outcomes import parse_test_counts

SUBMIT_MARKERS = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")
"""mini-swe-agent ends a run by echoing one of these: that command is the submission."""


def command_events(t: float, command: str, result: ToolResult | None, line: int | None) -> list[Event]:
    """Events for one shell command: file actions per the classifier, plus one ``run`` if it ran anything.

    The output excerpt goes to the run event (or the last file action when there is none); test
    counts are parsed from the FULL output before it is capped, since summaries sit at its end.
    """
    if any(marker in command for marker in SUBMIT_MARKERS):
        return [Event(t=t, kind="submit", source_line=line)]
    result = result or ToolResult()
    ok = result.ok if result.ok is not None else (None if result.exit_code is None else result.exit_code == 0)
    actions = classify_command(command)
    events: list[Event] = []
    for i, action in enumerate(actions):
        last = i == len(actions) - 1
        if action.kind == "run":
            tests: TestCounts | None = None
            if action.runs_tests:
                tests = parse_test_counts(result.output) or TestCounts(passed=0, failed=0)
            events.append(
                Event(
                    t=t,
                    kind="run",
                    command=excerpt(command),
                    exit_code=result.exit_code,
                    ok=ok,
                    tests=tests,
                    output=excerpt(result.output),
                    source_line=line,
                )
            )
        else:
            has_run = any(a.kind == "run" for a in actions)
            events.append(
                Event(
                    t=t,
                    kind=action.kind,
                    path=action.path,
                    query=action.query,
                    ok=ok,
                    output=excerpt(result.output) if last and not has_run else None,
                    source_line=line,
                )
            )
    return events


FILE_COMMANDS: dict[str, EventKind] = {
    "view": "read",
    "read": "read",
    "read_file": "read",
    "view_range": "read",
    "create": "write",
    "write": "write",
    "write_file": "write",
    "str_replace": "edit",
    "insert": "edit",
    "undo_edit": "edit",
    "edit": "edit",
    "replace": "edit",
    "delete": "delete",
}

EDIT_REJECTED = (
    "No replacement was performed",
    "did not appear verbatim",
    "Your proposed edit has introduced new syntax",
    "String to replace not found",
    "old_str` did not appear",
    "is not a valid",
    "does not exist",
    "Invalid `path`",
    "ERROR:",
    "Error:",
    "<tool_use_error>",
)
"""Phrases with which file tools (str_replace_editor, Claude Code Edit, SWE-agent edit) reject an edit."""


def rejected(output: str | None) -> bool:
    """Whether a file tool's reply says the action was refused (only its first lines are looked at)."""
    return bool(output) and any(p in output[:400] for p in EDIT_REJECTED)


def file_events(
    t: float, kind: EventKind, path: str | None, result: ToolResult | None, line: int | None
) -> list[Event]:
    """One event for a file tool call, its success read from the result when the harness gives none."""
    result = result or ToolResult()
    ok = result.ok
    if ok is None and result.output is not None and kind in {"edit", "write", "delete"}:
        ok = not rejected(result.output)
    output = excerpt(result.output) if kind in {"read", "search"} else None
    if kind == "read" and path and path.rstrip("/") != path:  # viewing a directory lists it
        kind = "search"
    return [
        Event(
            t=t,
            kind=kind,
            path=path if kind != "search" else None,
            query=path if kind == "search" else None,
            ok=ok,
            output=output,
            source_line=line,
        )
    ]


def message_event(t: float, text: str, role: str, line: int | None) -> list[Event]:
    """A message event, or nothing for empty text (tool-only turns)."""
    text = text.strip()
    if not text:
        return []
    return [Event(t=t, kind="message", text=excerpt(text), role=role, source_line=line)]  # type: ignore[arg-type]


def usage_event(t: float, tokens_in: int, tokens_out: int, line: int | None) -> list[Event]:
    if tokens_in <= 0 and tokens_out <= 0:
        return []
    return [Event(t=t, kind="usage", tokens_in=max(0, tokens_in), tokens_out=max(0, tokens_out), source_line=line)]
