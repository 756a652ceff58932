"""The engine's on-disk cache: reference runs and scorecards, keyed on content, checked on read.

``Store`` is the one implementation (``_store.py``); ``results.score`` is the result cache around
``bouts.pipeline.score``. Drivers choose the directory (``default_cache_dir``); the library never
reads the environment. Design notes: docs/configuration.md#caches.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

from bouts.cache._fingerprint import engine_fingerprint
from bouts.cache._prune import PruneReport, Tally, prune, summary
from bouts.cache._store import Store, cache_key, private_directory

__all__ = [
    "PruneReport", "Store", "Tally", "cache_key", "default_cache_dir", "engine_fingerprint", "hash_tree",
    "private_directory", "prune", "summary",
]


def default_cache_dir(environ: Mapping[str, str]) -> Path:
    """``$BOUTS_CACHE_DIR``, else ``$XDG_CACHE_HOME/bouts``, else ``~/.cache/bouts``. Pure: the
    driver passes its environment."""
    if environ.get("BOUTS_CACHE_DIR"):
        return Path(environ["BOUTS_CACHE_DIR"]).expanduser()
    base = environ.get("XDG_CACHE_HOME") or "~/.cache"
    return Path(base).expanduser() / "bouts"


def hash_tree(h: hashlib._Hash, root: Path, base: Path) -> None:
    """Feed ``h`` every file under ``root`` in a fixed order: its path relative to ``base``, NUL, its
    bytes, NUL. What a cache key holds of a challenge's folders besides its content hash (a hash in
    ``challenge.toml`` could be stale or, in tests, a dummy)."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath) / name
            h.update(str(path.relative_to(base)).encode() + b"\0" + path.read_bytes() + b"\0")
