"""OpenHands V1 (the software-agent-sdk): typed events, each with a ``kind``.

A V1 conversation is a list of events: ``MessageEvent`` (``llm_message``), ``ActionEvent`` (an
``action`` object whose own ``kind`` names the tool's action: ``TerminalAction``, ``FileEditorAction``,
``FinishAction``, …), ``ObservationEvent`` (the result, pointing back through ``action_id`` and
``tool_call_id``), ``AgentErrorEvent`` and ``UserRejectObservation`` (a call that failed or was
refused), and bookkeeping (``SystemPromptEvent``, ``ConversationStateUpdateEvent``, condensations).
It comes in three layouts, read by two adapters:

- a conversation folder ``<id>/events/event-NNNNN-<uuid>.json`` (one event per file) beside
  ``base_state.json``: the edge (``_load.py``) reads the folder into one document, events in file
  order and the state under ``base_state``;
- a JSON document: a list of events, or an object holding them under ``events`` or ``items`` (what
  the agent server's event search returns);
- a JSONL stream, one event per line (``openhands-v1-events``).

Tokens: events carry only their ``llm_response_id``. A folder's ``base_state`` keeps one
``token_usages`` entry per response (placed after the first event of that response); a stream keeps
running totals in ``ConversationStateUpdateEvent`` ``stats`` (summed over every LLM of the
conversation: agent, condenser, …), so each usage event is the difference from the previous total.
litellm's ``prompt_tokens`` already includes cache reads.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
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

V1_KINDS = re.compile(
    r'"kind"\s*:\s*"(ActionEvent|ObservationEvent|MessageEvent|SystemPromptEvent|ConversationStateUpdateEvent'
    r'|AgentErrorEvent|UserRejectObservation|Condensation|CondensationSummaryEvent|PauseEvent)"'
)
TERMINAL_ACTIONS = {"TerminalAction", "ExecuteBashAction", "BashAction"}
EDITOR_ACTIONS = {"FileEditorAction", "StrReplaceEditorAction", "PlanningFileEditorAction"}
FILE_ACTIONS: dict[str, EventKind] = {"ReadFileAction": "read", "WriteFileAction": "write", "EditAction": "edit"}
SEARCH_ACTIONS = {"GlobAction": "pattern", "GrepAction": "pattern", "ListDirectoryAction": "dir_path"}


def _result(observation: dict[str, Any]) -> ToolResult:
    """An observation's output, exit status (-1 is "none": still running or cut off) and error flag."""
    code = observation.get("exit_code")
    if code is None:
        code = (observation.get("metadata") or {}).get("exit_code")
    if not isinstance(code, int) or isinstance(code, bool) or code == -1:
        code = None
    ok = False if observation.get("is_error") else None
    return ToolResult(output=as_text(observation.get("content")), exit_code=code, ok=ok)


def _builder(t: float, action: dict[str, Any], line: int):  # noqa: ANN202 - returns a Builder or None
    kind = str(action.get("kind", ""))
    if kind in TERMINAL_ACTIONS:
        if action.get("is_input"):
            return None  # keystrokes sent to a process already running, not a command
        command = str(action.get("command") or "")
        return lambda r: command_events(t, command, r, line)
    if kind in EDITOR_ACTIONS:
        file_kind = FILE_COMMANDS.get(str(action.get("command") or ""), "edit")
        path = action.get("path")
        return lambda r: file_events(t, file_kind, path, r, line)
    if kind in FILE_ACTIONS:
        path = action.get("file_path") or action.get("path")
        return lambda r: file_events(t, FILE_ACTIONS[kind], path, r, line)
    if kind in SEARCH_ACTIONS:
        query = str(action.get(SEARCH_ACTIONS[kind]) or action.get("path") or "")
        return lambda r: [Event(t=t, kind="search", query=query, ok=None if r is None else r.ok, source_line=line)]
    if kind in {"ApplyPatchAction", "PatchAction"}:
        command = f"apply_patch <<'PATCH'\n{action.get('patch') or action.get('input') or ''}\nPATCH"
        return lambda r: command_events(t, command, r, line)
    return None  # think, task tracker, browser, MCP, delegation: not actions on the code


def _texts(blocks: object) -> str:
    return as_text(blocks) if isinstance(blocks, list | str) else ""


class _Tokens:
    """Usage from a folder's per-response ``token_usages``, or deltas of a stream's running totals."""

    def __init__(self, per_response: dict[str, tuple[int, int]]) -> None:
        self.per_response = per_response
        self.by_response = bool(per_response)  # then running totals are ignored (the finer record wins)
        self.total = (0, 0)

    def of_response(self, response_id: object, t: float, line: int) -> list[Event]:
        usage = self.per_response.pop(str(response_id), None) if response_id else None
        return usage_event(t, *usage, line) if usage else []

    def of_stats(self, stats: object, t: float, line: int) -> list[Event]:
        if self.by_response or not isinstance(stats, dict):
            return []
        metrics = (stats.get("usage_to_metrics") or {}).values()
        totals = [m.get("accumulated_token_usage") or {} for m in metrics if isinstance(m, dict)]
        now = (
            sum(int(u.get("prompt_tokens") or 0) for u in totals),
            sum(int(u.get("completion_tokens") or 0) for u in totals),
        )
        if now[0] < self.total[0] or now[1] < self.total[1]:
            self.total = (0, 0)  # totals that drop: a new conversation
        delta = (now[0] - self.total[0], now[1] - self.total[1])
        self.total = now
        return usage_event(t, *delta, line)

    def rest(self, t: float, line: int) -> list[Event]:
        """Usage of responses no event in the log names (kept so the total is the conversation's)."""
        tokens_in = sum(i for i, _ in self.per_response.values())
        tokens_out = sum(o for _, o in self.per_response.values())
        self.per_response.clear()
        return usage_event(t, tokens_in, tokens_out, line)


def _per_response(base_state: object) -> dict[str, tuple[int, int]]:
    if not isinstance(base_state, dict):
        return {}
    usages: dict[str, tuple[int, int]] = {}
    metrics = ((base_state.get("stats") or {}).get("usage_to_metrics") or {}).values()
    for index, entry in enumerate(u for m in metrics if isinstance(m, dict) for u in m.get("token_usages") or []):
        if isinstance(entry, dict):
            key = str(entry.get("response_id") or f"#{index}")
            usage = (int(entry.get("prompt_tokens") or 0), int(entry.get("completion_tokens") or 0))
            previous = usages.get(key, (0, 0))
            usages[key] = (previous[0] + usage[0], previous[1] + usage[1])
    return usages


def v1_events(records: Iterable[tuple[int, dict[str, Any]]], base_state: object = None) -> Iterator[Event]:
    """Canonical events from numbered V1 events (in log order)."""
    clock, pending, tokens = Clock(), Pending(), _Tokens(_per_response(base_state))
    by_tool_call: dict[str, str] = {}
    number = 0
    for number, event in records:
        t = clock.at(event.get("timestamp"))
        kind = event.get("kind")
        response = event.get("llm_response_id")
        if kind == "MessageEvent":
            message = event.get("llm_message") or {}
            role = "user" if event.get("source") == "user" or message.get("role") == "user" else "assistant"
            pending.ready(message_event(t, _texts(message.get("content")), role, number))
            pending.ready(tokens.of_response(response, t, number))
        elif kind == "ActionEvent":
            pending.ready(message_event(t, _texts(event.get("thought")), "assistant", number))
            action = event.get("action") if isinstance(event.get("action"), dict) else {}
            if action.get("kind") == "FinishAction":
                text = str(action.get("message") or "")
                pending.ready(
                    [*message_event(t, text, "assistant", number), Event(t=t, kind="submit", source_line=number)]
                )
            else:
                builder = _builder(t, action, number)
                if builder is not None:
                    action_id = str(event.get("id"))
                    if event.get("tool_call_id"):
                        by_tool_call[str(event["tool_call_id"])] = action_id
                    pending.call(builder, action_id)
            pending.ready(tokens.of_response(response, t, number))
        elif kind in {"ObservationEvent", "AgentErrorEvent", "UserRejectObservation"}:
            action_id = event.get("action_id") or by_tool_call.get(str(event.get("tool_call_id")))
            if action_id is not None:  # a result whose action the log does not hold is dropped
                if kind == "ObservationEvent":
                    observation = event.get("observation")
                    result = _result(observation if isinstance(observation, dict) else {})
                else:
                    reason = event.get("error") or event.get("rejection_reason") or "refused"
                    result = ToolResult(output=str(reason), ok=False)
                pending.result(str(action_id), result)
        elif kind == "ConversationStateUpdateEvent" and event.get("key") in {"stats", "full_state"}:
            value = event.get("value")
            stats = value.get("stats") if event.get("key") == "full_state" and isinstance(value, dict) else value
            pending.ready(tokens.of_stats(stats, t, number))
        yield from pending.release()
    yield from pending.flush()
    yield from tokens.rest(clock.last, number or 1)


def is_v1_event(record: object) -> bool:
    """Whether a record is an OpenHands V1 event (its ``kind`` names an event class)."""
    return isinstance(record, dict) and str(record.get("kind", "")).endswith(("Event", "Observation", "Condensation"))


class OpenHandsV1Adapter(TrajectoryAdapter):
    """OpenHands V1 (software-agent-sdk) conversation: a list of events, or a conversation folder."""

    name = "openhands-v1"
    harness = "openhands"
    priority = 28  # before the V0 list reader: V1 actions also carry "source" and "action"

    def detect(self, head: str) -> bool:
        start = head.lstrip()[:1]
        if start not in {"[", "{"} or V1_KINDS.search(head) is None:
            return False
        first = next((line for line in head.splitlines() if line.strip()), "")
        return not OpenHandsV1StreamAdapter.first_line_is_event(first)

    def events(self, lines: NumberedLines) -> Iterator[Event]:
        doc = json_document(lines)
        base_state = None
        if isinstance(doc, dict):
            base_state = doc.get("base_state")
            doc = doc.get("events") if "events" in doc else doc.get("items")
        if not isinstance(doc, list):
            raise TrajectoryError("an OpenHands V1 conversation needs a list of events", line=1)
        records = ((i, e) for i, e in enumerate(doc, start=1) if isinstance(e, dict))
        yield from v1_events(records, base_state)


class OpenHandsV1StreamAdapter(TrajectoryAdapter):
    """OpenHands V1 (software-agent-sdk) event stream: one event per line (JSONL)."""

    name = "openhands-v1-events"
    harness = "openhands"
    priority = 28
    line_oriented = True

    @staticmethod
    def first_line_is_event(line: str) -> bool:
        try:
            return is_v1_event(json.loads(line))
        except json.JSONDecodeError:
            return False

    def detect(self, head: str) -> bool:
        first = next((line for line in head.splitlines() if line.strip()), "")
        if V1_KINDS.search(first) is None:
            return False
        return self.first_line_is_event(first)  # one event per line: the first line is a whole event

    def events(self, lines: NumberedLines) -> Iterator[Event]:
        yield from v1_events(json_lines(lines))


@adapters.register("openhands-v1")
def make_openhands_v1() -> TrajectoryAdapter:
    """OpenHands V1 (software-agent-sdk) conversation: list of events, or its folder."""
    return OpenHandsV1Adapter()


@adapters.register("openhands-v1-events")
def make_openhands_v1_events() -> TrajectoryAdapter:
    """OpenHands V1 (software-agent-sdk) event stream, one event per line."""
    return OpenHandsV1StreamAdapter()
