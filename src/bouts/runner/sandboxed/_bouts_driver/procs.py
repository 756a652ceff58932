"""Process plumbing inside the sandbox: subreapers, scoped sweeps, privacy from our own workers."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import signal
import sys
import threading
import time
from typing import NamedTuple, NoReturn

_PR_SET_DUMPABLE = 4
_PR_SET_CHILD_SUBREAPER = 36
_WALL = 0x40000000
"""``__WALL``: wait for every kind of child, also one cloned with an exit signal other than
``SIGCHLD`` (which plain ``waitpid``/``waitid`` do not see, and a hostile test can make)."""


def _prctl(option: int, value: int) -> None:
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def exit_fd(pid: int) -> int:
    """A descriptor that becomes readable once child ``pid`` has exited (it is left to be reaped as
    before): its pidfd, or where the kernel has no ``pidfd_open`` (gVisor answers ENOSYS) a pipe that
    a thread writes one byte to when ``waitid(WNOWAIT)`` sees the child end. Either is selected on
    and closed by the caller; neither is ever read for its content."""
    try:
        return os.pidfd_open(pid)
    except OSError as exc:
        if exc.errno != errno.ENOSYS:
            raise
    r, w = os.pipe()

    def wait() -> None:
        try:
            with contextlib.suppress(ChildProcessError, InterruptedError):
                os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
        finally:
            with contextlib.suppress(OSError):
                os.write(w, b"x")
            os.close(w)

    threading.Thread(target=wait, name=f"exit-{pid}", daemon=True).start()
    return r


def leave(code: int) -> NoReturn:
    """End this process once its work is done: its output flushed, then ``os._exit``, without the
    interpreter's finalization (the supervisor once :func:`main` returned, a worker once its last
    test reported). Finalization would free every object of the pytest the process imported: a
    write to each page of a heap that a fork had made copy-on-write, a page fault each, and nothing
    anyone reads (what the process had to say is in its pipe, which outlives it; every process it
    started is gone). The supervisor's alone was 7 % of a 200-test run's CPU (docs/benchmarks.md)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def become_subreaper(on: bool = True) -> None:
    """Orphans of our descendants (a test's ``setsid`` + double-fork daemon) become our children,
    so a sweep scoped to *our* children finds them without touching a parallel worker's tests.
    ``on=False`` gives it up (a worker, for the moment it hands a clone to the supervisor)."""
    _prctl(_PR_SET_CHILD_SUBREAPER, int(on))


def make_private() -> None:
    """Not dumpable: processes of the same uid (our workers) cannot ptrace us or open our fds."""
    _prctl(_PR_SET_DUMPABLE, 0)


class Sweep(NamedTuple):
    """What a sweep killed and reaped."""

    killed: int
    """Processes it killed (or found dead and reaped)."""
    sigsys: int
    """Of those, processes that had died of ``SIGSYS``: a system call the seccomp filter forbids."""


def parent_of(pid: int) -> int | None:
    """The parent pid of ``pid`` as ``/proc`` shows it (zombies included); ``None``: no such process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2 :].split()  # comm may hold spaces and parentheses
    return int(fields[1]) if len(fields) > 1 else None


def _parents() -> dict[int, int]:
    """pid → parent pid of every process in ``/proc`` (zombies included)."""
    found: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (ppid := parent_of(int(entry))) is not None:
            found[int(entry)] = ppid
    return found


def descendants(exclude: set[int] = frozenset()) -> tuple[list[int], list[int]]:  # type: ignore[assignment]
    """This process's descendants outside the subtrees rooted at ``exclude``: (all of them, our children)."""
    below: dict[int, list[int]] = {}
    for pid, ppid in _parents().items():
        below.setdefault(ppid, []).append(pid)
    direct = [p for p in below.get(os.getpid(), []) if p not in exclude]
    family, todo = [], list(direct)
    while todo:
        pid = todo.pop()
        family.append(pid)
        todo += [p for p in below.get(pid, []) if p not in exclude]
    return family, direct


def has_children() -> bool:
    """Whether this process has any child at all, running or dead and not yet reaped (every kind,
    ``__WALL``). The kernel tracks it for us: no ``/proc`` scan.

    No child means no descendant: every living (or unreaped) descendant has a parent that is
    itself one, up to a child of ours, and an orphan is reparented to the nearest living subreaper
    above it (we are one) before its parent can be reaped. So after a test, a worker whose test
    process has been reaped and that has no child left has nothing left to sweep.
    """
    try:
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT | _WALL)
    except ChildProcessError:
        return False
    return True


def kill_children(exclude: set[int] = frozenset(), deadline_s: float = 5.0) -> Sweep:  # type: ignore[assignment]
    """SIGKILL every descendant outside ``exclude``'s subtrees and reap it, until none is left.

    Not a timing accident: a fork bomb forks while we kill, so every round kills the whole
    subtree as it stands, then reaps our children; orphans of the killed come to us (we are a
    subreaper) and are found in the next round. Rounds continue until ``/proc`` shows no
    descendant at all (zombies included); each round only shrinks a tree that cannot outgrow
    ``RLIMIT_NPROC``. ``deadline_s`` bounds it should a process refuse to die (it cannot: SIGKILL).
    """
    killed = sigsys = 0
    if not exclude and not has_children():  # the common case after a test: nothing to scan for
        return Sweep(0, 0)
    stop = time.monotonic() + deadline_s
    while time.monotonic() < stop:
        family, direct = descendants(exclude)
        if not family:
            break
        for pid in family:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in direct:
            with contextlib.suppress(ChildProcessError, OSError):
                _, status = os.waitpid(pid, _WALL)
                killed += 1
                sigsys += os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGSYS
        if not direct:
            time.sleep(0.001)  # only grandchildren left: their parents are dying, let them be reparented
    return Sweep(killed, sigsys)


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
