"""OpenAI Codex CLI: session rollout JSONL (``~/.codex/sessions/…/rollout-*.jsonl``) and the
``codex exec --json`` event stream.

Rollouts wrap OpenAI Responses items (``function_call`` ``shell`` with an argv, ``custom_tool_call``
``apply_patch``, ``function_call_output`` matched by ``call_id``) and ``event_msg`` records. Older
rollouts write the items bare. Under unified exec (0.5x+, ``exec_command``) a command still running when
its first output is written ("Process running with session ID N") finishes later: in the output of a
``write_stdin`` poll of session N ("Process exited with code C"), or in an ``exec_command_end`` event
(``exit_code``, ``aggregated_output``); the command is held until then and given that status.

Both formats report tokens as RUNNING TOTALS (``token_count`` / ``turn.completed``), so each usage event is
the difference from the previous total, never the total itself: summing them gives the final total, as it
should.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from typing import Any

from bouts.models.trajectory import Event
from bouts.trajectory._base import (
    Clock,
    NumberedLines,
    Pending,
    ToolResult,
    TrajectoryAdapter,
    adapters,
    as_text,
    json_lines,
    loads_maybe,
)
from bouts.trajectory._events import command_events, message_event, usage_event

_ITEM_TYPES = {
    "message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "reasoning",
}
SHELL_TOOLS = {"shell", "shell_command", "container.exec", "exec_command", "local_shell"}
"""Codex's shell tools by era: ``shell`` (argv list, ≤0.4x), ``shell_command`` (one command string, 0.5x+),
``exec_command`` (unified exec, ``cmd``), ``local_shell`` (a ``local_shell_call`` item)."""
_PLAIN_OUTPUT = re.compile(
    r"^Exit code: (-?\d+)\n(?:Wall time: [^\n]*\n)?(?:Total output lines: \d+\n)?Output:\n", re.S
)
# unified exec (exec_command / write_stdin): "Chunk ID: …\nWall time: …\nProcess exited with code 0\n
# Original token count: …\nOutput:\n…"; a process still running says "Process running with session ID N"
_EXEC_OUTPUT = re.compile(
    r"^(?:Chunk ID: [^\n]*\n)?(?:Wall time: [^\n]*\n)?"
    r"(?:Process exited with code (-?\d+)|Process running with session ID (\d+))\n"
    r"(?:Original token count: \d+\n)?(?:Total output lines: \d+\n)?Output:\n?",
    re.S,
)


def _command(args: Any) -> str:
    """A shell call's argv as one command line, unwrapping ``bash -lc '<script>'``."""
    argv = (args.get("command") or args.get("cmd")) if isinstance(args, dict) else args
    if isinstance(argv, str):
        return argv
    if not isinstance(argv, list) or not argv:
        return ""
    words = [str(w) for w in argv]
    if len(words) >= 3 and words[0].rsplit("/", 1)[-1] in {"bash", "sh", "zsh"} and words[1] in {"-lc", "-c"}:
        return words[2]
    if words[0] in {"apply_patch", "applypatch"} and len(words) == 2:
        return f"apply_patch <<'PATCH'\n{words[1]}\nPATCH"
    return shlex.join(words)


def _exec_status(raw: Any) -> tuple[bool, str | None]:
    """Whether an output is a unified-exec chunk, and the session id if it says the process still runs."""
    match = _EXEC_OUTPUT.match(as_text(loads_maybe(raw)))
    return match is not None, match.group(2) if match else None


class _Sessions:
    """Unified-exec commands still running after their first output, finished by a later poll or event.

    ``exec_command`` returns after ``yield_time_ms``; a process not done by then keeps running as a
    session the agent polls with ``write_stdin`` (each poll's output is the next chunk, the last one says
    "Process exited with code C"). Codex ≥0.12x also writes ``exec_command_end`` with the exit code and the
    whole output, before or after the outputs. The command's result is its chunks joined and that code.
    """

    def __init__(self, pending: Pending) -> None:
        self.pending = pending
        self.awaiting: set[str] = set()  # shell calls with no output yet
        self.ended: dict[str, ToolResult] = {}  # exec_command_end seen before the call's output
        self.running: dict[str, tuple[str, list[str]]] = {}  # session id -> (call id, chunks so far)
        self.polls: dict[str, str] = {}  # write_stdin call id -> session id

    def output(self, call_id: str, raw: Any) -> None:
        self.awaiting.discard(call_id)
        result, (chunk, session) = _output(raw), _exec_status(raw)
        if call_id in self.polls:
            held = self.running.get(self.polls.pop(call_id))
            if held is not None and chunk:  # not a refused poll ("write_stdin failed: stdin is closed …")
                held[1].append(result.output or "")
                if session is None and result.exit_code is not None:
                    self._finish(held[0], ToolResult(output="".join(held[1]), exit_code=result.exit_code))
            return
        ended = self.ended.pop(call_id, None)
        if session is not None and ended is None:
            self.running[session] = (call_id, [result.output or ""])
            return
        self.pending.result(call_id, ended if ended is not None and result.exit_code is None else result)

    def end(self, payload: dict[str, Any]) -> None:
        """An ``exec_command_end`` event: the final status of a held (or not yet answered) command."""
        call_id, code = str(payload.get("call_id")), payload.get("exit_code")
        text = payload.get("aggregated_output")
        if text is None:
            text = as_text(payload.get("stdout")) + as_text(payload.get("stderr"))
        result = ToolResult(output=as_text(text), exit_code=code if isinstance(code, int) else None)
        if call_id in self.awaiting:
            self.ended[call_id] = result
        elif any(held[0] == call_id for held in self.running.values()):
            self._finish(call_id, result)

    def _finish(self, call_id: str, result: ToolResult) -> None:
        self.running = {s: held for s, held in self.running.items() if held[0] != call_id}
        self.pending.result(call_id, result)

    def close(self) -> None:
        """At the end of the log a command still running has its output so far and no status."""
        for call_id, chunks in list(self.running.values()):
            self.pending.result(call_id, ToolResult(output="".join(chunks)))
        self.running.clear()


def _output(raw: Any) -> ToolResult:
    """``function_call_output.output``: JSON ``{output, metadata.exit_code}`` or plain text."""
    decoded = loads_maybe(raw)
    if isinstance(decoded, dict):
        meta = decoded.get("metadata") or {}
        code = meta.get("exit_code")
        return ToolResult(output=as_text(decoded.get("output")), exit_code=code if isinstance(code, int) else None)
    text = as_text(decoded)
    match = _PLAIN_OUTPUT.match(text) or _EXEC_OUTPUT.match(text)
    if match:
        code = match.group(1)
        return ToolResult(output=text[match.end() :], exit_code=int(code) if code is not None else None)
    return ToolResult(output=text)


class _Totals:
    """Turns running token totals into per-step deltas (a total that drops means a new session)."""

    def __init__(self) -> None:
        self.tokens_in = self.tokens_out = 0

    def delta(self, t: float, tokens_in: int, tokens_out: int, line: int) -> list[Event]:
        if tokens_in < self.tokens_in or tokens_out < self.tokens_out:
            self.tokens_in = self.tokens_out = 0
        d_in, d_out = tokens_in - self.tokens_in, tokens_out - self.tokens_out
        self.tokens_in, self.tokens_out = tokens_in, tokens_out
        return usage_event(t, d_in, d_out, line)


class CodexRolloutAdapter(TrajectoryAdapter):
    """OpenAI Codex CLI session rollout JSONL."""

    name = "codex-cli"
    priority = 20
    line_oriented = True

    def detect(self, head: str) -> bool:
        return re.search(r'"type"\s*:\s*"(session_meta|response_item|turn_context|event_msg)"', head) is not None or (
            re.search(r'^\{"id":"[^"]+","timestamp":"[^"]+","instructions"', head) is not None
        )

    def events(self, lines: NumberedLines) -> Iterator[Event]:
        clock, pending, totals = Clock(), Pending(), _Totals()
        sessions = _Sessions(pending)
        for number, record in json_lines(lines):
            t = clock.at(record.get("timestamp"))
            kind = record.get("type")
            payload = record.get("payload") if isinstance(record.get("payload"), dict) else None
            if payload is None and kind in _ITEM_TYPES:  # pre-0.30 rollouts write items bare
                payload, kind = record, "response_item"
            if payload is None:
                continue
            ptype = payload.get("type")
            if kind == "response_item":
                if ptype == "message" and payload.get("role") == "assistant":
                    pending.ready(message_event(t, as_text(payload.get("content")), "assistant", number))
                elif ptype in {"function_call", "local_shell_call"}:
                    args = loads_maybe(payload.get("arguments")) if ptype == "function_call" else payload.get("action")
                    name = payload.get("name", "shell")
                    call_id = str(payload.get("call_id") or payload.get("id"))
                    if name == "write_stdin":  # a poll of (or keys sent to) a running command: no new action
                        if isinstance(args, dict) and args.get("session_id") is not None:
                            sessions.polls[call_id] = str(args["session_id"])
                        continue
                    if name in SHELL_TOOLS or ptype == "local_shell_call":
                        command = _command(args)
                    elif name == "apply_patch":
                        body = as_text(args.get("input") if isinstance(args, dict) else args)
                        command = f"apply_patch <<'PATCH'\n{body}\nPATCH"
                    else:
                        continue  # update_plan and other non-actions
                    sessions.awaiting.add(call_id)
                    pending.call(lambda r, t=t, c=command, n=number: command_events(t, c, r, n), call_id)
                elif ptype == "custom_tool_call" and payload.get("name") == "apply_patch":
                    command = f"apply_patch <<'PATCH'\n{payload.get('input', '')}\nPATCH"
                    pending.call(
                        lambda r, t=t, c=command, n=number: command_events(t, c, r, n), str(payload.get("call_id"))
                    )
                elif ptype in {"function_call_output", "custom_tool_call_output"}:
                    sessions.output(str(payload.get("call_id")), payload.get("output"))
            elif kind == "event_msg":
                if ptype == "exec_command_end":
                    sessions.end(payload)
                elif ptype == "user_message":
                    pending.ready(message_event(t, str(payload.get("message", "")), "user", number))
                elif ptype == "token_count" and isinstance(payload.get("info"), dict):
                    total = payload["info"].get("total_token_usage") or {}
                    pending.ready(
                        totals.delta(
                            t, int(total.get("input_tokens") or 0), int(total.get("output_tokens") or 0), number
                        )
                    )
            yield from pending.release()
        sessions.close()
        yield from pending.flush()


class CodexExecAdapter(TrajectoryAdapter):
    """OpenAI Codex CLI `codex exec --json` event stream."""

    name = "codex-exec"
    harness = "codex-cli"
    priority = 20
    line_oriented = True

    def detect(self, head: str) -> bool:
        return (
            re.search(r'"type"\s*:\s*"(thread\.started|turn\.started|item\.(started|completed)|turn\.completed)"', head)
            is not None
        )

    def events(self, lines: NumberedLines) -> Iterator[Event]:
        totals = _Totals()
        for number, record in json_lines(lines):
            kind = record.get("type")
            item = record.get("item") if isinstance(record.get("item"), dict) else {}
            if kind == "item.completed":
                itype = item.get("type")
                if itype == "agent_message":
                    yield from message_event(0.0, str(item.get("text", "")), "assistant", number)
                elif itype == "command_execution":
                    code = item.get("exit_code")
                    result = ToolResult(
                        output=str(item.get("aggregated_output") or ""),
                        exit_code=code if isinstance(code, int) else None,
                    )
                    yield from command_events(0.0, _command(item.get("command")), result, number)
                elif itype == "file_change":
                    kinds = {"add": "write", "delete": "delete", "update": "edit"}
                    for change in item.get("changes") or []:
                        yield Event(
                            t=0.0,
                            kind=kinds.get(change.get("kind"), "edit"),  # type: ignore[arg-type]
                            path=change.get("path"),
                            ok=item.get("status") != "failed",
                            source_line=number,
                        )
            elif kind == "turn.completed":
                usage = record.get("usage") or {}
                yield from totals.delta(
                    0.0, int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0), number
                )


@adapters.register("codex-cli")
def make_codex_rollout() -> TrajectoryAdapter:
    """OpenAI Codex CLI session rollout JSONL."""
    return CodexRolloutAdapter()


@adapters.register("codex-exec")
def make_codex_exec() -> TrajectoryAdapter:
    """OpenAI Codex CLI `codex exec --json` event stream."""
    return CodexExecAdapter()
