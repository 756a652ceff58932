"""The engine's one on-disk cache: content-addressed JSON entries, written atomically, checked on read.

Two kinds of entry share it: reference-solution runs (``bouts.runner``, namespace ``reference``)
and whole scorecards (``bouts.result_cache``, namespace ``results``). Whoever can write a cache
decides what is expected of a submission, or what it scored, so an entry is served only if:

- the cache directory is the engine user's own and nobody else can write it (checked when opened);
- the entry file is a regular file of that user that nobody else can write, under the size cap;
- it names the key it was asked for (a renamed entry of another submission is refused), and
- its MAC, an HMAC-SHA256 under the cache's own secret, matches: an entry written without the
  secret (copied from another machine, or forged) is refused.

Anything else is a miss: the work is done again and the entry rewritten. A key is the sha256 of
the namespace, the engine's fingerprint (``bouts.cache._fingerprint``: its code, its installed
tools) and the caller's material, so a changed engine never reads an old entry. Design notes:
docs/configuration.md#caches.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bouts.cache._fingerprint import engine_fingerprint
from bouts.errors import InfrastructureError

SCHEMA = "bouts.cache/1"
MAX_ENTRY_BYTES = 64 * 1024 * 1024
"""An entry larger than this is refused unread (a scorecard is a few hundred kilobytes at most)."""
SECRET_FILE = "secret"


def cache_key(namespace: str, material: Mapping[str, Any], *, engine_keyed: bool = True) -> str:
    """sha256 over the namespace, the engine fingerprint (unless not ``engine_keyed``) and
    ``material`` (JSON, keys sorted)."""
    head: dict[str, Any] = {"namespace": namespace, "material": material}
    if engine_keyed:
        head["engine"] = engine_fingerprint()
    text = json.dumps(head, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class Store:
    """One namespace of a cache directory. Build with :meth:`open`."""

    def __init__(self, root: Path, namespace: str, secret: bytes, engine_keyed: bool = True) -> None:
        self.root = root
        self.namespace = namespace
        self._secret = secret
        self.engine_keyed = engine_keyed

    @classmethod
    def open(cls, root: Path, namespace: str, *, engine_keyed: bool = True) -> Store:
        """The namespace ``namespace`` of the cache at ``root`` (created 0700 if missing).

        ``engine_keyed=False`` leaves the engine's fingerprint out of the keys: only for what does not
        depend on the engine's code (an LLM's answer to a prompt whose every byte, and the prompt
        version, are in the material); every check on read stays.

        Raises ``InfrastructureError`` naming ``root`` (the engine's environment is wrong, never the
        submission) when it is not a directory of this user that only this user can write: a cache
        others can write would let them decide scores.
        """
        root = private_directory(Path(root).expanduser())
        return cls(root, namespace, _secret(root), engine_keyed)

    def path(self, key: str) -> Path:
        return self.root / self.namespace / key[:2] / f"{key}.json"

    def key(self, material: Mapping[str, Any]) -> str:
        return cache_key(self.namespace, material, engine_keyed=self.engine_keyed)

    def get(self, material: Mapping[str, Any]) -> Any | None:
        """The payload stored under ``material``, or None (a miss: absent, unreadable, or refused)."""
        key = self.key(material)
        path = self.path(key)
        try:  # checked through the open file (links not followed): no swap between check and read
            with os.fdopen(os.open(path, os.O_RDONLY | os.O_NOFOLLOW), "rb") as fh:
                if not _trusted(os.fstat(fh.fileno())):
                    return None
                raw = fh.read(MAX_ENTRY_BYTES + 1)
        except OSError:
            return None
        if len(raw) > MAX_ENTRY_BYTES:
            return None
        try:
            entry = json.loads(raw)
            if not isinstance(entry, dict) or entry.get("schema") != SCHEMA or entry.get("key") != key:
                return None
            text = entry["payload"]
            if not isinstance(text, str) or not hmac.compare_digest(str(entry.get("mac", "")), self._mac(key, text)):
                return None
            payload = json.loads(text)
        except (ValueError, KeyError, TypeError):
            return None
        with contextlib.suppress(OSError):  # used now: the last a pruning LRU removes (bouts.cache._prune)
            os.utime(path, follow_symlinks=False)
        return payload

    def put(self, material: Mapping[str, Any], payload: Any) -> bool:
        """Store ``payload`` (JSON-able) under ``material``; atomic: a reader never sees half an entry.
        False when it could not be written (a full or read-only disk costs a future run, never a score)."""
        key = self.key(material)
        path = self.path(key)
        text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
        entry = {"schema": SCHEMA, "key": key, "namespace": self.namespace, "payload": text,
                 "mac": self._mac(key, text)}  # fmt: skip
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    json.dump(entry, out)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError:
            return False
        return True

    def _mac(self, key: str, text: str) -> str:
        return hmac.new(self._secret, f"{self.namespace}\0{key}\0{text}".encode(), hashlib.sha256).hexdigest()


def private_directory(root: Path, *, create: bool = True) -> Path:
    """``root`` (made 0700 with its parents if missing and ``create``), checked to be a directory of
    this user that nobody else can write, not a link. Raises ``InfrastructureError`` naming it
    otherwise: the engine's environment is wrong, never the submission, and whatever others can
    write in an engine cache decides a score."""
    try:
        if create:
            root.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = root.lstat()
    except OSError as exc:
        verb = "create" if create else "use"
        raise InfrastructureError(f"cannot {verb} the cache directory: {exc.strerror}", file=str(root)) from None
    if not stat.S_ISDIR(st.st_mode):
        raise InfrastructureError("the cache must be a directory (not a link or a file)", file=str(root))
    if st.st_uid != os.getuid() or st.st_mode & 0o022:
        raise InfrastructureError(
            "the cache directory must belong to this user and be writable by nobody else (an entry "
            "anyone can write decides a score): chmod go-w it or delete it (the engine makes it again), "
            "or choose another --cache-dir",
            file=str(root),
        )
    return root


def _trusted(st: os.stat_result) -> bool:
    """A regular file of this user that nobody else can write."""
    return stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o022


def _secret(root: Path) -> bytes:
    """The cache's MAC secret: made once (0600, published atomically), then read and checked."""
    path = root / SECRET_FILE
    for _ in range(2):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except FileNotFoundError:
            _make_secret(root, path)
            continue
        except OSError as exc:
            raise InfrastructureError(f"cannot read the cache's secret: {exc.strerror}", file=str(path)) from None
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            text = fh.read(200).decode("ascii", "replace").strip()
        if not _trusted(st) or st.st_mode & 0o044 or len(text) != 64:
            raise InfrastructureError(
                "the cache's secret must be a 0600 file of this user holding 64 hex digits; delete it "
                "(the cache is then rebuilt) or choose another --cache-dir",
                file=str(path),
            )
        try:
            return bytes.fromhex(text)
        except ValueError:
            raise InfrastructureError("the cache's secret is not hex; delete it", file=str(path)) from None
    raise InfrastructureError("the cache's secret could not be created", file=str(path))


def _make_secret(root: Path, path: Path) -> None:
    fd, tmp = tempfile.mkstemp(dir=root, prefix=".secret-")  # 0600
    try:
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(secrets.token_hex(32) + "\n")
        with contextlib.suppress(FileExistsError):  # published only if absent: one secret, first use wins
            os.link(tmp, path)
    except OSError as exc:
        raise InfrastructureError(f"cannot create the cache's secret: {exc.strerror}", file=str(path)) from None
    finally:
        Path(tmp).unlink(missing_ok=True)
