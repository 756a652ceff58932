"""The engine's fingerprint: what, besides a challenge and a submission, decides a score.

``__version__`` alone is not enough: it does not move while the engine is developed, so a cache
keyed on it would serve scores computed by older code. The fingerprint is a sha256 over

- the engine's version and every file of the installed ``bouts`` package (code, rules, the OSV
  snapshot, templates), byte for byte;
- the engine's ``tools/`` (ESLint's lock file and configs; ``node_modules`` follows the lock);
- every installed Python distribution and its version (Semgrep, Bandit, pytest, plugins, …), as the
  names of their ``*.dist-info`` folders on ``sys.path`` say;
- the Python version, and the executables the engine runs (``bwrap``, ``node``, ``docker``):
  their path, size and modification time.

Computed once per process (about 20 ms).
"""

from __future__ import annotations

import functools
import hashlib
import os
import platform
import shutil
import sys
from pathlib import Path

from bouts.version import PACKAGE_DIR, __version__

EXECUTABLES = ("bwrap", "node", "docker")


@functools.cache
def engine_fingerprint() -> str:
    """sha256 hex digest of the engine as installed (see the module docstring)."""
    h = hashlib.sha256()
    h.update(f"{__version__}\0{sys.version}\0{platform.machine()}\0".encode())
    package = PACKAGE_DIR
    _tree(h, package, skip={"__pycache__"})
    tools = package.parents[1] / "tools"
    if tools.is_dir():
        _tree(h, tools, skip={"node_modules", "__pycache__"})
    for name in _distributions():
        h.update(name.encode() + b"\0")
    for exe in EXECUTABLES:
        found = shutil.which(exe)
        if found:
            st = Path(found).resolve().stat()
            h.update(f"{exe}={found}:{st.st_size}:{st.st_mtime_ns}\0".encode())
    return h.hexdigest()


def _distributions() -> list[str]:
    """The installed distributions, by their metadata folders' names (``semgrep-1.2.3.dist-info``: name
    and version, as every installer writes them); reading each one's metadata would take 0.1 s."""
    found: set[str] = set()
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        found.update(f"{entry}/{n}" for n in names if n.endswith((".dist-info", ".egg-info")))
    return sorted(found)


def _tree(h: hashlib._Hash, root: Path, *, skip: set[str]) -> None:
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in skip)  # pruned: node_modules is never walked
        for name in sorted(files):
            if name.endswith(".pyc"):
                continue
            path = Path(folder) / name
            if path.is_file():
                rel = str(path.relative_to(root)).encode("utf-8", "surrogateescape")
                h.update(rel + b"\0" + hashlib.sha256(path.read_bytes()).digest())
