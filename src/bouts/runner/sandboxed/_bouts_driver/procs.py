"""Process plumbing inside the sandbox: subreapers, scoped sweeps, privacy from our own workers."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import time

_PR_SET_DUMPABLE = 4
_PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, value: int) -> None:
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def become_subreaper() -> None:
    """Orphans of our descendants (a test's ``setsid`` + double-fork daemon) become our children,
    so a sweep scoped to *our* children finds them without touching a parallel worker's tests."""
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def make_private() -> None:
    """Not dumpable: processes of the same uid (our workers) cannot ptrace us or open our fds."""
    _prctl(_PR_SET_DUMPABLE, 0)


def children(exclude: set[int] = frozenset()) -> list[int]:  # type: ignore[assignment]
    """Pids whose parent is this process (read from ``/proc``), minus ``exclude``."""
    me, found = os.getpid(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in exclude:
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()  # comm may hold spaces and parentheses
        if len(fields) > 1 and int(fields[1]) == me:
            found.append(int(entry))
    return found


def kill_children(exclude: set[int] = frozenset(), rounds: int = 50) -> int:  # type: ignore[assignment]
    """SIGKILL and reap every child but ``exclude``, repeating while orphans keep arriving."""
    killed = 0
    for _ in range(rounds):
        pids = children(exclude)
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in pids:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, 0)
            killed += 1
    return killed


def fork_with_retry(deadline_s: float = 2.0) -> int:
    """fork(), retrying briefly on EAGAIN: a neighbour's fork bomb may hold the process budget."""
    stop = time.monotonic() + deadline_s
    while True:
        try:
            return os.fork()
        except BlockingIOError:
            if time.monotonic() > stop:
                raise
            time.sleep(0.01)
