"""The submission as every judge sees it: read once, at the pipeline edge (``bouts.loading.view``).

A ``SubmissionView`` holds the submission's ``code/`` and the challenge's ``starter/`` as bounded
file trees (one set of limits, links listed and never followed), the change set between them, the
languages present, the deliverables, and what was excluded from judging and why. Judges read this,
never the disk: what one judge reads, every judge reads, so no folder can hide code from one judge
and show it to another. Pure data: nothing here touches the file system.
"""

from __future__ import annotations

import re
import threading
import zipfile
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any, BinaryIO, Literal, TypeVar

MAX_FILE_BYTES = 2 * 1024 * 1024
"""A file is read up to this size (the largest any judge reads: the scanners' 2 MB). A larger code
file is listed but not analysed (each judge says so, and the integrity judge counts a large Python
file as a gray-area instance); a larger document is read up to the cap and the note says so."""
MAX_FILES = 10_000
"""Files per tree; the submission loader refuses larger trees, so this is a backstop for starters."""

ChangeKind = Literal["added", "modified", "deleted"]
T = TypeVar("T")


@dataclass(frozen=True)
class ViewFile:
    """One regular file, read once: its bytes (up to ``MAX_FILE_BYTES``) or why they were not read."""

    rel: str
    """Path relative to the tree root, ``/``-separated."""
    size: int
    """Size on disk in bytes (also for a file not read)."""
    data: bytes | None
    """The bytes; for a file over the cap, its first ``MAX_FILE_BYTES`` (``truncated``); None when
    unreadable (``skipped`` says why)."""
    skipped: str | None = None
    truncated: bool = False
    sha256: str = ""
    """sha256 of the whole file (also of one over the cap: a cap never hides a change)."""

    @cached_property
    def text(self) -> str | None:
        """UTF-8 text (a BOM dropped, bad bytes replaced); None when not read or cut by the cap:
        a code judge analyses whole files only."""
        if self.data is None or self.truncated:
            return None
        return _decode(self.data)

    @cached_property
    def not_utf8(self) -> bool:
        if self.data is None:
            return False
        try:
            self.data.decode("utf-8-sig")
        except UnicodeDecodeError:
            return True
        return False

    @property
    def is_binary(self) -> bool:
        return self.data is not None and b"\x00" in self.data

    @property
    def why_not_read(self) -> str | None:
        """Why a code judge cannot analyse this file (None: it can)."""
        if self.skipped:
            return self.skipped
        if self.truncated:
            return f"larger than {MAX_FILE_BYTES // 1024} KiB (not analysed)"
        return None


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class FileTree:
    """A directory read once: regular files by relative path (sorted), and the links it held."""

    files: Mapping[str, ViewFile] = field(default_factory=dict)
    links: Mapping[str, str] = field(default_factory=dict)
    """Symbolic links (to files or directories) by path → their target as written; never followed."""
    truncated: bool = False
    """More than ``MAX_FILES`` files: the rest were not read."""
    present: bool = True
    """False when the directory was absent (an empty tree, not an error)."""

    def __contains__(self, rel: object) -> bool:
        return rel in self.files

    def __iter__(self) -> Iterator[ViewFile]:
        return iter(self.files.values())

    def get(self, rel: str) -> ViewFile | None:
        return self.files.get(rel)

    def with_suffix(self, suffixes: Iterable[str]) -> list[ViewFile]:
        """Files whose name ends with one of ``suffixes``, in path order."""
        ends = tuple(suffixes)
        return [f for f in self.files.values() if f.rel.endswith(ends)]

    def without(self, rels: Iterable[str]) -> FileTree:
        """The same tree minus ``rels`` (files and links)."""
        gone = set(rels)
        return FileTree({r: f for r, f in self.files.items() if r not in gone},
                        {r: t for r, t in self.links.items() if r not in gone}, self.truncated, self.present)


@dataclass(frozen=True)
class Exclusion:
    """Files left out of judging, and the reason."""

    path: str
    """What was excluded, relative to ``code/``: a glob, a folder (``node_modules/lodash/``) or an
    installed distribution's site (``venv/lib/python3.11/site-packages/`` for ``requests``)."""
    reason: str
    members: tuple[str, ...]
    """The files left out."""
    kind: Literal["vendored", "bytecode", "not-run"] = "vendored"
    """``vendored``: third-party code; ``bytecode``: the interpreter's output; ``not-run``: what the
    runner deletes and replaces before a test runs (``node_modules/`` in a JavaScript challenge). The
    integrity judge reads all but ``not-run``."""


@dataclass(frozen=True)
class SubmissionView:
    """Everything a judge may know of the submission's files (see the module docstring)."""

    code: FileTree
    """The submission's ``code/``, everything in it (protected and vendored files included)."""
    starter: FileTree
    """The challenge's ``starter/``, read the same way."""
    deliverables: FileTree | None
    """The submission's ``deliverables/``; None when it has none."""
    protected: tuple[str, ...] = ()
    """The challenge's protected globs (``glob_matches`` semantics)."""
    excluded: tuple[Exclusion, ...] = ()
    """Vendored third-party code left out of judging: declared by the challenge or shown by a lockfile."""
    language_suffixes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Each language's own source suffixes (``languages``), from the language registry at the edge
    (``bouts.languages.source_suffixes``: the model imports nothing above it)."""
    _memo: dict[Hashable, Any] = field(default_factory=dict, repr=False, compare=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)

    def memo(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()`` once per view and ``key``: what several judges derive from the same files
        (the quality judges' change set) is derived once. Thread-safe (judges run concurrently)."""
        with self._lock:
            if key not in self._memo:
                self._memo[key] = compute()
            return self._memo[key]  # type: ignore[no-any-return]

    @cached_property
    def excluded_files(self) -> frozenset[str]:
        return frozenset(rel for e in self.excluded for rel in e.members)

    @cached_property
    def integrity_code(self) -> FileTree:
        """What the integrity judge reads: every file but what the runner replaces before a test runs."""
        return self.code.without(rel for e in self.excluded if e.kind == "not-run" for rel in e.members)

    def _excluded(self, rel: str) -> bool:
        return rel in self.excluded_files

    def is_protected(self, rel: str) -> bool:
        return any(glob_matches(p, rel) for p in self.protected)

    @cached_property
    def judged(self) -> FileTree:
        """``code`` minus protected paths (the integrity judge's business) and excluded vendored code:
        the files the quality, security and LLM judges read."""
        return self.code.without(r for r in (*self.code.files, *self.code.links)
                                 if self.is_protected(r) or self._excluded(r))

    @cached_property
    def judged_starter(self) -> FileTree:
        """``starter`` minus the same paths."""
        return self.starter.without(r for r in (*self.starter.files, *self.starter.links)
                                    if self.is_protected(r) or self._excluded(r) or is_bytecode(r))

    @cached_property
    def changes(self) -> Mapping[str, ChangeKind]:
        """Every judged file the submission added, modified or deleted relative to ``starter/``, by
        path (files compared by their bytes as read, and by size for files over the cap)."""
        mine, base = self.judged.files, self.judged_starter.files
        out: dict[str, ChangeKind] = {}
        for rel in sorted(set(mine) | set(base)):
            a, b = base.get(rel), mine.get(rel)
            if a is None:
                out[rel] = "added"
            elif b is None:
                out[rel] = "deleted"
            elif (a.sha256, a.size, a.skipped) != (b.sha256, b.size, b.skipped):
                out[rel] = "modified"
        return out

    @cached_property
    def languages(self) -> frozenset[str]:
        """Languages whose source files the judged code holds."""
        return frozenset(lang for lang, ends in self.language_suffixes.items()
                         if any(rel.endswith(ends) for rel in self.judged.files))

    def document(self, rel: str) -> tuple[str | None, str]:
        """(text, note) of the deliverable at ``rel`` (relative to ``deliverables/``): None and why when
        it is absent, a link or not readable; the first ``MAX_FILE_BYTES`` of a larger one, said so."""
        if self.deliverables is None:
            return None, "the submission has no deliverables/ directory"
        if any(rel == link or rel.startswith(link + "/") for link in self.deliverables.links):
            return None, f"{rel} is a symlink (refused)"
        f = self.deliverables.get(rel)
        if f is None:
            return None, f"{rel} is missing"
        if f.data is None:
            return None, f"{rel} {f.skipped or 'could not be read'}"
        note = f"only the first {MAX_FILE_BYTES // 1024} KiB were read" if f.truncated else ""
        return f.data.decode("utf-8", errors="replace"), note


PYTHON_COMPILED = (".pyc", ".pyo", ".so", ".pyd")
"""Compiled code Python's import system loads with no source beside it to read: bytecode, and native
extension modules, which are tried before a ``.py`` of the same name (``money.cpython-311-x86_64-linux-gnu.so``
shadows ``money.py``). The runner deletes them (``runner._workspace``); the integrity judge flags them."""


PYTHON_ARCHIVES = (".zip", ".egg", ".whl", ".pyz")
"""Names of archives Python imports from once they are on ``sys.path`` (``zipimport``). What decides is
the content (``python_archive``): zipimport reads any file whose end is a zip directory, whatever its name."""
_ZIP_MODULES = (".py", ".pyc", ".pyw")


def python_archive(data: BinaryIO) -> bool:
    """Whether ``data`` (a seekable binary file) is a zip archive listing a Python module: code
    ``zipimport`` would import from it, which no judge reads (the runner removes such archives,
    ``runner._workspace``, and the integrity judge flags them as code hidden from review)."""
    try:
        if not zipfile.is_zipfile(data):
            return False
        data.seek(0)
        with zipfile.ZipFile(data) as archive:
            return any(name.endswith(_ZIP_MODULES) for name in archive.namelist()[:100_000])
    except (OSError, zipfile.BadZipFile, ValueError, EOFError, RuntimeError, NotImplementedError):
        return False


def is_bytecode(rel: str) -> bool:
    """Compiled Python code: ``PYTHON_COMPILED`` files and anything under ``__pycache__/``."""
    return rel.endswith(PYTHON_COMPILED) or "__pycache__" in rel.split("/")


def glob_matches(pattern: str, rel: str) -> bool:
    """Match a ``protected`` (or ``vendored``) glob against a path relative to ``code/``.

    ``**`` spans directories (``tests/**`` is everything under ``tests/``, ``**/conftest.py`` is a
    conftest at any depth, including the root), ``*`` and ``?`` stay within one path segment, and a
    pattern without a slash names a path at the root only, as in ``challenge.toml``'s examples.
    """
    return _compile(pattern).fullmatch(rel) is not None


@cache
def _compile(pattern: str) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append(r"(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(r".*")
            i += 2
        elif pattern[i] == "*":
            out.append(r"[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append(r"[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))
