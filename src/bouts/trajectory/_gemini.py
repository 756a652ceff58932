"""Gemini CLI chat recordings (``~/.gemini/tmp/<project_hash>/chats/session-*.json`` and ``.jsonl``).

The CLI's ``ChatRecordingService`` writes a ``ConversationRecord``: ``sessionId``, ``projectHash``,
``startTime``, ``lastUpdated`` and ``messages``, each ``{id, timestamp, type: user|gemini|info|error|…,
content}``; a ``gemini`` message carries its ``toolCalls`` (``{id, name, args, result, status}``, the
result a list of ``functionResponse`` parts) and its ``tokens`` (``{input, output, cached, thoughts,
tool, total}``). Releases up to 0.2x rewrite one JSON document; later ones append JSONL: a header line
with the session fields, one line per message (a message is appended again, whole, as its tool calls
finish: the last copy of an id wins) and ``{"$set": {…}}`` metadata updates.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from bouts.errors import TrajectoryError
from bouts.models.trajectory import Event, EventKind
from bouts.trajectory._base import (
    Clock,
    NumberedLines,
    ToolResult,
    TrajectoryAdapter,
    adapters,
    as_text,
    json_document,
    json_lines,
)
from bouts.trajectory._events import command_events, file_events, message_event, usage_event

FILE_TOOLS: dict[str, EventKind] = {
    "read_file": "read",
    "read_many_files": "read",
    "write_file": "write",
    "replace": "edit",
    "edit": "edit",
    "smart_edit": "edit",
}
SEARCH_TOOLS = {
    "glob": "pattern",
    "search_file_content": "pattern",
    "grep": "pattern",
    "grep_search": "pattern",
    "list_directory": "path",
    "google_web_search": "query",
    "web_fetch": "prompt",
}
SHELL_TOOLS = {"run_shell_command", "shell"}
_EXIT = re.compile(r"^Exit Code: (-?\d+)", re.M)
_SESSION_KEYS = ("sessionId", "projectHash", "startTime", "lastUpdated")


def _result(call: dict[str, Any]) -> ToolResult:
    """A tool call's outcome: the text of its function responses, its exit code (shell), its status."""
    parts = call.get("result")
    texts: list[str] = []
    for part in parts if isinstance(parts, list) else [parts]:
        function = part.get("functionResponse") if isinstance(part, dict) else None
        response = function.get("response") if isinstance(function, dict) else None
        if isinstance(response, dict):
            texts.append(as_text(response.get("output", response.get("error", ""))))
        elif part is not None:
            texts.append(as_text(part))
    output = "\n".join(t for t in texts if t) or as_text(call.get("resultDisplay"))
    match = _EXIT.search(output)
    # "scheduled"/"executing" (a log cut before the call ended) says nothing; "cancelled" is the user's no
    ok = {"success": True, "error": False, "cancelled": False}.get(str(call.get("status")))
    return ToolResult(output=output or None, exit_code=int(match.group(1)) if match else None, ok=ok)


def _call_events(t: float, call: dict[str, Any], line: int) -> list[Event]:
    name = str(call.get("name") or "")
    args = call.get("args") if isinstance(call.get("args"), dict) else {}
    result = _result(call)
    if name in SHELL_TOOLS:
        if result.exit_code is not None:  # the exit code decides; "error" status is how the CLI shows it
            result = result._replace(ok=None)
        return command_events(t, str(args.get("command", "")), result, line)
    if name in FILE_TOOLS:
        paths = args.get("paths") if name == "read_many_files" else None
        if isinstance(paths, list):
            return [e for p in paths for e in file_events(t, "read", str(p), result, line)]
        path = args.get("file_path") or args.get("absolute_path") or args.get("path")
        return file_events(t, FILE_TOOLS[name], str(path) if path else None, result, line)
    if name in SEARCH_TOOLS:
        query = str(args.get(SEARCH_TOOLS[name]) or args.get("dir_path") or "")
        return [Event(t=t, kind="search", query=query, ok=result.ok, source_line=line)]
    return []  # save_memory, write_todos, MCP tools: not actions on the code


def _message_events(clock: Clock, message: dict[str, Any], line: int) -> Iterator[Event]:
    t = clock.at(message.get("timestamp"))
    kind = message.get("type")
    if kind == "user":
        yield from message_event(t, as_text(message.get("content")), "user", line)
    elif kind == "gemini":
        yield from message_event(t, as_text(message.get("content")), "assistant", line)
        for call in message.get("toolCalls") or []:
            if isinstance(call, dict):
                yield from _call_events(clock.at(call.get("timestamp") or message.get("timestamp")), call, line)
        tokens = message.get("tokens") if isinstance(message.get("tokens"), dict) else {}
        if tokens:  # input includes the cached part; thoughts are billed as output
            tin = int(tokens.get("input") or 0) + int(tokens.get("tool") or 0)
            tout = int(tokens.get("output") or 0) + int(tokens.get("thoughts") or 0)
            yield from usage_event(clock.last, tin, tout, line)


class GeminiCliAdapter(TrajectoryAdapter):
    """Gemini CLI chat recording (session JSON, or JSONL in later releases)."""

    name = "gemini-cli"
    priority = 15  # before claude-code: both have "sessionId" and "type": "user"
    line_oriented = True

    def detect(self, head: str) -> bool:
        return re.search(r'"projectHash"\s*:', head) is not None and re.search(r'"sessionId"\s*:', head) is not None

    def events(self, lines: NumberedLines) -> Iterator[Event]:
        iterator = iter(lines)
        first = next(((n, s) for n, s in iterator if s.strip()), None)
        if first is None:
            return
        _, text = first
        try:
            header = json.loads(text)
        except json.JSONDecodeError:
            header = None
        if isinstance(header, dict) and "messages" not in header:
            yield from self._jsonl(first, iterator, lines)
        else:
            yield from self._document(first, iterator)

    def _document(self, first: tuple[int, str], rest: Iterator[tuple[int, str]]) -> Iterator[Event]:
        doc = json_document(_chain(first, rest))
        messages = doc.get("messages") if isinstance(doc, dict) else None
        if not isinstance(messages, list):
            raise TrajectoryError("a Gemini CLI session needs a 'messages' list", line=1)
        clock = Clock()
        clock.at(doc.get("startTime"))
        for index, message in enumerate(messages, start=1):
            if isinstance(message, dict):
                yield from _message_events(clock, message, index)

    def _jsonl(self, first: tuple[int, str], rest: Iterator[tuple[int, str]], lines: NumberedLines) -> Iterator[Event]:
        # A message is appended again, whole, each time one of its tool calls changes state (scheduled,
        # executing, success): the last copy of an id wins, at the place of its first copy. A user
        # message opens a new turn, by which time the turn before it is final: it is released then, so
        # memory holds one turn.
        clock = Clock()
        turn: dict[str, tuple[dict[str, Any], int]] = {}
        for number, record in json_lines(_Lines(_chain(first, rest), lines)):
            if "$set" in record or ("type" not in record and any(k in record for k in _SESSION_KEYS)):
                if "startTime" in record:
                    clock.at(record["startTime"])
                continue
            message_id = str(record.get("id") or f"line-{number}")
            if record.get("type") == "user" and message_id not in turn:
                yield from self._release(clock, turn)
            turn[message_id] = (record, turn[message_id][1] if message_id in turn else number)
        yield from self._release(clock, turn)

    @staticmethod
    def _release(clock: Clock, turn: dict[str, tuple[dict[str, Any], int]]) -> Iterator[Event]:
        for record, number in turn.values():
            yield from _message_events(clock, record, number)
        turn.clear()


def _chain(first: tuple[int, str], rest: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    yield first
    yield from rest


class _Lines:
    """The remaining lines, still able to record a cut last line on the log's own ``LogLines``."""

    def __init__(self, lines: Iterator[tuple[int, str]], origin: NumberedLines) -> None:
        self._lines, self._origin = lines, origin

    def __iter__(self) -> Iterator[tuple[int, str]]:
        return self._lines

    @property
    def truncated_line(self) -> int | None:
        return getattr(self._origin, "truncated_line", None)

    @truncated_line.setter
    def truncated_line(self, value: int | None) -> None:
        self._origin.truncated_line = value  # type: ignore[attr-defined]


@adapters.register("gemini-cli")
def make_gemini_cli() -> TrajectoryAdapter:
    """Gemini CLI chat recording (session JSON, or JSONL in later releases)."""
    return GeminiCliAdapter()
