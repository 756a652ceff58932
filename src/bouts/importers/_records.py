"""Reading dataset records: JSON lines (or one JSON array) into (line, object) pairs, and typed
field access that names the line and the field when a record is wrong. Pure: text in, data out."""

from __future__ import annotations

import ast
import json
from collections.abc import Callable, Iterator
from typing import Any

from bouts.importers import _python
from bouts.importers._model import DatasetError, ImportedChallenge


def iter_records(text: str, *, source: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line, record)`` for each JSON object of a JSON-lines text, or of a JSON array.

    Blank lines are skipped. For a JSON array the line is where each element starts.
    """
    if text.lstrip().startswith("["):
        yield from _iter_array(text, source=source)
        return
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as e:
            raise DatasetError(f"not valid JSON ({e.msg}, column {e.colno})", file=source, line=number) from None
        if not isinstance(value, dict):
            raise DatasetError(f"expected a JSON object, got {type(value).__name__}", file=source, line=number)
        yield number, value


def iter_tasks(
    text: str,
    task: Callable[..., ImportedChallenge],
    *,
    source: str,
    profile: str = "engine",
    limit: int | None = None,
) -> Iterator[ImportedChallenge]:
    """``task(record, source=, line=, profile=)`` for each record, at most ``limit``; a task id seen
    twice is a ``DatasetError`` naming both lines."""
    seen: dict[str, int] = {}
    for count, (line, record) in enumerate(iter_records(text, source=source)):
        if limit is not None and count >= limit:
            return
        challenge = task(record, source=source, line=line, profile=profile)
        if challenge.id in seen:
            raise DatasetError(
                f"duplicate task id (first on line {seen[challenge.id]})", file=source, line=line, field="task_id"
            )
        seen[challenge.id] = line
        yield challenge


def _iter_array(text: str, *, source: str) -> Iterator[tuple[int, dict[str, Any]]]:
    decoder = json.JSONDecoder()
    pos = text.index("[") + 1
    while True:
        pos = _skip(text, pos)
        if pos >= len(text):
            raise DatasetError("the JSON array is not closed", file=source, line=text.count("\n", 0, pos) + 1)
        if text[pos] == "]":
            if text[pos + 1 :].strip():
                raise DatasetError("text after the JSON array", file=source, line=text.count("\n", 0, pos) + 1)
            return
        line = text.count("\n", 0, pos) + 1
        try:
            value, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            raise DatasetError(f"not valid JSON ({e.msg})", file=source, line=e.lineno) from None
        if not isinstance(value, dict):
            raise DatasetError(f"expected a JSON object, got {type(value).__name__}", file=source, line=line)
        yield line, value
        pos = _skip(text, pos)
        if pos < len(text) and text[pos] == ",":
            pos += 1


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


class Fields:
    """Typed access to one record's fields; every mistake names the file, line and field."""

    def __init__(self, record: dict[str, Any], *, source: str, line: int) -> None:
        self._record = record
        self.source = source
        self.line = line

    def error(self, message: str, field: str | None = None) -> DatasetError:
        return DatasetError(message, file=self.source, line=self.line, field=field)

    def text(self, name: str, *, required: bool = True, allow_empty: bool = False) -> str:
        value = self._record.get(name)
        if value is None and not required:
            return ""
        if value is None:
            raise self.error("is missing", name)
        if not isinstance(value, str):
            raise self.error(f"must be a string, got {type(value).__name__}", name)
        if not allow_empty and not value.strip():
            raise self.error("is empty", name)
        return value

    def texts(self, name: str, *, required: bool = True, min_items: int = 0) -> list[str]:
        value = self._record.get(name)
        if value is None and not required:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.error("must be a list of strings", name)
        if len(value) < min_items:
            raise self.error(f"needs at least {min_items} item(s), has {len(value)}", name)
        return list(value)

    def python(self, source: str, name: str) -> ast.Module:
        """``source`` (this record's field ``name``, maybe rewritten) parsed as Python."""
        try:
            return _python.parse(source, "it")
        except _python.SourceError as e:
            raise self.error(str(e), name) from None

    def ident(self, name: str) -> str:
        """A task id, given as a string or an integer."""
        value = self._record.get(name)
        if isinstance(value, bool) or not isinstance(value, str | int) or str(value).strip() == "":
            raise self.error("is missing or not a string/integer", name)
        return str(value)
