"""OpenHands: a saved trajectory (a JSON list of events) and evaluation ``output.jsonl`` records.

Events are actions (``run``, ``run_ipython``, ``read``, ``edit``, ``write``, ``message``, ``finish``)
and observations that point back at their action through ``cause``. Tokens: several actions produced
by one LLM response repeat that response's usage in ``tool_call_metadata``, so usage is counted once
per response id; an evaluation record's ``metrics.token_usages`` (one entry per response) wins when
present, and per-event usage is then ignored.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from bouts.errors import TrajectoryError
from bouts.models.trajectory import Event, EventKind
from bouts.trajectory._base import (
    Clock,
    NumberedLines,
    Pending,
    ToolResult,
    TrajectoryAdapter,
    adapters,
    as_text,
    json_document,
    json_lines,
)
from bouts.trajectory._events import FILE_COMMANDS, command_events, file_events, message_event, usage_event
from bouts.trajectory._openhands_v1 import is_v1_event, v1_events

_EDIT_CREATE = re.compile(r"'command': '(\w+)'")


def _usage_of(usage: dict[str, Any]) -> tuple[int, int]:
    # litellm's prompt_tokens already includes Anthropic cache writes and reads (checked on
    # basic.json: 4646 = 6 + 1158 written + 3482 read), so it is the whole prompt.
    return int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)


def _edit_kind(args: dict[str, Any]) -> EventKind:
    command = args.get("command")
    if not command:  # older records only keep the translated call
        match = _EDIT_CREATE.search(str(args.get("translated_ipython_code", "")))
        command = match.group(1) if match else ("create" if args.get("content") is not None else "str_replace")
    return FILE_COMMANDS.get(str(command), "edit")


def history_events(history: list[Any], line: int | None, count_usage: bool) -> Iterator[Event]:
    """Events from an OpenHands event list (``line`` pins them to one JSONL record when given)."""
    clock, pending, seen_responses = Clock(), Pending(), set()
    for index, event in enumerate(_flatten(history), start=1):
        number = line or index
        t = clock.at(event.get("timestamp"))
        args = event.get("args") or {}
        action, observation = event.get("action"), event.get("observation")
        meta = event.get("tool_call_metadata") or {}
        response = meta.get("model_response") or {}
        if count_usage and response.get("id") and response["id"] not in seen_responses and action:
            seen_responses.add(response["id"])
            pending.ready(usage_event(t, *_usage_of(response.get("usage") or {}), number))
        call_id = str(event.get("id"))
        if action in {"run", "run_ipython"}:
            command = str(args.get("command") or args.get("code") or "")
            if action == "run_ipython":
                command = f"python - <<'PY'\n{command}\nPY"
            pending.call(lambda r, t=t, c=command, n=number: command_events(t, c, r, n), call_id)
        elif action in {"read", "edit", "write"}:
            kind: EventKind = "read" if action == "read" else ("write" if action == "write" else _edit_kind(args))
            path = args.get("path")
            pending.call(lambda r, t=t, k=kind, p=path, n=number: file_events(t, k, p, r, n), call_id)
        elif action == "message" and event.get("source") in {"agent", "user"}:
            role = "assistant" if event.get("source") == "agent" else "user"
            pending.ready(message_event(t, str(args.get("content") or event.get("message") or ""), role, number))
        elif action == "finish":
            text = str(args.get("final_thought") or args.get("thought") or event.get("message") or "")
            pending.ready([*message_event(t, text, "assistant", number), Event(t=t, kind="submit", source_line=number)])
        elif observation and event.get("cause") is not None:
            extras = event.get("extras") or {}
            code = extras.get("exit_code", (extras.get("metadata") or {}).get("exit_code"))
            if code == -1:  # OpenHands' "no exit status": still running, or timed out with no new output
                code = None
            ok = False if observation == "error" else None
            pending.result(
                str(event["cause"]),
                ToolResult(
                    output=as_text(event.get("content")), exit_code=code if isinstance(code, int) else None, ok=ok
                ),
            )
        yield from pending.release()
    yield from pending.flush()


def _flatten(history: list[Any]) -> Iterator[dict[str, Any]]:
    """Old evaluation outputs store ``[action, observation]`` pairs; newer ones a flat list."""
    for item in history:
        if isinstance(item, list):
            yield from (x for x in item if isinstance(x, dict))
        elif isinstance(item, dict):
            yield item


class OpenHandsAdapter(TrajectoryAdapter):
    """OpenHands saved trajectory (JSON list of events)."""

    name = "openhands"
    priority = 30

    def detect(self, head: str) -> bool:
        return (
            head.lstrip().startswith("[")
            and re.search(r'"source"\s*:\s*"(user|agent|environment)"', head) is not None
            and re.search(r'"(action|observation)"\s*:', head) is not None
        )

    def events(self, lines: NumberedLines) -> Iterator[Event]:
        doc = json_document(lines)
        if isinstance(doc, dict):
            doc = doc.get("history") or doc.get("events") or []
        if not isinstance(doc, list):
            raise TrajectoryError("an OpenHands trajectory needs a list of events", line=1)
        yield from history_events(doc, None, count_usage=True)


class OpenHandsEvalAdapter(TrajectoryAdapter):
    """OpenHands evaluation output.jsonl (one instance per line)."""

    name = "openhands-eval"
    harness = "openhands"
    priority = 25
    line_oriented = True

    def detect(self, head: str) -> bool:
        first = head.lstrip()[:4000]
        return first.startswith("{") and '"instance_id"' in head and re.search(r'"history"\s*:\s*\[', head) is not None

    def events(self, lines: NumberedLines) -> Iterator[Event]:
        for number, record in json_lines(lines):
            usages = (record.get("metrics") or {}).get("token_usages") or []
            history = record.get("history") or []
            if any(is_v1_event(e) for e in history[:20]):  # an OpenHands V1 evaluation: kind-typed events
                # its token_usages (one per response) are placed like a conversation folder's base_state
                state = {"stats": {"usage_to_metrics": {"eval": {"token_usages": usages}}}}
                yield from v1_events(((number, e) for e in history if isinstance(e, dict)), state)
                continue
            yield from history_events(history, number, count_usage=not usages)
            totals = [_usage_of(u) for u in usages if isinstance(u, dict)]
            yield from usage_event(0.0, sum(i for i, _ in totals), sum(o for _, o in totals), number)


@adapters.register("openhands")
def make_openhands() -> TrajectoryAdapter:
    """OpenHands saved trajectory (JSON list of events)."""
    return OpenHandsAdapter()


@adapters.register("openhands-eval")
def make_openhands_eval() -> TrajectoryAdapter:
    """OpenHands evaluation output.jsonl (one instance per line)."""
    return OpenHandsEvalAdapter()
