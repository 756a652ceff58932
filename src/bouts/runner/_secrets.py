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
    through the runner's own memo (``_plans.plan_for``)."""
    return _texts(_files(root), under if tests else None)


def _texts(files: list[tuple[str, str]], under: str | None, cache_dir: Path | None = None) -> list[str]:
    """:func:`read_texts` of files already read; ``under`` ``None``: no externalised texts."""
    from bouts.runner._plans import plan_for

    texts: list[str] = []
    for rel, text in files:
        texts.append(text)
        if under is not None and rel.endswith(".py"):
            texts.append(plan_for(under + rel, text, cache_dir).external)
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
    return _split(_challenge_files(challenge))


_UNDER = ("tests/hidden/", None, "tests/visible/", None)
"""Per folder the index reads (:func:`_challenge_files`: the hidden tests and the reference, secret;
the visible tests and the starter, public), where its files sit in the workspace when they are test
files (also indexed as the runner rewrites them), else ``None``."""


def _challenge_files(challenge: Challenge) -> list[list[tuple[str, str]]]:
    roots = (challenge.root / "tests" / "hidden", challenge.reference, challenge.root / "tests" / "visible",
             challenge.starter)  # fmt: skip
    return [_files(root) for root in roots]


def _split(parts: list[list[tuple[str, str]]], cache_dir: Path | None = None) -> tuple[list[str], list[str]]:
    texts = [_texts(files, under, cache_dir) for files, under in zip(parts, _UNDER, strict=True)]
    return texts[0] + texts[1], texts[2] + texts[3]


def secret_index(challenge: Challenge, cache_dir: Path | None = None) -> SecretIndex:
    """The scrub index of ``challenge`` (built in milliseconds for the bundled challenges). The
    files are read every time; the index is built once per content (a worker scoring many
    submissions of one challenge rewrites its test files once, not per score; with the engine's
    ``cache_dir``, the rewrites are read from it: ``_plans``)."""
    parts = _challenge_files(challenge)
    h = hashlib.sha256()
    for files in parts:
        for name, text in files:
            h.update(name.encode(errors="surrogateescape") + b"\0" + text.encode(errors="surrogateescape") + b"\0")
        h.update(b"\1")
    key = h.hexdigest()
    if key not in _INDEXES:
        if len(_INDEXES) >= 64:
            _INDEXES.clear()
        _INDEXES[key] = SecretIndex.build(*_split(parts, cache_dir))
    return _INDEXES[key]


_INDEXES: dict[str, SecretIndex] = {}
"""Scrub indexes by the sha256 of the texts they were built from (an index is immutable)."""
