"""Read a challenge's secret and public texts for the scrubber (``_scrub``). The I/O edge of it.

Secret: every file under ``tests/hidden/`` (data files too: expected tables are secrets) and under
``reference/``. Public, so never scrubbed: ``tests/visible/`` and ``starter/`` (the agent has them).
A Python test file is also indexed as the sandbox holds it, externalised (``_externalise``): the
rewriting splits the original's lines with its own calls, and what is left between them (a call's
arguments, ``add(1234, 4321)``) must not read as new text.
"""

from __future__ import annotations

import os
from pathlib import Path

from bouts.models.challenge import Challenge
from bouts.runner._externalise import plan_file
from bouts.runner._scrub import SecretIndex

MAX_FILE_BYTES = 512_000
"""Bytes read of one file (the index itself caps the total: ``_scrub.MAX_SECRET_CHARS``)."""
MAX_FILES = 5_000
_SKIP_DIRS = {"__pycache__", "node_modules", ".git", ".venv", ".pytest_cache"}


def read_texts(root: Path, *, tests: bool = False) -> list[str]:
    """The text files under ``root`` (sorted; links, binaries and cache directories skipped); with
    ``tests``, each Python file's externalised text follows it."""
    texts: list[str] = []
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
                texts.append(data.decode("utf-8", errors="replace"))
                if tests and name.endswith(".py"):
                    texts.append(plan_file(texts[-1], name).external)
            if len(texts) >= MAX_FILES:
                return texts
    return texts


def read_challenge_texts(challenge: Challenge) -> tuple[list[str], list[str]]:
    """``(secret, public)`` texts of ``challenge``."""
    tests = challenge.root / "tests"
    secret = read_texts(tests / "hidden", tests=True) + read_texts(challenge.reference)
    public = read_texts(tests / "visible", tests=True) + read_texts(challenge.starter)
    return secret, public


def secret_index(challenge: Challenge) -> SecretIndex:
    """The scrub index of ``challenge`` (built in milliseconds for the bundled challenges)."""
    secret, public = read_challenge_texts(challenge)
    return SecretIndex.build(secret, public)
