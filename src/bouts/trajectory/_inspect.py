"""Inspect AI eval logs: ``.eval`` (a zip of ``header.json`` and ``samples/*.json``) and ``.json``.

Each sample's ``events`` list is the timeline: ``model`` events carry the reply and its usage (one
event per generation, so usage is never repeated), ``tool`` events carry the call, its arguments and
its result. Tools map by name: ``bash`` runs its ``cmd`` through the shell classifier, ``python``
is a run, ``text_editor`` is a file tool. A log with several samples yields them one after another.

Two things in a sample are not the agent's: the scorer's own model calls (a model-graded scorer runs
inside a ``step``/``span`` of type ``scorer``), which are skipped, and ``attachment://<hash>`` stand-ins
for long texts, which are replaced by the sample's ``attachments`` entry.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Iterator
from typing import Any

from bouts.errors import TrajectoryError
from bouts.models.trajectory import Event, EventKind, Trajectory
from bouts.trajectory._base import Clock, NumberedLines, ToolResult, TrajectoryAdapter, adapters, as_text, json_document
from bouts.trajectory._events import FILE_COMMANDS, command_events, file_events, message_event, usage_event

_ATTACHMENT = "attachment://"


def _resolved(value: Any, attachments: dict[str, Any]) -> Any:
    """``value`` with every ``attachment://<hash>`` string replaced by the attached text."""
    if isinstance(value, str) and value.startswith(_ATTACHMENT):
        return attachments.get(value[len(_ATTACHMENT) :], value)
    if isinstance(value, list):
        return [_resolved(v, attachments) for v in value]
    if isinstance(value, dict):
        return {k: _resolved(v, attachments) for k, v in value.items()}
    return value


def _tool(t: float, event: dict[str, Any], line: int) -> list[Event]:
    name = str(event.get("function", ""))
    args = event.get("arguments") or {}
    error = event.get("error")
    result = ToolResult(
        output=as_text(event.get("result")) or (as_text(error.get("message")) if error else ""),
        ok=False if error else None,
    )
    if name in {"bash", "shell", "bash_session"}:
        return command_events(t, str(args.get("cmd") or args.get("command") or args.get("input") or ""), result, line)
    if name == "python":
        return command_events(t, f"python - <<'PY'\n{args.get('code', '')}\nPY", result, line)
    if name in {"text_editor", "str_replace_editor", "edit_file", "view_file", "create_file"}:
        kind: EventKind = FILE_COMMANDS.get(str(args.get("command") or name.split("_")[0]), "edit")
        return file_events(t, kind, args.get("path"), result, line)
    return []  # browser, think, submit-less custom tools: not actions on the code


def sample_events(sample: dict[str, Any], clock: Clock, line: int) -> Iterator[Event]:
    """Events of one sample, from its timeline (or from its messages when the log dropped events)."""
    timeline = sample.get("events") or []
    attachments = sample.get("attachments") if isinstance(sample.get("attachments"), dict) else {}
    scorer_steps = 0  # inside a scorer's step (≤0.3.5x) …
    scorer_spans: set[str] = set()  # … or span (later): its model calls grade the sample
    for raw in timeline:
        t = clock.at(raw.get("timestamp"))
        kind = raw.get("event")
        if kind == "step" and raw.get("type") == "scorer":
            scorer_steps += 1 if raw.get("action") == "begin" else -1 if scorer_steps else 0
        elif kind == "span_begin" and raw.get("type") == "scorer":
            scorer_spans.add(str(raw.get("id")))
        elif kind == "span_end":
            scorer_spans.discard(str(raw.get("id")))
        if scorer_steps or scorer_spans or kind not in {"model", "tool"}:
            continue
        event = _resolved(raw, attachments) if attachments else raw
        if event.get("event") == "model":
            output = event.get("output") or {}
            choices = output.get("choices") or [{}]
            yield from message_event(t, as_text((choices[0].get("message") or {}).get("content")), "assistant", line)
            usage = output.get("usage") or {}
            tokens_out = int(usage.get("output_tokens") or 0)
            total = int(usage.get("total_tokens") or 0)
            # input_tokens excludes cache reads for some providers and includes them for others;
            # total - output is every prompt token either way.
            tokens_in = total - tokens_out if total else int(usage.get("input_tokens") or 0)
            yield from usage_event(t, tokens_in, tokens_out, line)
        elif event.get("event") == "tool":
            yield from _tool(t, event, line)
    if not timeline:
        for message in sample.get("messages") or []:
            if message.get("role") == "assistant":
                content = _resolved(message.get("content"), attachments)
                yield from message_event(clock.last, as_text(content), "assistant", line)


class InspectJsonAdapter(TrajectoryAdapter):
    """Inspect AI .json eval log."""

    name = "inspect-ai"
    priority = 30

    def detect(self, head: str) -> bool:
        return (
            re.match(r'\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:', head) is not None
            and re.search(r'"eval"\s*:\s*\{', head) is not None
        )

    def events(self, lines: NumberedLines) -> Iterator[Event]:
        doc = json_document(lines)
        if not isinstance(doc, dict) or "eval" not in doc:
            raise TrajectoryError("an Inspect log needs an 'eval' header", line=1)
        clock = Clock()
        for index, sample in enumerate(doc.get("samples") or [], start=1):
            yield from sample_events(sample, clock, index)


class InspectEvalAdapter(TrajectoryAdapter):
    """Inspect AI .eval log (zip)."""

    name = "inspect-eval"
    harness = "inspect-ai"
    priority = 30
    binary = True

    def detect(self, head: str) -> bool:
        return head.startswith("PK\x03\x04") and any(n in head for n in ("_journal/", "header.json", "samples/"))

    def events(self, lines: NumberedLines) -> Iterator[Event]:
        raise TrajectoryError("an .eval log is a zip archive: parse its bytes", line=1)

    def parse(self, data: str | bytes, source: str = "") -> Trajectory:
        raw = data.encode("latin-1") if isinstance(data, str) else data
        try:
            archive = zipfile.ZipFile(io.BytesIO(raw))
            names = [n for n in archive.namelist() if n.startswith("samples/") and n.endswith(".json")]
            # samples/<id>_epoch_<n>.json: keep the archive's (write) order, it is the run order
            samples = [json.loads(archive.read(n)) for n in names]
        except (zipfile.BadZipFile, json.JSONDecodeError, KeyError, EOFError) as exc:
            raise TrajectoryError(f"corrupt or truncated .eval archive ({exc})", line=1) from None
        clock = Clock()
        events = [e for i, s in enumerate(samples, start=1) for e in sample_events(s, clock, i)]
        return Trajectory(harness=self.harness, events=events, source=source)


@adapters.register("inspect-ai")
def make_inspect_json() -> TrajectoryAdapter:
    """Inspect AI .json eval log."""
    return InspectJsonAdapter()


@adapters.register("inspect-eval")
def make_inspect_eval() -> TrajectoryAdapter:
    """Inspect AI .eval log (zip)."""
    return InspectEvalAdapter()
