"""Build the ``SubmissionView`` (``bouts.models.view``): the submission read once, at the pipeline edge.

One walker for every judge: regular files only, links listed and never followed (``O_NOFOLLOW`` on
each open closes the window between the walk and the read; ``O_NONBLOCK`` keeps a fifo from blocking),
one size cap, one file cap, nothing skipped by folder name.

What is excluded from judging is decided here, once, for every judge, and nothing the submission
claims of itself excludes a file that runs: third-party code the challenge declares vendored
(``vendored`` globs in ``challenge.toml``: the challenge's word), an npm ``package-lock.json`` listing
``node_modules/<name>`` (deleted by the JavaScript runner in any case), and what the runner deletes
before a test runs: compiled code (``.pyc``, ``__pycache__/``, native extension modules; the integrity
judge still flags it) and the folders the language's runner replaces with the challenge's prepared
dependencies (``node_modules/``; Python's ``site-packages/`` and ``dist-packages/``, an environment
left in the submission). Everything else the submission ships is judged wherever it sits:
``build/``, ``dist/``, ``vendor/`` are folders like any other, and a ``*.dist-info/RECORD`` outside an
environment's ``site-packages/`` excludes nothing (it is the submission's to write, and what it lists
would run).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from bouts.languages import language as support
from bouts.languages import source_suffixes
from bouts.models.challenge import Challenge
from bouts.models.view import (
    MAX_FILE_BYTES,
    MAX_FILES,
    Exclusion,
    FileTree,
    SubmissionView,
    ViewFile,
    glob_matches,
    is_bytecode,
)


def read_file_tree(root: Path | None) -> FileTree:
    """Every regular file under ``root`` (sorted, each read up to ``MAX_FILE_BYTES``) and every link."""
    if root is None or not root.is_dir() or root.is_symlink():
        return FileTree(present=False)
    rels: list[str] = []
    links: dict[str, str] = {}
    truncated = False
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        kept = []
        for name in sorted(dirnames):
            if (here / name).is_symlink():
                links[(here / name).relative_to(root).as_posix()] = _target(here / name)
            else:
                kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            rel = (here / name).relative_to(root).as_posix()
            if (here / name).is_symlink():
                links[rel] = _target(here / name)
            else:
                rels.append(rel)
    rels.sort()
    if len(rels) > MAX_FILES:
        rels, truncated = rels[:MAX_FILES], True
    files = {rel: read_one(root, rel) for rel in rels}
    return FileTree(files, dict(sorted(links.items())), truncated)


def _target(link: Path) -> str:
    """A link's target as written (read, never followed)."""
    try:
        return os.readlink(link)
    except OSError:
        return ""


def read_one(root: Path, rel: str) -> ViewFile:
    """Read ``root/rel`` refusing links, fifos and devices, up to ``MAX_FILE_BYTES``."""
    try:
        fd = os.open(root / rel, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        why = "a symlink (not followed)" if exc.errno == errno.ELOOP else f"unreadable ({exc.strerror or exc})"
        return ViewFile(rel, 0, None, why)
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(handle.fileno())
        if not stat.S_ISREG(st.st_mode):
            return ViewFile(rel, 0, None, "not a regular file")
        data = handle.read(MAX_FILE_BYTES + 1)
        digest = hashlib.sha256(data)
        size = len(data)
        if size > MAX_FILE_BYTES:  # hash the rest without keeping it
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
                size += len(chunk)
            return ViewFile(rel, size, data[:MAX_FILE_BYTES], truncated=True, sha256=digest.hexdigest())
    return ViewFile(rel, size, data, sha256=digest.hexdigest())


def build_view(challenge: Challenge, code_dir: Path | None, deliverables_dir: Path | None = None) -> SubmissionView:
    """Read the submission's code and deliverables and the challenge's starter, once."""
    spec = challenge.spec
    return read_view(code_dir, challenge.starter, deliverables_dir, protected=tuple(spec.protected),
                     vendored=tuple(spec.vendored), language=spec.language)


def read_view(code_dir: Path | None, starter_dir: Path | None, deliverables_dir: Path | None = None, *,
              protected: tuple[str, ...] = (), vendored: tuple[str, ...] = (), language: str = "python",
              ) -> SubmissionView:
    """``build_view`` from directories and the challenge's settings (for tools and tests)."""
    code = read_file_tree(code_dir)
    deliverables = read_file_tree(deliverables_dir) if deliverables_dir is not None else None
    if deliverables is not None and not deliverables.present:
        deliverables = None
    return SubmissionView(
        code=code, starter=read_file_tree(starter_dir), deliverables=deliverables, protected=protected,
        excluded=(*not_run(code, language), *_vendored(code, vendored)), language_suffixes=source_suffixes(),
    )  # fmt: skip


def not_run(code: FileTree, language: str) -> tuple[Exclusion, ...]:
    """What the runner deletes before a test runs, so nothing in it is the graded solution: bytecode,
    and the folders the language's runner replaces (``LanguageSupport.replaced_by_runner``)."""
    out: list[Exclusion] = []
    caches = tuple(rel for rel in code.files if is_bytecode(rel))
    if caches:
        out.append(Exclusion("__pycache__/, *.pyc, *.so", "compiled code (bytecode, native extension modules): "
                             "deleted by the runner before the tests run (the integrity judge flags it)", caches,
                             kind="bytecode"))
    for folder in support(language).replaced_by_runner:
        members = tuple(rel for rel in (*code.files, *code.links)
                        if folder in rel.split("/")[:-1] and rel not in caches)
        if members:
            out.append(Exclusion(f"{folder}/", "deleted by the runner, which provides the challenge's prepared "
                                 "dependencies instead", members, kind="not-run"))
    return tuple(out)


def _vendored(code: FileTree, declared: Iterable[str]) -> tuple[Exclusion, ...]:
    """Third-party code in ``code`` left out of judging, with the reason (module docstring); a file is
    excluded once, by the first reason that takes it."""
    out: list[Exclusion] = []
    taken: set[str] = set()
    for pattern in declared:
        hits = tuple(rel for rel in code.files if glob_matches(pattern, rel) and rel not in taken)
        if hits:
            taken.update(hits)
            out.append(Exclusion(pattern, "declared vendored by the challenge (challenge.toml vendored)", hits))
    for found in _npm_locked(code):
        members = tuple(rel for rel in found.members if rel not in taken)
        if members:
            taken.update(members)
            out.append(Exclusion(found.path, found.reason, members))
    return tuple(out)


def _npm_locked(code: FileTree) -> list[Exclusion]:
    """``node_modules/<pkg>/`` folders a ``package-lock.json`` (lockfile v2/v3 ``packages``) lists."""
    out: list[Exclusion] = []
    for lock in code.files.values():
        if lock.rel.rsplit("/", 1)[-1] != "package-lock.json" or lock.text is None:
            continue
        try:
            packages = json.loads(lock.text).get("packages", {})
        except (ValueError, AttributeError, RecursionError):
            continue
        if not isinstance(packages, dict):
            continue
        base = lock.rel.rsplit("/", 1)[0] + "/" if "/" in lock.rel else ""
        for key, meta in packages.items():
            if not (isinstance(key, str) and key.startswith("node_modules/") and isinstance(meta, dict)):
                continue
            if ".." in key.split("/") or meta.get("link"):
                continue
            folder = f"{base}{key}/"
            name = f"{meta.get('name', key.rsplit('node_modules/', 1)[-1])}@{meta.get('version', '?')}"
            # An npm lockfile vouches for JavaScript, never for Python a test could import from the
            # folder (``from node_modules.pkg import impl``): that is the submission's and is judged.
            members = tuple(rel for rel in code.files if rel.startswith(folder) and not rel.endswith(".py"))
            out.append(Exclusion(folder, f"npm package {name}, listed in {lock.rel}", members))
    # The deepest folder first, so a nested package is named for itself, not for its parent.
    return sorted(out, key=lambda e: (-e.path.count("/"), e.path))
