"""Reading a submission's source files without trusting them.

Every quality judge reads the same files the same way: regular source files of the challenge's
language only (``.py``; ``.js .mjs .cjs .jsx .ts .mts .cts .tsx`` for JavaScript/TypeScript), symlinks skipped
(never followed: a link could point at ``/etc`` or at the starter), each file capped in size, the
whole tree capped in file count, bytes that are not UTF-8 decoded with replacement rather than
refused. Nothing here imports or runs submission code.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

MAX_FILE_BYTES = 512 * 1024
"""A larger Python file is not analysed (it is reported): parsing it could take seconds."""
MAX_FILES = 2000
"""A tree with more Python files is judged on the first ``MAX_FILES`` (sorted) and says so."""

# Directories that hold tools' output or third-party code, never the agent's work.
SKIP_DIRS = frozenset(
    {".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".venv", "venv", ".tox",
     "node_modules", "site-packages", "build", "dist"}
)


@dataclass(frozen=True)
class RawFile:
    """One Python file as read from disk, or why it could not be read."""

    rel: str
    """Path relative to the tree root, with forward slashes."""
    text: str | None
    """Decoded source (``None`` when the file was skipped)."""
    skipped: str | None = None
    """Why the file was not read: a symlink, too large, not a regular file."""
    not_utf8: bool = False
    """The bytes were not valid UTF-8 and were decoded with replacement characters."""
    size: int = 0
    """Size in bytes (kept for skipped files, so an unchanged oversized starter file is recognised)."""


def is_excluded(rel: str, patterns: Iterable[str]) -> bool:
    """Does ``rel`` match one of the challenge's protected globs (``tests/**``, ``**/conftest.py``)?

    Protected paths belong to the challenge, not the agent: changing them is the integrity judge's
    business, and they are not judged for quality.
    """
    for pattern in patterns:
        candidates = [pattern]
        if pattern.startswith("**/"):
            candidates.append(pattern[3:])  # "**/conftest.py" also matches a root-level conftest.py
        if any(fnmatch.fnmatchcase(rel, p) for p in candidates):
            return True
    return False


def read_tree(
    root: Path, exclude: Iterable[str] = (), suffixes: tuple[str, ...] = (".py",)
) -> tuple[list[RawFile], bool]:
    """The source files under ``root`` whose name ends with one of ``suffixes`` (``.py`` by default),
    sorted, and whether the ``MAX_FILES`` cap cut the list."""
    patterns = tuple(exclude)
    rels: list[str] = []
    links: list[str] = []
    if not root.is_dir():
        return [], False
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        kept = []
        for name in sorted(dirnames):
            if name in SKIP_DIRS:
                continue
            if (here / name).is_symlink():
                links.append((here / name).relative_to(root).as_posix())
                continue
            kept.append(name)
        dirnames[:] = kept
        for name in filenames:
            if name.endswith(suffixes):
                rels.append((here / name).relative_to(root).as_posix())
    rels = sorted(r for r in rels if not is_excluded(r, patterns))
    truncated = len(rels) > MAX_FILES
    files = [read_one(root, rel) for rel in rels[:MAX_FILES]]
    files += [RawFile(rel, None, "a symlinked directory (not followed)") for rel in sorted(links)
              if not is_excluded(rel, patterns)]
    return sorted(files, key=lambda f: f.rel), truncated


def read_one(root: Path, rel: str) -> RawFile:
    """Read ``root/rel`` refusing symlinks, fifos and devices, up to ``MAX_FILE_BYTES``."""
    path = root / rel
    try:
        # O_NOFOLLOW closes the window between a check and the open; O_NONBLOCK keeps a fifo from
        # blocking the judge forever (it is refused just below, by fstat).
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return RawFile(rel, None, "a symlink (not followed)")
        return RawFile(rel, None, f"unreadable ({exc.strerror or exc})")
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(handle.fileno())
        if not stat.S_ISREG(st.st_mode):
            return RawFile(rel, None, "not a regular file")
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        return RawFile(rel, None, f"larger than {MAX_FILE_BYTES // 1024} KiB (not analysed)", size=st.st_size)
    try:
        return RawFile(rel, data.decode("utf-8-sig"), size=len(data))
    except UnicodeDecodeError:
        return RawFile(rel, data.decode("utf-8", errors="replace"), not_utf8=True, size=len(data))
