"""The engine's on-disk cache: reference runs and scorecards, keyed on content, checked on read.

``Store`` is the one implementation (``_store.py``); ``results.score`` is the result cache around
``bouts.pipeline.score``. Drivers choose the directory (``default_cache_dir``); the library never
reads the environment. Design notes: docs/configuration.md#caches.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from bouts.cache._fingerprint import engine_fingerprint
from bouts.cache._store import Store, cache_key

__all__ = ["Store", "cache_key", "default_cache_dir", "engine_fingerprint"]


def default_cache_dir(environ: Mapping[str, str]) -> Path:
    """``$BOUTS_CACHE_DIR``, else ``$XDG_CACHE_HOME/bouts``, else ``~/.cache/bouts``. Pure: the
    driver passes its environment."""
    if environ.get("BOUTS_CACHE_DIR"):
        return Path(environ["BOUTS_CACHE_DIR"]).expanduser()
    base = environ.get("XDG_CACHE_HOME") or "~/.cache"
    return Path(base).expanduser() / "bouts"
