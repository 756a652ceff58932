"""What every trajectory adapter is, the one registry they live in, and the helpers they share.

An adapter turns one harness's native log into canonical ``Event`` objects (SPEC §5). Adapters are
pure: they receive text (or numbered lines, for logs that can be huge) and never open files; the
edge (``_load.py``) reads files and picks the adapter by content. See docs/trajectories.md.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any, ClassVar, NamedTuple

from bouts.errors import TrajectoryError
from bouts.models.trajectory import Event, Trajectory
from bouts.registry import Registry

EXCERPT_CHARS = 2048
"""Cap on every event's ``output``/``text`` excerpt, so a log with megabytes of test output per step
still converts in bounded memory (head and tail are kept: test summaries sit at the end)."""

NumberedLines = Iterable[tuple[int, str]]
"""(1-based line number, line text) pairs: how line-oriented adapters receive a log."""


class TrajectoryAdapter(ABC):
    """Reads one harness's log. Register a factory in ``adapters``; see docs/trajectories.md."""

    name: ClassVar[str]
    harness: ClassVar[str] = ""
    """The harness named on the trajectory, when one harness has several formats (default: ``name``)."""
    priority: ClassVar[int] = 50
    """Detection order (lower first): specific signatures before generic ones."""
    line_oriented: ClassVar[bool] = False
    """True when ``events`` consumes the log line by line (JSONL), so huge logs stream."""
    binary: ClassVar[bool] = False
    """True when the log is a binary container (``.eval`` zip): ``parse`` then takes bytes."""

    @abstractmethod
    def detect(self, head: str) -> bool:
        """Whether ``head`` (the log's first ~1 MB, decoded) is this harness's format."""

    @abstractmethod
    def events(self, lines: NumberedLines) -> Iterator[Event]:
        """Yield canonical events from the numbered lines of the log, in order."""

    def parse(self, data: str | bytes, source: str = "") -> Trajectory:
        """Convert a whole log held in memory."""
        text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
        numbered = LogLines(text.splitlines())
        events = list(self.events(numbered))
        harness = self.harness or self.name
        return Trajectory(harness=harness, events=events, source=source, truncated_line=numbered.truncated_line)


adapters = Registry[TrajectoryAdapter]("trajectory adapter")
"""Every trajectory adapter, built-in or plugin, by name."""


# --- shared helpers ---------------------------------------------------------------------------


def excerpt(text: str | None, limit: int = EXCERPT_CHARS) -> str | None:
    """Cap ``text`` to ``limit`` characters, keeping its head and tail (where test summaries are)."""
    if text is None:
        return None
    if len(text) <= limit:
        return text
    half = limit // 2 - 8
    return f"{text[:half]}\n[… {len(text) - 2 * half} chars cut …]\n{text[-half:]}"


def json_lines(lines: NumberedLines) -> Iterator[tuple[int, dict[str, Any]]]:
    """Decode JSONL, skipping blank lines; a corrupt line raises naming that line.

    A log cut inside its LAST line (the harness was killed mid-write) keeps every line before it: when
    ``lines`` can record a cut (``LogLines``), the broken last line is recorded there instead of raised,
    and the trajectory is flagged as truncated. A broken line followed by others is corruption.
    """
    broken: TrajectoryError | None = None
    for number, line in lines:
        if not line.strip():
            continue
        if broken is not None:
            raise broken
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            broken = TrajectoryError(
                f"not valid JSON ({exc.msg}, column {exc.colno}); corrupt or truncated log", line=number
            )
            continue
        if not isinstance(record, dict):
            raise TrajectoryError("expected a JSON object on each line", line=number)
        yield number, record
    if broken is not None:
        if broken.line is None or not hasattr(lines, "truncated_line"):
            raise broken
        lines.truncated_line = broken.line  # type: ignore[attr-defined]


class LogLines:
    """Numbered lines of a log that remember the last one handed out (to name it when a parser breaks)
    and the line a truncated log was cut in (``truncated_line``), which ``json_lines`` records."""

    def __init__(self, lines: Iterable[str], text: str | None = None) -> None:
        self._lines = lines
        self.last = 0
        self.truncated_line: int | None = None
        self.text = text
        """The whole log, when it was read at once (a one-document log): decoded without walking its lines."""

    def __iter__(self) -> Iterator[tuple[int, str]]:
        for number, line in enumerate(self._lines, start=1):
            self.last = number
            yield number, line


def json_document(lines: NumberedLines) -> Any:
    """Decode a whole-file JSON log; a syntax error raises naming the line it was found on."""
    whole = getattr(lines, "text", None)
    if isinstance(whole, str):  # read at once: no need to walk (and re-join) every line
        text = whole
        lines.last = whole.count("\n") + (0 if whole.endswith("\n") else 1)  # type: ignore[attr-defined]
    else:
        text = "\n".join(line for _, line in lines)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        # An unterminated string runs to the end of the file: that is a cut, like an error at the end.
        ends_early = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
        what = "truncated log (JSON ends early)" if ends_early else "corrupt log"
        raise TrajectoryError(f"not valid JSON ({exc.msg}, column {exc.colno}); {what}", line=exc.lineno) from None


def parse_time(value: object) -> float | None:
    """Epoch seconds from an ISO-8601 string or a number (seconds or milliseconds); None if absent."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value) / 1000 if value > 1e11 else float(value)
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


class Clock:
    """Turns a log's absolute timestamps into seconds since its first one (never negative)."""

    def __init__(self) -> None:
        self.start: float | None = None
        self.last = 0.0

    def at(self, value: object) -> float:
        stamp = parse_time(value)
        if stamp is None:
            return self.last  # untimed records sit at the time of the previous one
        if self.start is None:
            self.start = stamp
        self.last = max(0.0, stamp - self.start)
        return self.last


def as_text(content: object) -> str:
    """Flatten the many shapes of "content" (str, list of blocks, dicts with text) into text."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(t for t in (as_text(c) for c in content) if t)
    if isinstance(content, dict):
        for key in ("text", "content", "output", "result"):
            if key in content:
                return as_text(content[key])
    return ""


def loads_maybe(value: object) -> Any:
    """Some harnesses store JSON inside strings (tool-call arguments); decode those, keep the rest."""
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


class ToolResult(NamedTuple):
    """What came back from one tool call."""

    output: str | None = None
    exit_code: int | None = None
    ok: bool | None = None


Builder = Callable[[ToolResult | None], list[Event]]


class Pending:
    """Tool calls waiting for their results, released in call order.

    Logs write a call and its result on different lines (other lines in between). Holding each call
    until its result arrives, and releasing only from the front, keeps events in the order the agent
    acted while streaming; the queue holds only calls still in flight. A call whose result never
    comes (a truncated log) is released at the end with no result.
    """

    def __init__(self, limit: int = 5000) -> None:
        self._queue: deque[list[Any]] = deque()  # [builder, result, done]
        self._by_id: dict[str, list[Any]] = {}
        self._limit = limit

    def call(self, builder: Builder, call_id: str | None = None) -> None:
        slot: list[Any] = [builder, None, call_id is None]
        self._queue.append(slot)
        if call_id is not None:
            self._by_id[call_id] = slot

    def ready(self, events: list[Event]) -> None:
        """Queue already-complete events (messages, usage) behind the calls before them."""
        self.call(lambda _result: events)

    def result(self, call_id: str, result: ToolResult) -> None:
        slot = self._by_id.pop(call_id, None)
        if slot is not None:
            slot[1], slot[2] = result, True

    def release(self) -> Iterator[Event]:
        while self._queue and (self._queue[0][2] or len(self._queue) > self._limit):
            builder, result, _ = self._queue.popleft()
            yield from builder(result)

    def flush(self) -> Iterator[Event]:
        while self._queue:
            builder, result, _ = self._queue.popleft()
            yield from builder(result)
        self._by_id.clear()
