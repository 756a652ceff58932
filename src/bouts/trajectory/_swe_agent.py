"""SWE-agent ``.traj`` (0.x and 1.x layouts) and mini-swe-agent ``.traj.json`` (v0 list and 1.x).

SWE-agent steps are ``{action, observation, thought, state}``: the action is one of its own tools
(``open``, ``edit``, ``str_replace_editor view …``, ``find_file``, ``submit``) or a shell command. The
file an ``edit`` touches is the open file, read from the observation banner or the step's state.
mini-swe-agent keeps a chat: each assistant turn holds one bash command (a fenced block, or a tool
call in 1.1) and the next message carries ``<returncode>`` and ``<output>``.
"""

from __future__ import annotations

import re
import shlex
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
    loads_maybe,
)
from bouts.trajectory._events import FILE_COMMANDS, command_events, file_events, message_event, usage_event

_BANNER = re.compile(r"\[File: ([^\]\n]+?) \(\d+ lines total\)\]")
_SEARCHES = {"find_file", "search_dir", "search_file", "filemap"}
_VIEWS = {"open", "goto", "scroll_up", "scroll_down", "set_cursors"}  # set_cursors selects lines of the open file
_EDITS = {"edit", "insert", "append", "edit_replace", "apply_patch_windowed"}


def _open_file(step: dict[str, Any]) -> str | None:
    state = loads_maybe(step.get("state"))
    if isinstance(state, str):  # 0.x keeps the state as a JSON string, sometimes with a newline
        state = loads_maybe(state.strip())
    path = state.get("open_file") if isinstance(state, dict) else None
    return path if path and path != "n/a" else None


def _words(action: str) -> list[str]:
    first = action.strip().split("\n", 1)[0]
    try:
        return shlex.split(first)
    except ValueError:
        return first.split()


def swe_agent_step(t: float, step: dict[str, Any], current: str | None, line: int) -> tuple[list[Event], str | None]:
    """Events for one SWE-agent step, and the file open after it."""
    action = str(step.get("action") or "").strip()
    observation = str(step.get("observation") or "")
    banner = _BANNER.search(observation)
    opened = _open_file(step) or (banner.group(1) if banner else None) or current
    words = _words(action)
    if not words:
        return [], current
    tool, args = words[0], words[1:]
    result = ToolResult(output=observation)
    if tool == "submit":
        return [Event(t=t, kind="submit", source_line=line)], opened
    if tool in _SEARCHES:
        return [Event(t=t, kind="search", query=args[0] if args else "", output=None, source_line=line)], opened
    if tool in _VIEWS:
        path = args[0] if tool == "open" and args else opened
        return file_events(t, "read", path, result, line), path or opened
    if tool == "create":
        path = args[0] if args else opened
        return file_events(t, "write", path, result, line), path
    if tool in _EDITS:
        return file_events(t, "edit", (banner.group(1) if banner else None) or opened, result, line), opened
    if tool == "str_replace_editor" and len(args) >= 2:
        kind: EventKind = FILE_COMMANDS.get(args[0], "edit")
        return file_events(t, kind, args[1], result, line), args[1] if kind != "delete" else opened
    return command_events(t, action, result, line), opened


class SweAgentAdapter(TrajectoryAdapter):
    """SWE-agent .traj (0.x and 1.x layouts, incl. function calling)."""

    name = "swe-agent"
    priority = 30

    def detect(self, head: str) -> bool:
        if not head.lstrip().startswith("{") or '"action"' not in head:
            return False
        steps = re.search(r'"trajectory"\s*:\s*\[', head) is not None and '"observation"' in head
        # a 1.x demonstration keeps only its chat: {"history": [… "message_type": "action" …]}
        history = re.search(r'"history"\s*:\s*\[', head) is not None and '"message_type"' in head
        return steps or history

    def events(self, lines: NumberedLines) -> Iterator[Event]:
        doc = json_document(lines)
        chat_only = isinstance(doc, dict) and not isinstance(doc.get("trajectory"), list)
        if chat_only and isinstance(doc.get("history"), list):
            doc = {**doc, "trajectory": _history_steps(doc["history"])}
        if not isinstance(doc, dict) or not isinstance(doc.get("trajectory"), list):
            raise_shape("a SWE-agent .traj needs a 'trajectory' list")
        t, current = 0.0, None
        steps: list[dict[str, Any]] = doc["trajectory"]
        for index, step in enumerate(steps, start=1):
            yield from message_event(t, str(step.get("thought") or ""), "assistant", index)
            events, current = swe_agent_step(t, step, current, index)
            yield from events
            t += float(step.get("execution_time") or 0.0)
        stats = (doc.get("info") or {}).get("model_stats") or {}
        yield from usage_event(
            t, int(stats.get("tokens_sent") or 0), int(stats.get("tokens_received") or 0), len(steps) or None
        )


def _history_steps(history: list[Any]) -> list[dict[str, Any]]:
    """Steps rebuilt from a chat-only .traj: each assistant ``action`` message with the observation after it."""
    steps: list[dict[str, Any]] = []
    for message in history:
        if not isinstance(message, dict):
            continue
        if message.get("message_type") == "action" and message.get("role") == "assistant":
            steps.append({"action": message.get("action") or "", "thought": message.get("thought") or ""})
        elif message.get("message_type") == "observation" and steps and "observation" not in steps[-1]:
            steps[-1]["observation"] = as_text(message.get("content"))
    return steps


def raise_shape(message: str) -> None:
    raise TrajectoryError(message, line=1)


_FENCE = re.compile(r"```([\w.+-]*)[ \t]*\n(.*?)\n```", re.S)
"""One fenced block: its language tag and body. Blocks are read one after another, so the fence that
closes a ```python block is never taken as the opening of another."""
_SHELL_FENCES = {"mswea_bash_command", "bash", "sh", "shell"}


def _shell_blocks(content: str) -> list[re.Match[str]]:
    """The blocks mini-swe-agent would run: those tagged bash/sh/shell (or ``mswea_bash_command``, v2);
    a log whose replies tag no block runs its untagged ones. Blocks in other languages (the model quoting
    code it wrote or read) are text."""
    blocks = list(_FENCE.finditer(content))
    tagged = [b for b in blocks if b.group(1).lower() in _SHELL_FENCES]
    return tagged or [b for b in blocks if not b.group(1)]


_RETURN = re.compile(r"<returncode>(-?\d+)</returncode>\s*(?:<output>\n?(.*?)</output>)?", re.S)


_KILLED = re.compile(r"^The last command <command>.*?</command> timed out and has been killed", re.S)


def _mini_result(message: dict[str, Any]) -> ToolResult:
    extra = message.get("extra") if isinstance(message.get("extra"), dict) else {}
    content = as_text(message.get("content"))
    match = _RETURN.search(content)
    code = extra.get("returncode")
    if code is None and match:
        code = int(match.group(1))
    output = extra.get("raw_output")
    if output is None:
        output = match.group(2) if match and match.group(2) is not None else content
    if code is None and _KILLED.search(content):  # the harness killed it: it failed, with no exit status
        return ToolResult(output=str(output), ok=False)
    return ToolResult(output=str(output), exit_code=code if isinstance(code, int) else None)


def _call_command(call: dict[str, Any]) -> str:
    args = loads_maybe((call.get("function") or {}).get("arguments"))
    return str(args.get("command", "")) if isinstance(args, dict) else str(args or "")


class MiniSweAgentAdapter(TrajectoryAdapter):
    """mini-swe-agent .traj.json (v0 bare message list and 1.x with info/messages)."""

    name = "mini-swe-agent"
    priority = 30

    def detect(self, head: str) -> bool:
        start = head.lstrip()[:1]
        if start == "{":
            return re.search(r'"messages"\s*:\s*\[', head) is not None and (
                "mini_version" in head or "mini-swe-agent" in head or "<returncode>" in head
            )
        return start == "[" and '"role"' in head and ("<returncode>" in head or "mswea_bash_command" in head)

    def events(self, lines: NumberedLines) -> Iterator[Event]:
        doc = json_document(lines)
        messages = doc.get("messages") if isinstance(doc, dict) else doc
        if not isinstance(messages, list):
            raise_shape("a mini-swe-agent trajectory needs a list of messages")
        clock = Clock()
        results = {
            m.get("tool_call_id"): _mini_result(m) for m in messages if isinstance(m, dict) and m.get("role") == "tool"
        }
        for index, message in enumerate(messages):
            if not isinstance(message, dict) or message.get("role") != "assistant":
                continue
            number = index + 1
            extra = message.get("extra") if isinstance(message.get("extra"), dict) else {}
            response = extra.get("response") if isinstance(extra.get("response"), dict) else {}
            t = clock.at(extra.get("timestamp") or response.get("created"))  # 1.x: the reply's creation time
            content = as_text(message.get("content"))
            shell = _shell_blocks(content)
            text = content
            for block in reversed(shell):
                text = text[: block.start()] + text[block.end() :]
            yield from message_event(t, text, "assistant", number)
            actions = extra.get("actions") or []
            if not actions:
                calls = loads_maybe(message.get("tool_calls")) or []
                actions = [
                    {"command": _call_command(c), "tool_call_id": c.get("id")} for c in calls if isinstance(c, dict)
                ]
            if actions:
                for act in actions:
                    result = results.get(act.get("tool_call_id"))
                    yield from command_events(t, str(act.get("command", "")), result, number)
            elif len(shell) == 1:  # several actions in one reply: refused ("EXACTLY ONE action"), none ran
                following = messages[index + 1] if index + 1 < len(messages) else None
                result = _mini_result(following) if isinstance(following, dict) else None
                yield from command_events(t, shell[0].group(2), result, number)
            usage = (extra.get("response") or {}).get("usage") or {}
            yield from usage_event(
                t, int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0), number
            )


@adapters.register("swe-agent")
def make_swe_agent() -> TrajectoryAdapter:
    """SWE-agent .traj (0.x and 1.x layouts, incl. function calling)."""
    return SweAgentAdapter()


@adapters.register("mini-swe-agent")
def make_mini_swe_agent() -> TrajectoryAdapter:
    """mini-swe-agent .traj.json (v0 bare message list and 1.x)."""
    return MiniSweAgentAdapter()
