"""Keeping the engine's cache bounded: what it holds, and pruning it (``bouts cache info|prune``).

The cache only grows otherwise: every new submission adds a scorecard and its findings, every new
challenge version a reference run, and a changed engine never reads an entry of the old one (its
fingerprint is in every key), so after an upgrade the whole cache is dead weight. A hit touches the
entry's modification time (``Store.get``; a prepared environment's folder when a run uses it), so
the oldest are the least recently used.

What counts as an entry: a ``Store`` file, ``<namespace>/<2 hex>/<64 hex>.json`` at any depth
(``llm/answers/…`` is the answer cache's own store), the folder an entry keeps beside it under its
key (``datasets/<64 hex>/``: an imported dataset's challenges), and a prepared dependency
environment, ``deps/<ecosystem>/<64 hex>/``; folders are removed whole. Leftovers: a ``Store``
temporary file (``*.tmp``) or a staging folder (``.building-*``, ``.import-*``) older than
:data:`LEFTOVER_S` (what a killed writer left), a link where an entry belongs (never served:
entries are opened without following links), and the files earlier layouts wrote that nothing
reads any more (``oracle-<key>.json`` at the top). Nothing else is touched: not the caches'
``secret`` files, not a file of another user, no link is followed, and no folder used in the last
:data:`IN_USE_S` (a running score or evaluation may be reading it; a file read is read whole).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

LEFTOVER_S = 3600.0
"""A temporary file or build folder this old was left by a writer that died."""
IN_USE_S = 3600.0
"""A folder used this recently (a prepared environment, a dataset's challenges) may be in use by a
running score or evaluation: never removed."""
_HEX2 = re.compile(r"[0-9a-f]{2}")
_ENTRY = re.compile(r"[0-9a-f]{64}\.json")
_ENV = re.compile(r"[0-9a-f]{64}")
_LEGACY = re.compile(r"oracle-[0-9a-f]{64}\.json")
_MAX_DEPTH = 4
"""How deep namespaces nest under the cache (``llm/answers`` is two)."""


@dataclass(frozen=True)
class Item:
    """One removable thing in the cache."""

    path: Path
    kind: str
    """The namespace (``results``, ``llm/answers``, ``deps/python`` …) or ``leftover``."""
    size: int
    mtime: float
    tree: bool = False
    """A folder (a prepared environment, a build leftover), removed whole."""


@dataclass
class Tally:
    entries: int = 0
    bytes: int = 0

    def add(self, item: Item) -> None:
        self.entries += 1
        self.bytes += item.size


@dataclass
class PruneReport:
    """What a prune removed and kept, per kind (``dry_run``: what it would remove)."""

    removed: dict[str, Tally] = field(default_factory=dict)
    kept: dict[str, Tally] = field(default_factory=dict)
    dry_run: bool = False

    def total(self, which: str) -> Tally:
        out = Tally()
        for tally in (self.removed if which == "removed" else self.kept).values():
            out.entries += tally.entries
            out.bytes += tally.bytes
        return out


def survey(root: Path, *, now: float | None = None) -> list[Item]:
    """Every entry and leftover under the cache ``root`` (none if it does not exist), oldest first."""
    now = time.time() if now is None else now
    found: list[Item] = []
    try:
        top = root.lstat()
    except FileNotFoundError:
        return []
    if not stat.S_ISDIR(top.st_mode):
        return []
    for name in _names(root):
        path = root / name
        st = _lstat(path)
        if st is None:
            continue
        if _LEGACY.fullmatch(name) and _mine(st):
            found.append(Item(path, "leftover", st.st_size, st.st_mtime))
        elif stat.S_ISDIR(st.st_mode):  # a namespace, or deps/ (deps/<ecosystem>/<64 hex>/ are folders)
            found += _store_items(path, name, now, 1)
    return sorted(found, key=lambda i: i.mtime)


def prune(
    root: Path,
    *,
    max_bytes: int | None = None,
    older_than_s: float | None = None,
    dry_run: bool = False,
    now: float | None = None,
) -> PruneReport:
    """Remove leftovers, every entry unused for ``older_than_s``, then the least recently used until
    the entries weigh at most ``max_bytes``. A folder used in the last :data:`IN_USE_S` stays
    whatever the limits. ``dry_run``: remove nothing, report the same."""
    now = time.time() if now is None else now
    items = survey(root, now=now)
    report = PruneReport(dry_run=dry_run)
    total = sum(i.size for i in items if i.kind != "leftover")
    for item in items:  # oldest first
        protected = item.tree and item.kind != "leftover" and now - item.mtime < IN_USE_S
        drop = item.kind == "leftover" or (
            not protected
            and (
                (older_than_s is not None and now - item.mtime > older_than_s)
                or (max_bytes is not None and total > max_bytes)
            )
        )
        if drop and (dry_run or _remove(item)):
            report.removed.setdefault(item.kind, Tally()).add(item)
            if item.kind != "leftover":
                total -= item.size
        else:
            report.kept.setdefault(item.kind, Tally()).add(item)
    return report


def summary(root: Path, *, now: float | None = None) -> dict[str, Tally]:
    """Entries and bytes per kind (``bouts cache info``)."""
    out: dict[str, Tally] = {}
    for item in survey(root, now=now):
        out.setdefault(item.kind, Tally()).add(item)
    return out


def _names(path: Path) -> list[str]:
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return path.lstat()
    except OSError:
        return None


def _mine(st: os.stat_result) -> bool:
    return st.st_uid == os.getuid()


def _store_items(folder: Path, kind: str, now: float, depth: int) -> Iterator[Item]:
    """A namespace's entries (``<2 hex>/<64 hex>.json``), the folders named by a key (``<64 hex>/``:
    an imported dataset's challenges beside their entry, a prepared environment in
    ``deps/<ecosystem>/``), the staging folders a killed writer left (``.import-*``, ``.building-*``),
    and namespaces nested in it."""
    for name in _names(folder):
        path = folder / name
        st = _lstat(path)
        if st is None or not stat.S_ISDIR(st.st_mode):
            continue  # a file here is no entry (a store's secret, say): left alone
        if _HEX2.fullmatch(name):
            yield from _bucket(path, kind, now)
        elif _ENV.fullmatch(name) and _mine(st):
            # Used when its entry is (a hit touches the entry): removed with it, least recent first.
            entry = _lstat(folder / name[:2] / f"{name}.json")
            used = max(st.st_mtime, entry.st_mtime) if entry is not None else st.st_mtime
            yield Item(path, kind, _tree_size(path), used, tree=True)
        elif name.startswith((".import-", ".building-")) and _mine(st):
            if now - st.st_mtime > LEFTOVER_S:
                yield Item(path, "leftover", _tree_size(path), st.st_mtime, tree=True)
        elif depth < _MAX_DEPTH:
            yield from _store_items(path, f"{kind}/{name}", now, depth + 1)


def _bucket(folder: Path, kind: str, now: float) -> Iterator[Item]:
    for name in _names(folder):
        path = folder / name
        st = _lstat(path)
        if st is None or not _mine(st):
            continue
        if stat.S_ISLNK(st.st_mode) and _ENTRY.fullmatch(name):
            yield Item(path, "leftover", 0, st.st_mtime)  # never served (opened without following links)
        elif stat.S_ISREG(st.st_mode) and _ENTRY.fullmatch(name):
            yield Item(path, kind, st.st_size, st.st_mtime)
        elif stat.S_ISREG(st.st_mode) and name.endswith(".tmp") and now - st.st_mtime > LEFTOVER_S:
            yield Item(path, "leftover", st.st_size, st.st_mtime)


def _tree_size(root: Path) -> int:
    total = 0
    for dirpath, _dirnames, filenames in os.walk(root):  # links to folders are not followed
        for name in filenames:
            st = _lstat(Path(dirpath) / name)
            total += st.st_size if st is not None and stat.S_ISREG(st.st_mode) else 0
    return total


def _remove(item: Item) -> bool:
    """Remove ``item`` (a folder whole, links inside removed, never followed); False if it could not be."""
    try:
        if item.tree:
            for dirpath, dirnames, _ in os.walk(item.path):  # the tree is read-only for the sandbox
                os.chmod(dirpath, 0o700)
                for name in dirnames:
                    sub = os.path.join(dirpath, name)
                    if not os.path.islink(sub):
                        os.chmod(sub, 0o700)
            shutil.rmtree(item.path)
        else:
            item.path.unlink()
    except OSError:
        return False
    return True
