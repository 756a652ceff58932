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
_ADDED = re.compile(r"^> Added (.+?) to the chat")
_APPLIED = re.compile(r"^> Applied edit to (.+?)\s*$")  # a file name may hold spaces
_FAILED = re.compile(r"failed to exactly match lines in (\S+)|^> Skipping edits to (.+?)\s*$")
_BLOCK_START = re.compile(r"^<<<<<<< (?:SEARCH|ORIGINAL|HEAD)\s*$")
"""An edit block opens with SEARCH (aider ≥0.2x), ORIGINAL or HEAD (aider 0.1x: ``>>>>>>> UPDATED``/``updated``)."""
_BLOCK_END = ("=======", ">>>>>>> REPLACE", ">>>>>>> UPDATED", ">>>>>>> updated")
# A "yes" is y/yes, or a/all ("yes to all"; aider ≥0.5x asks once per file: "> F" then the question).
_CONFIRM_FILES = re.compile(r"^> Add (?:these files|file) to the chat\?.*\s(y|yes|a|all)\s*$", re.I)
_CONFIRM_RUN = re.compile(r"^> Run shell commands?\?.*\s(y|yes|a|all)\s*$", re.I)
_CONFIRM_CREATE = re.compile(r"^> (?:Create new file|Allow creation of new file)\b.*\?.*\s(y|yes|a|all)\s*$", re.I)
_PROMPT = re.compile(r"(\?|\[Y/n\]|\[y/N\]|\[(?:Yes|No)\]:?)\s*$")
_ANSWER = re.compile(r"^(y|yes|n|no|a|all|s|skip|d|don't ask again)$", re.I)
_ANSWERED = re.compile(r"\?.*\s(?:y|yes|n|no|a|all|s|skip|d|don't ask again)\s*$", re.I)
"""Aider's question with the user's answer on the same line ("Add file to the chat? … [Yes]: n")."""
_NOTES = re.compile(r"^> (?:Added \S+ to the chat|Applied edit to|Tokens: |Commit [0-9a-f]+ |You can use /undo)")
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
        self.blocks: list[tuple[str, int, bool]] = []  # path, line, empty SEARCH (a new file, or an append)
        self.after: list[Event] = []  # what aider noted after the reply (usage, confirmed reads, runs)
        self.created: set[str] = set()
        self.applied: list[tuple[str, int]] = []  # "Applied edit to F", in order
        self.failed: set[str] = set()
        self.last_plain = ""
        self.fenced_name = ""
        self.fence_just_opened = False  # the previous line opened a fence

    def close(self, known: set[str]) -> Iterator[Event]:
        """The reply, its edits with their outcome, then aider's notes after it, in the log's order.

        A block with an empty SEARCH part creates its file ("Create new file? y", or a file the log
        never showed the model): a write, not an edit of an unread file. ``known`` holds the files the
        model has seen or made (an empty SEARCH on one of them appends: an edit)."""
        reply = message_event(self.t, "\n".join(self.text), "assistant", self.line)
        changes: list[Event] = []
        seen = {path for path, _, _ in self.blocks}
        applied = {path for path, _ in self.applied}
        for path, line, empty in self.blocks:
            ok = True if path in applied else (False if path in self.failed else None)
            new = path in self.created or (empty and path not in known)
            changes.append(Event(t=self.t, kind="write" if new else "edit", path=path, ok=ok, source_line=line))
            known.add(path)
        for path, line in self.applied:  # whole-file / udiff formats: only the outcome is logged
            if path not in seen:
                kind = "write" if path in self.created and path not in known else "edit"
                changes.append(Event(t=self.t, kind=kind, path=path, ok=True, source_line=line))
                known.add(path)
        # In the log's order: a reply's usage line comes before the "Applied edit" lines it paid for, and
        # files added at aider's questions about the user's message come before the reply they fed.
        yield from sorted([*reply, *changes, *self.after], key=lambda e: e.source_line or 0)


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
        known: set[str] = set()  # files the model has been shown or has written
        prompt = False  # the previous line was a question aider asked the user
        note_open = False  # aider's note goes on: it quotes ("> ") only a note's first line, ends its last with "  "
        question, asked = "", []  # the question and what it was about (the quoted lines before it)
        searching = 0  # the line of the last "<<<<<<< SEARCH"
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
                        prompt = _PROMPT.search(line) is not None  # its answer may follow on a line of its own
                        question, asked = line, []
                        continue
                else:
                    run[2].append(line[2:] if not run[2] and line.startswith("> ") else line)
                    continue
            if (started := _STARTED.match(line)) is not None:
                yield from reply.close(known)
                stamp = datetime.fromisoformat(started.group(1))
                start = start or stamp
                t = max(0.0, (stamp - start).total_seconds())
                reply = _Reply(t)
                continue
            if line.startswith("####"):
                text = line[4:].strip()
                if _ANSWERED.search(text) and (
                    _CONFIRM_FILES.match(f"> {text}") or _PROMPT.search(text.rsplit(":", 1)[0])
                ):
                    # aider echoing an automatic answer ("yes to all") as input: its question, answered,
                    # part of the reply before it, not a new user message
                    self._confirmed(f"> {text}", quoted, reply, known, t, number)
                    quoted = []
                    continue
                if not user:
                    yield from reply.close(known)
                    reply = _Reply(t)
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
                    reply.after.append(Event(t=t, kind="read", path=m.group(1), source_line=number))
                    known.add(m.group(1))
                elif (m := _APPLIED.match(line)) is not None:
                    reply.applied.append((m.group(1), number))
                elif (m := _TOKENS.match(line)) is not None:  # after the reply it paid for, not before
                    sent = sum(_tokens(m.group(i)) for i in (1, 2, 3))
                    reply.after.extend(usage_event(t, sent, _tokens(m.group(4)), number))
                else:
                    self._confirmed(line, quoted, reply, known, t, number)
                for m in _FAILED.finditer(line):
                    reply.failed.add(m.group(1) or m.group(2))
                prompt = bool(note) and _PROMPT.search(note) is not None
                question, asked = (line, quoted) if prompt else ("", [])
                note_open = not raw.endswith("  ")
                # a file or command aider names (not its question, answered or not, nor its own notes)
                named = note and not _PROMPT.search(note) and not _ANSWERED.search(note) and not _NOTES.match(line)
                quoted = [*quoted, note] if named else []
                continue
            if prompt and _ANSWER.match(line.strip()):
                # The user's answer to aider's question, on a line of its own: theirs, not the model's.
                prompt = False
                reply.after.extend(message_event(t, line.strip(), "user", number))
                if line.strip().lower() in {"y", "yes", "a", "all"}:
                    self._confirmed(f"{question} {line.strip()}", asked, reply, known, t, number)
                quoted = []
                continue
            if note_open and line.strip():
                # A raw line continuing aider's note ("Cost: $0.01 message, …" under "> Tokens: …"): aider's
                # words, not the model's.
                note_open = not raw.endswith("  ")
                continue
            note_open = False
            prompt = False
            if line.strip():  # a blank line keeps the file names aider is about to ask about
                quoted = []
            after_fence, reply.fence_just_opened = reply.fence_just_opened, False
            if _BLOCK_START.match(line):
                # The file is named on the line before the block, or (diff format) before its fence.
                named = reply.fenced_name if after_fence else reply.last_plain
                reply.blocks.append((_path(named or reply.last_plain), number, False))
                searching = number
            elif line.startswith("=======") and searching == number - 1 and reply.blocks:
                path, at, _ = reply.blocks[-1]
                reply.blocks[-1] = (path, at, True)  # nothing to search for: a new file (or an append)
            elif _FENCE.match(line):
                reply.fenced_name, reply.fence_just_opened = reply.last_plain, True
            elif line.strip() and not line.startswith("[Y/n"):
                reply.line = reply.line or number
                reply.last_plain = line
                if not line.startswith(_BLOCK_END):
                    reply.text.append(line)
        if run is not None:
            command, at, output = run
            yield from command_events(t, command, ToolResult(output="\n".join(output)), at)
        yield from reply.close(known)

    @staticmethod
    def _confirmed(line: str, quoted: list[str], reply: _Reply, known: set[str], t: float, number: int) -> None:
        """What a question the user answered yes to did: files shown to the model, a file created, or
        suggested shell commands run (the quoted lines before the question name them)."""
        if _CONFIRM_FILES.match(line):
            for path in quoted:
                reply.after.append(Event(t=t, kind="read", path=path, source_line=number))
                known.add(path)
        elif _CONFIRM_CREATE.match(line):
            reply.created.update(quoted[-1:])
        elif _CONFIRM_RUN.match(line):
            for command in quoted:
                reply.after.extend(command_events(t, command, None, number))


@adapters.register("aider")
def make_aider() -> TrajectoryAdapter:
    """Aider .aider.chat.history.md."""
    return AiderAdapter()
