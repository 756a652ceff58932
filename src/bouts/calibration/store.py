"""Where review items live: the ``ReviewStore`` contract and a JSON-file implementation.

The service plugs its database in by implementing :class:`ReviewStore`; the CLI uses
:class:`JsonReviewStore` on a local directory. Both keep the same contract:

- ``get`` returns the item or None; ``list`` returns items sorted by id, optionally filtered;
- ``put(item, expected_version=v)`` stores ``item`` only if the stored item's version (its history
  length) is still ``v`` (``None``: the item must not exist yet), else raises
  :class:`ReviewConflictError`: two reviewers deciding at once never silently overwrite each other;
- a stored item's history is only ever extended (``put`` refuses a history that is not an extension).
"""

from __future__ import annotations

import fcntl
import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

from pydantic import ValidationError

from bouts.calibration.review import ReviewError, ReviewItem, Status
from bouts.errors import InputError


class ReviewConflictError(ReviewError):
    """The item changed since it was read: read it again and retry."""


class ReviewStore(Protocol):
    def get(self, item_id: str) -> ReviewItem | None: ...

    def put(self, item: ReviewItem, *, expected_version: int | None) -> None: ...

    def list(self, *, challenge: str | None = None, status: Status | None = None) -> list[ReviewItem]: ...


def check_put(stored: ReviewItem | None, item: ReviewItem, expected_version: int | None) -> None:
    """The shared ``put`` rules (version match, append-only history). Pure."""
    version = None if stored is None else stored.version
    if version != expected_version:
        raise ReviewConflictError(f"expected version {expected_version}, stored {version}", field=item.id)
    if stored is not None and item.history[: stored.version] != stored.history:
        raise ReviewError("history is append-only: the stored events must be kept as they are", field=item.id)


def _matches(item: ReviewItem, challenge: str | None, status: Status | None) -> bool:
    return (challenge is None or item.challenge == challenge) and (status is None or item.status == status)


_SAFE = re.compile(r"[^A-Za-z0-9._-]")


class JsonReviewStore:
    """One ``<id>.json`` per item in ``root``; writes are atomic (temp file + rename) and serialised
    by an advisory lock on ``root/.lock`` (safe across processes on one machine)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def _path(self, item_id: str) -> Path:
        return self.root / f"{_SAFE.sub('_', item_id)}.json"

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / ".lock", "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def _read(self, path: Path) -> ReviewItem:
        try:
            return ReviewItem.model_validate_json(path.read_text(encoding="utf-8"))
        except ValidationError as e:
            raise InputError(f"not a review item: {e.errors()[0]['msg']}", file=str(path)) from e

    def get(self, item_id: str) -> ReviewItem | None:
        path = self._path(item_id)
        return self._read(path) if path.is_file() else None

    def put(self, item: ReviewItem, *, expected_version: int | None) -> None:
        with self._locked():
            check_put(self.get(item.id), item, expected_version)
            fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.write(item.model_dump_json(by_alias=True, indent=2))
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, self._path(item.id))
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise

    def list(self, *, challenge: str | None = None, status: Status | None = None) -> list[ReviewItem]:
        if not self.root.is_dir():
            return []
        items = [self._read(p) for p in sorted(self.root.glob("*.json")) if not p.name.startswith(".")]
        return [i for i in items if _matches(i, challenge, status)]


class MemoryReviewStore:
    """The in-tree fake: the same contract in a dict (tests, and the service's unit tests)."""

    def __init__(self) -> None:
        self._items: dict[str, ReviewItem] = {}

    def get(self, item_id: str) -> ReviewItem | None:
        return self._items.get(item_id)

    def put(self, item: ReviewItem, *, expected_version: int | None) -> None:
        check_put(self._items.get(item.id), item, expected_version)
        self._items[item.id] = item

    def list(self, *, challenge: str | None = None, status: Status | None = None) -> list[ReviewItem]:
        return sorted((i for i in self._items.values() if _matches(i, challenge, status)), key=lambda i: i.id)
