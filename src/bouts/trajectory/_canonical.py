"""The canonical JSONL of SPEC §5 itself: one event per line, validated by the ``Event`` model."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from pydantic import ValidationError

from bouts.errors import TrajectoryError
from bouts.models.trajectory import Event
from bouts.trajectory._base import NumberedLines, TrajectoryAdapter, adapters, json_lines

_FIRST_EVENT = re.compile(r'^\s*\{[^\n]*"kind"\s*:\s*"(read|edit|write|delete|search|run|message|usage|submit)"')


class CanonicalAdapter(TrajectoryAdapter):
    """bouts canonical trajectory JSONL (SPEC §5)."""

    name = "canonical"
    priority = 10
    line_oriented = True

    def detect(self, head: str) -> bool:
        first = next((line for line in head.splitlines() if line.strip()), "")
        if not _FIRST_EVENT.match(first):
            return False
        try:
            record = json.loads(first)
        except json.JSONDecodeError:
            return True  # looks canonical; the parser will name the broken line
        return isinstance(record, dict) and "t" in record

    def events(self, lines: NumberedLines) -> Iterator[Event]:
        for number, record in json_lines(lines):
            record.setdefault("source_line", number)
            try:
                yield Event.model_validate(record)
            except ValidationError as exc:
                problem = exc.errors()[0]
                where = ".".join(str(p) for p in problem["loc"]) or "event"
                raise TrajectoryError(f"invalid event: {where}: {problem['msg']}", line=number) from None


@adapters.register("canonical")
def make_canonical() -> TrajectoryAdapter:
    """bouts canonical trajectory JSONL (SPEC §5)."""
    return CanonicalAdapter()
