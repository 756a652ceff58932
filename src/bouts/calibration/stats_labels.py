"""The outcome labels ``bouts stats --labels`` reads, and how they meet the runs. Pure: text in, labels
out; every error names the file, the line and the field (docs/calibration.md#validity).

A labels file is CSV (a header row) or JSON lines, one run a row: an id field (``run_id`` unless told)
and a label field: ``resolved`` (true/false, 1/0, yes/no) or a number (a human rating). A runs file
(``--runs``) is JSON lines of ``{"trajectory": PATH, "resolved": BOOL}`` (or a numeric label field),
the path relative to the runs file, with an optional ``run_id`` (default: the path).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from bouts.calibration.stats_validity import ValidityError

TRUE = frozenset({"true", "1", "yes", "y", "t"})
FALSE = frozenset({"false", "0", "no", "n", "f"})
DEFAULT_ID = "run_id"
AUTO_LABELS = ("resolved", "rating")


@dataclass(frozen=True)
class RunEntry:
    """A line of a runs file: the trajectory to judge and its label."""

    key: str
    trajectory: str
    label: bool | float
    line: int


def _rows(text: str, source: str) -> Iterator[tuple[int, Mapping[str, object]]]:
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        for no, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValidityError(f"line {no}: not JSON: {e.msg}", file=source) from e
            if not isinstance(row, dict):
                raise ValidityError(f"line {no}: a JSON object is expected, not {type(row).__name__}", file=source)
            yield no, row
        return
    reader = csv.DictReader(io.StringIO(text))
    for row in reader:
        if any(v not in (None, "") for v in row.values()):
            yield reader.line_num, row


def _label_field(row: Mapping[str, object], wanted: str | None, source: str, no: int) -> str:
    if wanted:
        return wanted
    found = next((f for f in AUTO_LABELS if f in row), None)
    if found is None:
        raise ValidityError(f"line {no}: no label field ({' or '.join(AUTO_LABELS)}); name one with --label",
                            file=source)  # fmt: skip
    return found


def parse_label(value: object, *, source: str, line: int, field: str) -> bool | float:
    """A label: a boolean (JSON true/false, or true/false, 1/0, yes/no in text) or a finite number."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str) and value.strip().lower() in TRUE | FALSE:
        return value.strip().lower() in TRUE
    elif isinstance(value, str) and value.strip():
        try:
            number = float(value)
        except ValueError:
            raise ValidityError(f"line {line}: {value!r} is neither true/false nor a number",
                                file=source, field=field) from None  # fmt: skip
    else:
        raise ValidityError(f"line {line}: the label is missing", file=source, field=field)
    if not math.isfinite(number):
        raise ValidityError(f"line {line}: {value!r} is not a finite number", file=source, field=field)
    return number


def _id(row: Mapping[str, object], id_field: str, source: str, no: int) -> str:
    value = row.get(id_field)
    if value is None or (isinstance(value, str) and not value.strip()) or isinstance(value, dict | list):
        raise ValidityError(f"line {no}: the run id is missing", file=source, field=id_field)
    return str(value).strip()


def _binary_numbers(labels: dict[str, bool | float], field: str) -> dict[str, bool | float]:
    """``resolved`` given as 1/0 numbers in JSON is a boolean label, not a rating."""
    if field == "resolved" and all(v in (0, 1) for v in labels.values()):
        return {k: bool(v) for k, v in labels.items()}
    return labels


def parse_labels(text: str, *, source: str, id_field: str = DEFAULT_ID, label: str | None = None,
                 ) -> tuple[str, dict[str, bool | float]]:  # fmt: skip
    """The label field's name and run id → label. A run listed twice is an error."""
    labels: dict[str, bool | float] = {}
    lines: dict[str, int] = {}
    field = label
    for no, row in _rows(text, source):
        field = _label_field(row, field, source, no)
        key = _id(row, id_field, source, no)
        if key in labels:
            raise ValidityError(f"line {no}: run {key!r} is labelled twice (first on line {lines[key]})",
                                file=source, field=id_field)  # fmt: skip
        labels[key] = parse_label(row.get(field), source=source, line=no, field=field)
        lines[key] = no
    if not labels:
        raise ValidityError("no labelled runs in the file", file=source)
    assert field is not None
    return field, _binary_numbers(labels, field)


def parse_runs(text: str, *, source: str, id_field: str = DEFAULT_ID, label: str | None = None,
               ) -> tuple[str, list[RunEntry]]:  # fmt: skip
    """A runs file: JSON lines of {trajectory, label[, run_id]}."""
    entries: list[RunEntry] = []
    field = label
    seen: dict[str, int] = {}
    for no, row in _rows(text, source):
        field = _label_field(row, field, source, no)
        path = row.get("trajectory")
        if not isinstance(path, str) or not path.strip():
            raise ValidityError(f"line {no}: a trajectory path (text) is required", file=source, field="trajectory")
        key = _id(row, id_field, source, no) if id_field in row else path
        if key in seen:
            raise ValidityError(f"line {no}: run {key!r} is listed twice (first on line {seen[key]})",
                                file=source, field=id_field)  # fmt: skip
        seen[key] = no
        entries.append(RunEntry(key, path, parse_label(row.get(field), source=source, line=no, field=field), no))
    if not entries:
        raise ValidityError("no runs in the file", file=source)
    assert field is not None
    labels = _binary_numbers({e.key: e.label for e in entries}, field)
    return field, [RunEntry(e.key, e.trajectory, labels[e.key], e.line) for e in entries]


def field_value(data: Mapping[str, object], dotted: str) -> object:
    """``a.b.c`` looked up in nested objects; None when any part is absent."""
    cur: object = data
    for part in dotted.split("."):
        if not isinstance(cur, Mapping) or part not in cur:
            return None
        cur = cur[part]
    return cur
