"""The edge: pick an adapter by content, parse text in memory, or stream a file from disk.

Detection reads only the log's head (``HEAD_BYTES``) and never looks at the file name. Line-oriented
logs (JSONL, aider's Markdown) are read one line at a time, so a log of any length converts in memory
bounded by its events (each output excerpt is capped); whole-document formats (a ``.traj``, an
Inspect ``.json``) must be parsed whole and are refused above ``MAX_DOCUMENT_BYTES``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from bouts.errors import TrajectoryError
from bouts.models.trajectory import Event, Trajectory
from bouts.trajectory._base import LogLines, NumberedLines, TrajectoryAdapter, adapters
from bouts.trajectory._script_runs import link_scripts

HEAD_BYTES = 1 << 20
MAX_DOCUMENT_BYTES = 512 << 20
ZIP_MAGIC = b"PK\x03\x04"


def _ordered() -> list[TrajectoryAdapter]:
    built = [adapters.create(name) for name in adapters.names()]
    return sorted(built, key=lambda a: (a.priority, a.name))


def decode_head(raw: bytes) -> str:
    """The text detection looks at: zip containers keep their bytes (latin-1), text is UTF-8."""
    if raw.startswith(ZIP_MAGIC):
        return raw.decode("latin-1")
    return raw.decode("utf-8", errors="replace").lstrip("\ufeff")


def detect_adapter(head: str, source: str = "") -> TrajectoryAdapter:
    """The adapter whose format ``head`` is in; raises ``TrajectoryError`` naming the file if none is."""
    if not head.strip():
        raise TrajectoryError("empty trajectory log", file=source or None, line=1)
    for adapter in _ordered():
        if adapter.detect(head):
            return adapter
    first = head.lstrip()[:60].splitlines()[0] if head.strip() else ""
    known = ", ".join(sorted({a.harness or a.name for a in _ordered()}))
    raise TrajectoryError(
        f"not a trajectory log of any known harness ({known}); it starts with {first!r}", file=source or None, line=1
    )


def _guarded(adapter: TrajectoryAdapter, lines: LogLines, source: str) -> Iterator[Event]:
    """Run an adapter, turning every failure into a ``TrajectoryError`` naming the file and line."""
    numbered: NumberedLines = lines
    try:
        # a script written by one command and run by a later one: its writes are named (issue 38, item 1)
        yield from adapter.events(numbered) if adapter.name == "canonical" else link_scripts(adapter.events(numbered))
    except TrajectoryError as exc:
        raise TrajectoryError(
            f"{adapter.name} log: {exc.message}", file=source or None, line=exc.line or lines.last
        ) from None
    except (ValidationError, ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError) as exc:
        raise TrajectoryError(
            f"{adapter.name} log has an unexpected shape ({type(exc).__name__}: {exc})",
            file=source or None,
            line=lines.last or None,
        ) from None


def parse_trajectory(data: str | bytes, source: str = "") -> Trajectory:
    """Detect the format of a log held in memory and convert it (pure: no file is read)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    adapter = detect_adapter(decode_head(raw[:HEAD_BYTES]), source)
    if adapter.binary:
        try:
            return adapter.parse(raw, source)
        except TrajectoryError as exc:
            raise TrajectoryError(exc.message, file=source or None, line=exc.line) from None
    text = data if isinstance(data, str) else raw.decode("utf-8", errors="replace")
    lines = LogLines(text.lstrip("\ufeff").splitlines())
    events = list(_guarded(adapter, lines, source))
    harness = adapter.harness or adapter.name
    return Trajectory(harness=harness, events=events, source=source, truncated_line=lines.truncated_line)


def iter_trajectory(path: str | Path) -> tuple[str, Iterator[Event]]:
    """(harness, events) of the log at ``path``, streamed line by line when its format allows.

    The iterator holds the file open until exhausted; ``load_trajectory`` collects it.
    """
    harness, events, _ = _stream(path)
    return harness, events


def read_event_folder(path: Path) -> str:
    """A folder of one-event-per-file JSON (OpenHands V1: ``<conversation>/events/event-NNNNN-*.json``
    beside ``base_state.json``) as one JSON document: ``{"events": [...], "base_state": {...}}``, events in
    file-name order. A file that is not JSON is refused naming it; the content then picks the adapter."""
    folder = path / "events" if (path / "events").is_dir() else path
    files = sorted(folder.glob("event-*.json"))
    if not files:
        raise TrajectoryError(
            "a folder given as a trajectory must hold event-*.json files (or events/)", file=str(path)
        )
    state = path / "base_state.json"
    size = sum(f.stat().st_size for f in files) + (state.stat().st_size if state.is_file() else 0)
    if size > MAX_DOCUMENT_BYTES:
        raise TrajectoryError(f"{size} bytes of events is over the {MAX_DOCUMENT_BYTES}-byte cap", file=str(path))

    def read(file: Path) -> object:
        try:
            return json.loads(file.read_text(encoding="utf-8", errors="replace"))
        except json.JSONDecodeError as exc:
            raise TrajectoryError(
                f"not valid JSON ({exc.msg}, column {exc.colno})", file=str(file), line=exc.lineno
            ) from None
        except OSError as exc:
            raise TrajectoryError(f"cannot read the event file ({exc.strerror})", file=str(file)) from None

    events = ",\n".join(json.dumps(read(f)) for f in files)  # one event per line
    base_state = f', "base_state": {json.dumps(read(state))}' if state.is_file() else ""
    return f'{{"events": [\n{events}\n]{base_state}}}'


def _stream(path: str | Path) -> tuple[str, Iterator[Event], LogLines | None]:
    """``iter_trajectory``, with the lines object that learns, once exhausted, where a cut log ends."""
    path = Path(path)
    source = str(path)
    if path.is_dir():
        trajectory = parse_trajectory(read_event_folder(path), source)
        return trajectory.harness, iter(trajectory.events), None
    try:
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
        size = path.stat().st_size
    except OSError as exc:
        raise TrajectoryError(f"cannot read the trajectory log ({exc.strerror})", file=source) from None
    adapter = detect_adapter(decode_head(head), source)
    harness = adapter.harness or adapter.name
    if adapter.binary:
        return harness, iter(parse_trajectory(path.read_bytes(), source).events), None
    if not adapter.line_oriented and size > MAX_DOCUMENT_BYTES:
        raise TrajectoryError(
            f"a {adapter.name} log is one JSON document; {size} bytes is over the {MAX_DOCUMENT_BYTES}-byte cap",
            file=source,
        )

    def read_lines() -> Iterator[str]:
        with path.open(encoding="utf-8", errors="replace", newline=None) as text:
            yield from (line.rstrip("\n") for line in text)

    if not adapter.line_oriented:  # one JSON document (size-capped above): read at once, decoded whole
        whole = path.read_text(encoding="utf-8", errors="replace")
        counted = LogLines(iter(whole.split("\n")), text=whole)
    else:
        counted = LogLines(read_lines())
    return harness, _guarded(adapter, counted, source), counted


def load_trajectory(path: str | Path) -> Trajectory:
    """Read, detect (by content) and convert the trajectory log at ``path``.

    Raises ``TrajectoryError`` (an ``InputError``: exit 2) naming the file and line for an unreadable,
    corrupt, truncated or unknown log.
    """
    harness, stream, lines = _stream(path)
    events = list(stream)
    truncated = lines.truncated_line if lines is not None else None
    return Trajectory(harness=harness, events=events, source=str(path), truncated_line=truncated)
