"""Aider's ``.aider.chat.history.md``: a Markdown transcript, parsed line by line.

``#### `` lines are the user's input (``/run``/``/test`` run a command whose output follows), plain
lines are the model's reply (with SEARCH/REPLACE edit blocks under a file name), ``> `` lines are
aider's own notes: ``Added F to the chat`` (the model now sees F: a read), ``Applied edit to F``,
``… failed to exactly match lines in F`` (a rejected edit), ``Tokens: 3.7k sent, 107 received``.
A reply's edits are emitted when the reply is over, with their outcome. Times are per session only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime

from bouts.models.trajectory import Event
from bouts.trajectory._base import NumberedLines, ToolResult, TrajectoryAdapter, adapters
from bouts.trajectory._events import command_events, message_event, usage_event

_STARTED = re.compile(r"^# aider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")
_TOKENS = re.compile(
    r"^> Tokens: ([\d.,]+k?) sent(?:, ([\d.,]+k?) cache write)?(?:, ([\d.,]+k?) cache hit)?, "
    r"([\d.,]+k?) received"
)
_ADDED = re.compile(r"^> Added (\S+) to the chat")
_APPLIED = re.compile(r"^> Applied edit to (\S+)")
_FAILED = re.compile(r"failed to exactly match lines in (\S+)")
_CONFIRM_FILES = re.compile(r"^> Add (?:these files|file) to the chat\?.*\b(y|yes)\s*$", re.I)
_CONFIRM_RUN = re.compile(r"^> Run shell commands?\?.*\b(y|yes)\s*$", re.I)
_OUTPUT_END = re.compile(r"^> Add (?:the |command )?output to the chat\?")
_FENCE = re.compile(r"^(```|<source>)")


def _tokens(value: str | None) -> int:
    if not value:
        return 0
    value = value.replace(",", "")
    return round(float(value[:-1]) * 1000) if value.endswith("k") else int(float(value))


def _path(line: str) -> str:
    return line.strip().strip("`*:").strip()


class _Reply:
    """The model reply being read, and the edits it proposed."""

    def __init__(self, t: float) -> None:
        self.t = t
        self.line: int | None = None  # where the reply starts: its evidence line
        self.text: list[str] = []
        self.blocks: list[tuple[str, int]] = []
        self.applied: dict[str, int] = {}
        self.failed: set[str] = set()
        self.last_plain = ""
        self.fenced_name = ""

    def close(self) -> Iterator[Event]:
        yield from message_event(self.t, "\n".join(self.text), "assistant", self.line)
        seen = {path for path, _ in self.blocks}
        for path, line in self.blocks:
            ok = True if path in self.applied else (False if path in self.failed else None)
            yield Event(t=self.t, kind="edit", path=path, ok=ok, source_line=line)
        for path, line in self.applied.items():  # whole-file / udiff formats: only the outcome is logged
            if path not in seen:
                yield Event(t=self.t, kind="edit", path=path, ok=True, source_line=line)


class AiderAdapter(TrajectoryAdapter):
    """Aider .aider.chat.history.md."""

    name = "aider"
    priority = 40
    line_oriented = True

    def detect(self, head: str) -> bool:
        return re.search(r"^# aider chat started at \d{4}-", head, re.M) is not None

    def events(self, lines: NumberedLines) -> Iterator[Event]:
        start: datetime | None = None
        t = 0.0
        reply = _Reply(t)
        run: tuple[str, int, list[str]] | None = None  # command, line, output lines
        quoted: list[str] = []  # consecutive "> x" lines (candidate file names / suggested commands)
        user: list[str] = []
        for number, raw in lines:
            line = raw.rstrip()
            if run is not None:
                # The output ends where aider asks to add it to the chat, or where its quoted copy
                # ("> " + the same first line) begins: raw output may itself hold "> " lines.
                echo = len(run[2]) > 1 and line.startswith("> ") and line[2:].strip() == run[2][0].strip()
                if echo or _OUTPUT_END.match(line) or line.startswith("#### ") or _STARTED.match(line):
                    command, at, output = run
                    yield from command_events(t, command, ToolResult(output="\n".join(output)), at)
                    run = None
                    if echo or _OUTPUT_END.match(line):
                        continue
                else:
                    run[2].append(line[2:] if not run[2] and line.startswith("> ") else line)
                    continue
            if (started := _STARTED.match(line)) is not None:
                yield from reply.close()
                stamp = datetime.fromisoformat(started.group(1))
                start = start or stamp
                t = max(0.0, (stamp - start).total_seconds())
                reply = _Reply(t)
                continue
            if line.startswith("####"):
                if not user:
                    yield from reply.close()
                    reply = _Reply(t)
                text = line[4:].strip()
                if text.startswith(("/run ", "/test ", "/r ")):
                    run = (text.split(" ", 1)[1], number, [])
                elif not text.startswith("/"):
                    user.append(text)
                continue
            if user:
                yield from message_event(t, "\n".join(user), "user", number - 1)
                user = []
            if line.startswith(">"):
                note = line[2:].strip() if line.startswith("> ") else ""
                if (m := _ADDED.match(line)) is not None:
                    yield Event(t=t, kind="read", path=m.group(1), source_line=number)
                elif (m := _APPLIED.match(line)) is not None:
                    reply.applied[m.group(1)] = number
                elif (m := _TOKENS.match(line)) is not None:
                    sent = sum(_tokens(m.group(i)) for i in (1, 2, 3))
                    yield from usage_event(t, sent, _tokens(m.group(4)), number)
                elif _CONFIRM_FILES.match(line):
                    for path in quoted:
                        yield Event(t=t, kind="read", path=path, source_line=number)
                elif _CONFIRM_RUN.match(line):
                    for command in quoted:
                        yield from command_events(t, command, None, number)
                for m in _FAILED.finditer(line):
                    reply.failed.add(m.group(1))
                quoted = [*quoted, note] if note and not note.endswith("?") and "[Y/n]" not in note else []
                continue
            quoted = []
            if line.startswith("<<<<<<< SEARCH"):
                reply.blocks.append((_path(reply.fenced_name or reply.last_plain), number))
            elif _FENCE.match(line):
                reply.fenced_name = reply.last_plain
            elif line.strip() and not line.startswith("[Y/n"):
                reply.line = reply.line or number
                reply.last_plain = line
                if not line.startswith(("=======", ">>>>>>> REPLACE")):
                    reply.text.append(line)
        if run is not None:
            command, at, output = run
            yield from command_events(t, command, ToolResult(output="\n".join(output)), at)
        yield from reply.close()


@adapters.register("aider")
def make_aider() -> TrajectoryAdapter:
    """Aider .aider.chat.history.md."""
    return AiderAdapter()
