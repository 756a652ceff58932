"""Assemble the grading workspace: the submission's source, minus what could steer the run,
plus the challenge's pristine tests.

Principle (issue 3): the grader never trusts bytes the graded code can shape. Anything that
pytest or Python would execute or obey before our driver is in control is removed and reported.
"""

from __future__ import annotations

import os
import random
import re
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path

from bouts.errors import SubmissionError
from bouts.loading import SKIP_DIRS
from bouts.models.view import PYTHON_COMPILED, python_archive
from bouts.runner._integrity import canary_source
from bouts.sandbox import WORKSPACE, Mount

STEERING_NAMES = frozenset(
    {
        "conftest.py",
        "pytest.ini",
        "tox.ini",
        "setup.cfg",
        "setup.py",
        "noxfile.py",
        "pytest.toml",
        ".pytest.toml",
        "sitecustomize.py",
        "usercustomize.py",
    }
)
"""Files that configure or hook pytest/Python when merely present on a path."""

STEERING_SUFFIXES = (*PYTHON_COMPILED, ".pth")
"""Planted compiled code (bytecode, native extension modules: each can shadow a source file the
judges read) and path hooks (run code at interpreter start)."""

MAX_FILES = 20_000
"""A submission tree larger than this is refused rather than copied."""


def _steers(rel: str, name: str, is_dir: bool) -> bool:
    if is_dir:
        return name == "__pycache__"
    return name in STEERING_NAMES or name.endswith(STEERING_SUFFIXES)


def _archive(path: Path) -> bool:
    """A zip archive holding Python modules (``models.view.python_archive``), whatever its name: on
    ``sys.path`` it is imported by ``zipimport``, and no judge reads inside it. Removed like compiled code."""
    try:
        with path.open("rb") as f:
            return python_archive(f)
    except OSError:
        return False


def assemble_workspace(code_dir: Path, tests_dir: Path, dest: Path, replaced: Iterable[str] = ()) -> list[str]:
    """Copy ``code_dir`` into ``dest`` without steering files, then the pristine ``tests_dir``.

    The submission's own ``tests`` (a folder, or anything else by that name) is replaced wholesale.
    Symlinks are never followed or copied, ``code_dir`` itself included. What is copied is what the
    submission's content hash covers (``loading._common.walk_tree``) less what is removed: a folder
    the hash leaves out is removed too (``.pytest_cache``: not reported, a local test run's leftover),
    as is every folder named in ``replaced`` (the language's ``replaced_by_runner``: the judges leave
    its files out because they never run; not reported either). Returns the removed paths (relative to ``code_dir``,
    ``/``-separated, sorted); a removed directory is listed once with a trailing ``/``. Raises
    ``SubmissionError`` if ``code_dir`` is missing, a link or absurdly large, or a file cannot be
    copied (a path too long for the workspace).
    """
    if code_dir.is_symlink():
        raise SubmissionError("is a symbolic link (links are never followed)", file=str(code_dir))
    if not code_dir.is_dir():
        raise SubmissionError("the submission has no code directory", file=str(code_dir))
    removed: list[str] = []
    copied = 0
    dropped = frozenset(replaced) | SKIP_DIRS
    dest.mkdir(parents=True, exist_ok=True)
    for dirpath, dirnames, filenames in os.walk(code_dir):
        here = Path(dirpath)
        rel_dir = here.relative_to(code_dir)
        keep_dirs = []
        for name in sorted(dirnames):
            rel = (rel_dir / name).as_posix()
            path = here / name
            if rel == "tests":
                continue  # replaced wholesale by the pristine tests below
            if path.is_symlink():
                removed.append(rel)
            elif _steers(rel, name, is_dir=True):
                removed.append(rel + "/")
            elif name in dropped:
                continue
            else:
                keep_dirs.append(name)
                try:
                    (dest / rel).mkdir()
                except OSError as exc:
                    raise _cannot_copy(path, exc) from exc
        dirnames[:] = keep_dirs
        for name in sorted(filenames):
            rel = (rel_dir / name).as_posix()
            path = here / name
            if rel == "tests" or path.is_symlink() or not path.is_file() or _steers(rel, name, is_dir=False) \
                    or _archive(path):
                removed.append(rel)
                continue
            copied += 1
            if copied > MAX_FILES:
                raise SubmissionError(f"the code tree has more than {MAX_FILES} files", file=str(code_dir))
            try:
                shutil.copyfile(path, dest / rel, follow_symlinks=False)
            except OSError as exc:
                raise _cannot_copy(path, exc) from exc
            if rel == "pyproject.toml":
                removed += strip_pytest_tables(dest / rel)
    if tests_dir.is_dir():
        # The challenge's tests are trusted, including their own conftest.py files; copy them as
        # files (links dereferenced inside the challenge are the author's business).
        shutil.copytree(tests_dir, dest / "tests", symlinks=False, ignore=shutil.ignore_patterns("__pycache__"))
    return sorted(removed)


def write_generated(workspace: Path, generated: Mapping[str, str] | None) -> None:
    """Write the engine's generated test files (path checked by the runner → source) into the
    workspace, after the pristine tests: nothing the submission holds can replace them."""
    for rel, text in (generated or {}).items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(text, encoding="utf-8")


def _cannot_copy(path: Path, exc: OSError) -> SubmissionError:
    return SubmissionError(f"cannot be copied into the workspace: {exc.strerror or exc}", file=str(path))


_TABLE = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")


def strip_pytest_tables(pyproject: Path) -> list[str]:
    """Drop every ``[tool.pytest...]`` table from a copied ``pyproject.toml``; return what went.

    pytest is started with ``-c /dev/null`` and would ignore them anyway; removing them too means
    no future pytest version or plugin can read them (defence in depth, and it is reported).
    """
    kept: list[str] = []
    gone: list[str] = []
    skipping = False
    for line in pyproject.read_text(errors="replace").splitlines(keepends=True):
        header = _TABLE.match(line)
        if header:
            name = header.group(1).replace('"', "").replace("'", "").replace(" ", "")
            skipping = name == "tool.pytest" or name.startswith("tool.pytest.")
            if skipping:
                gone.append(f"pyproject.toml [{name}]")
        if not skipping:
            kept.append(line)
    if gone:
        pyproject.write_text("".join(kept))
    return gone


def plant_canaries(workspace: Path, test_files: Iterable[str], rng: random.Random) -> list[str]:
    """Append canary tests to the workspace's copies of ``test_files``; return their node ids."""
    ids: list[str] = []
    for rel in test_files:
        path = workspace / rel
        if not path.is_file() or path.suffix != ".py":
            continue
        text, names = canary_source(path.read_text(errors="replace"), rng)
        if names:
            with path.open("a") as fh:
                fh.write(text)
            ids += [f"{rel}::{name}" for name in names]
    return ids


def seal_tests(workspace: Path, outside: Path, workdir: str = WORKSPACE) -> list[Mount]:
    """Move the assembled ``tests/`` (pristine tests, canaries, generated tests) out of the
    workspace copy and return the read-only mount that puts it back at ``/workspace/tests``.

    The graded code runs as the same user as the test driver; were the tests part of the
    writable copy, code imported while collecting one test file could rewrite the files not yet
    collected (or their canaries). Mounted read-only on top of the copy, they cannot be edited,
    replaced or renamed. Isolated sandboxes only: the ``none`` backend cannot mount.
    """
    tests = workspace / "tests"
    if not tests.is_dir():
        return []
    shutil.move(tests, outside)
    return [Mount(outside, f"{workdir}/tests")]
