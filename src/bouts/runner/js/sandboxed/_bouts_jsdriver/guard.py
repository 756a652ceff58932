"""Keep the grader-owned files of the workspace pristine for the whole run (inotify).

Every test process runs submission code with write access to the workspace, and later processes
read the test files, ``package.json``, ``node_modules`` and the TypeScript/Babel configs again.
A test that rewrote them (or left a detached process doing it) would steer every later test:
tests with the same names and empty bodies, a fake framework behind the ``node_modules`` link.
The supervisor watches those paths from before the first test process until the end; any
change is reported as tampering and voids the run. inotify sees every write, whichever process
makes it and however briefly the change lasts. The queue is drained by a thread, so a test that
writes many other files does not overflow it (an overflow is reported too: nothing is assumed).
"""

from __future__ import annotations

import ctypes
import os
import re
import select
import struct
import threading

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF, IN_Q_OVERFLOW, IN_IGNORED = 0x400, 0x800, 0x4000, 0x8000
IN_DONT_FOLLOW, IN_CLOEXEC, IN_NONBLOCK = 0x2000000, 0o2000000, 0o4000
CHANGES = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
_EVENT = struct.Struct("iIII")

GRADER_OWNED = re.compile(
    r"^(tests|node_modules|package\.json|package-lock\.json|[tj]sconfig(\..*)?\.json|"
    r"babel\.config\.[cm]?[jt]s(on)?|\.babelrc(\.[cm]?js(on)?)?|\.swcrc)$"
)
"""Names at the workspace root that tests, frameworks or loaders read: never the submission's to touch
mid-run (its own ``package.json``/configs were already replaced when the workspace was assembled)."""


class Guard:
    """Watches ``tests/`` (every directory in it) and the grader-owned names at the workspace root."""

    def __init__(self, workspace: str) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._fd = self._libc.inotify_init1(IN_CLOEXEC | IN_NONBLOCK)
        if self._fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self._dirs: dict[int, str] = {}
        self._lock = threading.Lock()
        self._changes: list[str] = []
        self._add(workspace, "", CHANGES | IN_DELETE_SELF | IN_MOVE_SELF)
        tests = os.path.join(workspace, "tests")
        for dirpath, _dirnames, _files in os.walk(tests):
            rel = os.path.relpath(dirpath, workspace)
            self._add(dirpath, rel, CHANGES | IN_DELETE_SELF | IN_MOVE_SELF | IN_DONT_FOLLOW)
        self._stop_r, self._stop_w = os.pipe()
        self._thread = threading.Thread(target=self._drain, name="bouts-guard", daemon=True)
        self._thread.start()

    def _add(self, path: str, rel: str, mask: int) -> None:
        wd = self._libc.inotify_add_watch(self._fd, os.fsencode(path), mask)
        if wd < 0:
            raise OSError(ctypes.get_errno(), f"inotify_add_watch {path}")
        self._dirs[wd] = rel

    def _drain(self) -> None:
        while True:
            ready, _, _ = select.select([self._fd, self._stop_r], [], [])
            if self._fd in ready:
                try:
                    data = os.read(self._fd, 1 << 16)
                except BlockingIOError:
                    data = b""
                self._parse(data)
            if self._stop_r in ready:
                return

    def _parse(self, data: bytes) -> None:
        found: list[str] = []
        offset = 0
        while offset + _EVENT.size <= len(data):
            wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
            raw = data[offset + _EVENT.size : offset + _EVENT.size + length]
            offset += _EVENT.size + length
            name = raw.split(b"\0", 1)[0].decode(errors="replace")
            if mask & IN_Q_OVERFLOW:
                found.append("the workspace watch overflowed (changes may have been missed)")
                continue
            if mask & IN_IGNORED:
                continue
            where = self._dirs.get(wd)
            if where is None:
                continue
            if where == "" and not (mask & (IN_DELETE_SELF | IN_MOVE_SELF)) and not GRADER_OWNED.match(name):
                continue  # the submission's own files at the root: its business
            found.append(os.path.join(where, name) if name else (where or "the workspace"))
        if found:
            with self._lock:
                self._changes.extend(found)

    def take(self) -> list[str]:
        """Grader-owned paths changed since the last call (each named once)."""
        with self._lock:
            out, self._changes = list(dict.fromkeys(self._changes)), []
        return out

    def close(self) -> list[str]:
        """Stop watching; the changes not yet taken."""
        os.write(self._stop_w, b"x")
        self._thread.join(timeout=2.0)
        return self.take()
