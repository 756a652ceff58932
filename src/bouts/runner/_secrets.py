"""Read a challenge's secret and public texts for the scrubber (``_scrub``). The I/O edge of it.

Secret: every file under ``tests/hidden/`` (data files too: expected tables are secrets) and under
``reference/``. Public, so never scrubbed: ``tests/visible/`` and ``starter/`` (the agent has them).
A Python test file is also indexed as the sandbox holds it, externalised (``_externalise``): the
rewriting splits the original's lines with its own calls, and what is left between them (a call's
arguments, ``add(1234, 4321)``) must not read as new text.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from bouts.models.challenge import Challenge
from bouts.runner._scrub import SecretIndex

MAX_FILE_BYTES = 512_000
"""Bytes read of one file (the index itself caps the total: ``_scrub.MAX_SECRET_CHARS``)."""
MAX_FILES = 5_000
_SKIP_DIRS = {"__pycache__", "node_modules", ".git", ".venv", ".pytest_cache"}


def read_texts(root: Path, *, tests: bool = False, under: str = "") -> list[str]:
    """The text files under ``root`` (sorted; links, binaries and cache directories skipped); with
    ``tests``, each Python file's externalised text follows it, rewritten as the runner rewrites the
    file at ``under`` + its path below ``root`` (``tests/hidden/``: the site numbers follow the path),
    through the runner's own memo (``_run.plan_for``)."""
    from bouts.runner._run import plan_for

    texts: list[str] = []
    for rel, text in _files(root):
        texts.append(text)
        if tests and rel.endswith(".py"):
            texts.append(plan_for(under + rel, text).external)
    return texts


def _files(root: Path) -> list[tuple[str, str]]:
    """``(path below root, text)`` of the text files under ``root``, as :func:`read_texts` reads them."""
    texts: list[tuple[str, str]] = []
    if not root.is_dir() or root.is_symlink():
        return texts
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if path.is_symlink() or not path.is_file():
                continue
            with path.open("rb") as fh:
                data = fh.read(MAX_FILE_BYTES)
            if b"\0" not in data[:8192]:
                texts.append((path.relative_to(root).as_posix(), data.decode("utf-8", errors="replace")))
            if len(texts) >= MAX_FILES:
                return texts
    return texts


def read_challenge_texts(challenge: Challenge) -> tuple[list[str], list[str]]:
    """``(secret, public)`` texts of ``challenge``."""
    tests = challenge.root / "tests"
    secret = read_texts(tests / "hidden", tests=True, under="tests/hidden/") + read_texts(challenge.reference)
    public = read_texts(tests / "visible", tests=True, under="tests/visible/") + read_texts(challenge.starter)
    return secret, public


def secret_index(challenge: Challenge) -> SecretIndex:
    """The scrub index of ``challenge`` (built in milliseconds for the bundled challenges). The
    files are read every time; the index is built once per content (a worker scoring many
    submissions of one challenge rewrites its test files once, not per score)."""
    tests = challenge.root / "tests"
    roots = (tests / "hidden", challenge.reference, tests / "visible", challenge.starter)
    parts = [_files(root) for root in roots]
    h = hashlib.sha256()
    for files in parts:
        for name, text in files:
            h.update(name.encode(errors="surrogateescape") + b"\0" + text.encode(errors="surrogateescape") + b"\0")
        h.update(b"\1")
    key = h.hexdigest()
    if key not in _INDEXES:
        if len(_INDEXES) >= 64:
            _INDEXES.clear()
        secret, public = read_challenge_texts(challenge)
        _INDEXES[key] = SecretIndex.build(secret, public)
    return _INDEXES[key]


_INDEXES: dict[str, SecretIndex] = {}
"""Scrub indexes by the sha256 of the texts they were built from (an index is immutable)."""
