"""Claude Code session JSONL (``~/.claude/projects/<project>/<session>.jsonl``).

Each line is a user or assistant record; an assistant message is written as one line PER CONTENT
BLOCK (text, tool_use, …), every line repeating the message's usage, so usage is counted once per
``message.id`` (the largest values seen: the last block carries the final output count). Tool results
arrive in later user lines as ``tool_result`` blocks matched by ``tool_use_id``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from bouts.models.trajectory import Event, EventKind
from bouts.trajectory._base import Clock, NumberedLines, Pending, ToolResult, TrajectoryAdapter, adapters, as_text
from bouts.trajectory._base import json_lines as _json_lines
from bouts.trajectory._events import command_events, file_events, message_event, usage_event

FILE_TOOLS: dict[str, EventKind] = {
    "Read": "read",
    "NotebookRead": "read",
    "Write": "write",
    "Edit": "edit",
    "MultiEdit": "edit",
    "NotebookEdit": "edit",
}
SEARCH_TOOLS = {"Glob": "pattern", "Grep": "pattern", "LS": "path", "WebSearch": "query", "WebFetch": "url"}
_EXIT = re.compile(r"^Exit code (\d+)")


def _result(block: dict[str, Any]) -> ToolResult:
    output = as_text(block.get("content"))
    match = _EXIT.match(output)
    is_error = bool(block.get("is_error"))
    return ToolResult(output=output, exit_code=int(match.group(1)) if match else None, ok=not is_error)


def _tool_events(t: float, name: str, args: dict[str, Any], line: int):  # noqa: ANN202 - returns a Builder
    if name == "Bash":
        return lambda r: command_events(t, str(args.get("command", "")), r, line)
    if name in FILE_TOOLS:
        path = args.get("file_path") or args.get("notebook_path") or args.get("path")
        return lambda r: file_events(t, FILE_TOOLS[name], path, r, line)
    if name in SEARCH_TOOLS:
        query = str(args.get(SEARCH_TOOLS[name]) or "")
        return lambda r: [Event(t=t, kind="search", query=query, ok=None if r is None else r.ok, source_line=line)]
    return None  # TodoWrite, Task, ExitPlanMode, …: planning, not actions on the code


class ClaudeCodeAdapter(TrajectoryAdapter):
    """Claude Code session JSONL."""

    name = "claude-code"
    priority = 20
    line_oriented = True

    def detect(self, head: str) -> bool:
        first = next((line.strip() for line in head.splitlines() if line.strip()), "")
        return (
            first.startswith('{"')  # one record per line: a pretty-printed document (Gemini CLI) is not this
            and re.search(r'"sessionId"\s*:', head) is not None
            and re.search(r'"type"\s*:\s*"(user|assistant|summary|queue-operation)"', head) is not None
            and re.search(r'"(parentUuid|leafUuid)"\s*:', head) is not None  # its records chain by uuid
        )

    def events(self, lines: NumberedLines) -> Iterator[Event]:
        clock, pending = Clock(), Pending()
        usage: dict[str, list[Any]] = {}  # message id -> [tokens_in, tokens_out, t, line], still open
        counted: dict[str, tuple[int, int]] = {}  # message id -> (tokens_in, tokens_out) already emitted
        current: str | None = None

        def settle(message_id: str | None) -> None:
            if message_id and message_id in usage:
                tin, tout, t0, line0 = usage.pop(message_id)
                done_in, done_out = counted.get(message_id, (0, 0))
                counted[message_id] = (max(tin, done_in), max(tout, done_out))
                pending.ready(usage_event(t0, max(0, tin - done_in), max(0, tout - done_out), line0))

        for number, record in _json_lines(lines):
            kind = record.get("type")
            message = record.get("message") if isinstance(record.get("message"), dict) else {}
            t = clock.at(record.get("timestamp"))
            if kind == "assistant":
                message_id = message.get("id") or record.get("uuid")
                if message_id != current:
                    settle(current)
                    current = message_id
                raw = message.get("usage") or {}
                if message_id and raw:
                    # Streamed lines repeat the message id with growing usage: the final one counts.
                    # A message seen again after others (2.x interleaves) adds only what grew since.
                    tin = sum(
                        int(raw.get(k) or 0)
                        for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
                    )
                    seen = usage.setdefault(message_id, [0, 0, t, number])
                    seen[0], seen[1] = max(seen[0], tin), max(seen[1], int(raw.get("output_tokens") or 0))
                for block in message.get("content") or []:
                    if not isinstance(block, dict):
                        continue
                    if block.get("type") == "text":
                        pending.ready(message_event(t, str(block.get("text", "")), "assistant", number))
                    elif block.get("type") == "tool_use":
                        builder = _tool_events(t, str(block.get("name")), block.get("input") or {}, number)
                        if builder is not None:
                            pending.call(builder, str(block.get("id")))
            elif kind == "user":
                content = message.get("content")
                if isinstance(content, str) and not record.get("isMeta"):
                    pending.ready(message_event(t, content, "user", number))
                for block in content if isinstance(content, list) else []:
                    if isinstance(block, dict) and block.get("type") == "tool_result":
                        pending.result(str(block.get("tool_use_id")), _result(block))
                    elif isinstance(block, dict) and block.get("type") == "text" and not record.get("isMeta"):
                        pending.ready(message_event(t, str(block.get("text", "")), "user", number))
            yield from pending.release()
        settle(current)
        for message_id in list(usage):
            settle(message_id)
        yield from pending.flush()


@adapters.register("claude-code")
def make_claude_code() -> TrajectoryAdapter:
    """Claude Code session JSONL."""
    return ClaudeCodeAdapter()
