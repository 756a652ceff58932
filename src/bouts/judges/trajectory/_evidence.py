"""What in a trajectory the engine can hold to facts (issue 37: no-op actions never pay).

An uploaded log is the agent's account, not a measurement: a read it lists may never have happened, and
inserting ``{"kind": "read", "path": "ledger/core.py"}`` before each edit lifted the process score
70 → 100. So a look (a read, a search, a command) earns process or strategy credit only when the engine
recorded the trajectory itself (``bouts.agents``: every action went through its tool layer), or when the
event's output shows what the workspace holds: a line of the file it looked at (of ``starter/`` or of the
submitted ``code/``), or, for an investigation, a line or the path of any workspace file (a traceback names
its files). Pure: built once per view from files the view already read. Rules: docs/trajectory-judges.md.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from bouts.models.challenge import Challenge
from bouts.models.trajectory import Event
from bouts.models.view import FileTree, SubmissionView

from ._common import same_file, suffixes

MIN_LINE = 12
"""A line shorter than this (``return x``, ``}``) is too common to say which file was read."""
MAX_FILES, MAX_LINES = 2000, 200_000
# Prefixes viewers put before a file's lines: `cat -n`/`nl` and Claude Code's "  12→", grep -n's "path:12:".
_PREFIX = re.compile(r"^(?:\S+?[:-])?\s*\d+(?:\t|→|:|\||\s{1,2}|-)\s?")


def _line_key(line: str) -> str:
    return " ".join(line.split())


def _lines(text: str) -> set[str]:
    return {k for ln in text.splitlines() if len(k := _line_key(ln)) >= MIN_LINE}


@dataclass(frozen=True)
class Evidence:
    """The workspace facts a log's looks are held to: each file's substantive lines (starter and code)."""

    recorded: bool = False
    """The engine recorded the trajectory itself: what it lists happened."""
    files: dict[str, frozenset[str]] | None = None
    """Workspace file (relative path) → its substantive lines, in any version (``starter/`` or ``code/``)."""

    @classmethod
    def of(cls, view: SubmissionView | None, challenge: Challenge | None = None, recorded: bool = False) -> Evidence:
        """The facts of ``view`` (``starter/``, ``code/``) and the challenge's visible tests, which the agent's
        workspace held too; every look counts when the engine ``recorded`` the trajectory."""
        if recorded or view is None:
            return cls(recorded=recorded, files={})

        def build() -> Evidence:
            files = _read(view.starter, view.code)
            for rel, text in _visible_tests(challenge):
                files[rel] = frozenset(_lines(text)) | files.get(rel, frozenset())
            return cls(files=files)

        return view.memo(("trajectory-evidence",), build)

    def shows(self, e: Event, path: str | None = None) -> bool:
        """Whether event ``e`` is held to a fact: recorded, or its output shows a line of ``path`` (any
        workspace file when ``path`` is None, whose path it may also name)."""
        if self.recorded:
            return True
        if not e.output or not self.files:
            return False
        seen = _seen(e.output)
        if path is not None:
            return any(bool(lines & seen) for rel, lines in self.files.items() if same_file(rel, path))
        if any(lines & seen for lines in self.files.values()):
            return True
        return any(_named(rel, e.output) for rel in self.files)


RECORDED = Evidence(recorded=True)
"""Every look counts: for callers holding a trajectory the engine recorded (and the pure helpers' default)."""


@functools.lru_cache(maxsize=2048)
def _seen(output: str) -> frozenset[str]:
    """The substantive lines of an output, as printed and without a viewer's line-number prefix."""
    out: set[str] = set()
    for ln in output.splitlines():
        for k in (_line_key(ln), _line_key(_PREFIX.sub("", ln.strip(), count=1))):
            if len(k) >= MIN_LINE:
                out.add(k)
    return frozenset(out)


def _named(rel: str, text: str) -> bool:
    tails = suffixes(rel)
    needle = tails[-2] if len(tails) >= 2 else rel
    return needle in text


def _read(*trees: FileTree) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    budget = MAX_LINES
    for tree in trees:
        for f in _first(tree.files.values(), MAX_FILES):
            text = f.text if not f.is_binary else None
            if not text or budget <= 0:
                continue
            found = _lines(text)
            budget -= len(found)
            out.setdefault(f.rel, set()).update(found)
    return {rel: frozenset(lines) for rel, lines in out.items()}


def _visible_tests(challenge: Challenge | None) -> list[tuple[str, str]]:
    """(path, text) of the challenge's visible tests (I/O: small files of the loaded challenge)."""
    if challenge is None:
        return []
    out = []
    for rel in challenge.test_files.get("visible", [])[:MAX_FILES]:
        try:
            out.append((rel, (challenge.root / rel).read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
    return out


def _first(items: Iterable, n: int) -> list:  # type: ignore[type-arg]
    out = []
    for item in items:
        if len(out) >= n:
            break
        out.append(item)
    return out
