"""A batch session: several submissions graded one after another in one sandbox session, each
starting from the state the session had before the first (docs/sandbox.md, "Batch sessions").

The supervisor never imports submission code, so what one submission can leave for the next is
outside it: processes, files on the session's writable mounts, System V IPC objects. Before each
submission, :class:`Baseline` puts all of them back as they were when the session started, and
checks it did; where it cannot (a process that would not die, a mount that changed, a tree it
cannot remove), it tells the host the session is spent and ends it, and the host grades the next
submission in a new session. The host puts each submission's files (its code, and the tests it is
graded with) in the directories the session binds read-only; they change only between submissions.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import importlib
import json
import os
import shutil
import stat
from dataclasses import dataclass

from _bouts_driver import procs
from _bouts_driver.proto import send

_SKIP_FS = frozenset({"proc", "sysfs", "devpts", "mqueue", "cgroup", "cgroup2", "devtmpfs"})
"""Writable mounts that hold nothing a process leaves behind once it is gone (or none we can
clear): ``/proc`` and ``/sys`` are views of live processes, devpts' terminals close with them."""
_IPC_RMID = 0


@dataclass(frozen=True)
class Entry:
    """One name on a writable mount as the session started."""

    kind: str
    """``dir``, ``link``, ``mount`` (another mount's root: left alone) or ``other``."""
    ino: int
    mode: int
    target: str = ""
    ctime: int = 0
    """Of a name that is not a directory: a file or link made anew may reuse the inode number, never
    the change time (which no process can set)."""
    xattrs: tuple[tuple[str, bytes], ...] = ()
    """Of a directory: its extended attributes (user ones, ACLs), put back as they were."""
    times: tuple[int, int] = (0, 0)
    """Of a directory: its access and modification times (ns), put back as they were. A directory
    kept between submissions kept what a submission wrote on it: an xattr or an mtime a later
    submission read an answer from, a default ACL that broke its ``mkdtemp`` (red team 2026-12-06)."""


def _unescape(path: str) -> str:
    return path.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")


def writable_mounts() -> list[str]:
    """Mount points this session can write to, from ``/proc/self/mountinfo``."""
    roots = []
    with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            left, _, right = line.partition(" - ")
            fields = left.split()
            if len(fields) < 6 or not right:
                continue
            if "rw" in fields[5].split(",") and right.split()[0] not in _SKIP_FS:
                roots.append(_unescape(fields[4]))
    return roots


def _kind(st: os.stat_result, dev: int) -> str:
    if st.st_dev != dev:
        return "mount"
    if stat.S_ISDIR(st.st_mode):
        return "dir"
    return "link" if stat.S_ISLNK(st.st_mode) else "other"


def _xattrs(path: str) -> tuple[tuple[str, bytes], ...]:
    """The extended attributes of ``path`` (not followed), sorted; none where the file system has none."""
    try:
        names = os.listxattr(path, follow_symlinks=False)
        return tuple(sorted((n, os.getxattr(path, n, follow_symlinks=False)) for n in names))
    except OSError as exc:
        if exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP):
            return ()
        raise


def _put_back(path: str, was: Entry) -> None:
    """A kept or recreated directory's extended attributes and times as they were."""
    now = dict(_xattrs(path))
    for name in now.keys() - dict(was.xattrs).keys():
        os.removexattr(path, name, follow_symlinks=False)
    for name, value in was.xattrs:
        if now.get(name) != value:
            os.setxattr(path, name, value, follow_symlinks=False)
    os.utime(path, ns=was.times, follow_symlinks=False)


def _dir_entry(path: str, st: os.stat_result) -> Entry:
    times = (st.st_atime_ns, st.st_mtime_ns)
    return Entry("dir", st.st_ino, stat.S_IMODE(st.st_mode), xattrs=_xattrs(path), times=times)


def _tree(root: str) -> dict[str, Entry]:
    """Every name under ``root`` on its own mount, by path relative to it (``""``: the root)."""
    top = os.lstat(root)
    out = {"": _dir_entry(root, top)}
    todo = [""]
    while todo:
        rel = todo.pop()
        with os.scandir(os.path.join(root, rel) if rel else root) as it:
            for entry in it:
                path = f"{rel}/{entry.name}" if rel else entry.name
                st = entry.stat(follow_symlinks=False)
                kind = _kind(st, top.st_dev)
                target = os.readlink(entry.path) if kind == "link" else ""
                ctime = st.st_ctime_ns if kind in ("link", "other") else 0
                if kind == "dir":
                    out[path] = _dir_entry(entry.path, st)
                    todo.append(path)
                else:
                    out[path] = Entry(kind, st.st_ino, stat.S_IMODE(st.st_mode), target, ctime)
    return out


def _remove(path: str) -> None:
    """Remove ``path`` and everything below it: the session's own files, so it may first make each
    directory below it listable and writable (no process of a submission is left to race it)."""
    if not stat.S_ISDIR(os.lstat(path).st_mode):
        os.unlink(path)
        return
    todo = [path]
    while todo:
        here = todo.pop()
        os.chmod(here, 0o700)
        with os.scandir(here) as it:
            todo += [e.path for e in it if e.is_dir(follow_symlinks=False)]
    shutil.rmtree(path)


def _restore_tree(root: str, want: dict[str, Entry]) -> dict[str, Entry]:
    """Make ``root`` hold exactly ``want`` again: remove what was added or replaced, recreate what
    was removed, put modes back; what it holds now (recreated names have new inodes). Raises
    ``OSError``/``ValueError`` when it cannot."""
    top = os.lstat(root)
    if top.st_ino != want[""].ino:
        raise ValueError(f"{root}: the mount's root is not the one the session started with")
    todo = [""]
    while todo:
        rel = todo.pop()
        here = os.path.join(root, rel) if rel else root
        if stat.S_IMODE(os.lstat(here).st_mode) != want[rel].mode:
            os.chmod(here, want[rel].mode)
        with os.scandir(here) as it:
            entries = list(it)
        for entry in entries:
            path = f"{rel}/{entry.name}" if rel else entry.name
            st = entry.stat(follow_symlinks=False)
            kind, was = _kind(st, top.st_dev), want.get(path)
            same = was is not None and was.kind == kind and was.ino == st.st_ino
            if same and kind in ("link", "other"):
                same = was is not None and was.ctime == st.st_ctime_ns
            if same:
                if kind == "dir":
                    todo.append(path)
                continue
            if kind == "mount":
                raise ValueError(f"{entry.path}: a mount that was not there (or another one)")
            _remove(entry.path)
    for path, was in sorted(want.items(), key=lambda item: item[0].count("/")):
        full = os.path.join(root, path) if path else root
        if os.path.lexists(full):
            continue
        if was.kind == "dir":
            os.mkdir(full, was.mode)
            os.chmod(full, was.mode)
        elif was.kind == "link":
            os.symlink(was.target, full)
        else:
            raise ValueError(f"{full}: removed, and it cannot be made again")
    for path, was in want.items():  # last: every change below a directory moved its times
        if was.kind == "dir":
            _put_back(os.path.join(root, path) if path else root, was)
    again = _tree(root)
    for path, was in want.items():
        now = again.get(path)
        if now is None or now.kind != was.kind or (was.kind == "mount" and now.ino != was.ino):
            raise ValueError(f"{os.path.join(root, path)}: not as the session started")
    extra = sorted(set(again) - set(want))
    if extra:
        raise ValueError(f"{os.path.join(root, extra[0])}: could not be removed")
    return again


def _clear_ipc() -> None:
    """Remove every System V shared memory segment, semaphore set and message queue (they outlive
    the processes that made them; the session has an IPC namespace of its own)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for name, call in (("shm", libc.shmctl), ("sem", libc.semctl), ("msg", libc.msgctl)):
        try:
            with open(f"/proc/sysvipc/{name}", encoding="ascii") as fh:
                rows = fh.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            ipc_id = int(row.split()[1])
            args = (ipc_id, 0, _IPC_RMID) if name == "sem" else (ipc_id, _IPC_RMID, None)
            if call(*args) != 0 and ctypes.get_errno() != 22:  # EINVAL: gone already
                raise OSError(ctypes.get_errno(), f"could not remove System V {name} {ipc_id}")


def _others() -> list[int]:
    """Processes of the session other than us and its init (bubblewrap's, pid 1)."""
    me = os.getpid()
    return [int(e) for e in os.listdir("/proc") if e.isdigit() and int(e) not in (1, me)]


class Baseline:
    """The session's writable state before any submission, and the means to return to it."""

    def __init__(self, workspace: str) -> None:
        self.workspace = workspace
        self.trees = {root: _tree(root) for root in writable_mounts()}
        if workspace not in self.trees:
            raise ValueError(f"{workspace}: not a writable mount of the session")

    def restore(self) -> str | None:
        """Back to the session's start: no process but ours, every writable mount as it was, no
        System V IPC object. ``None`` when done; else why the session cannot go on."""
        procs.kill_children()
        left = _others()
        if left:
            return f"{len(left)} process(es) outside the supervisor's tree are still running"
        try:
            for root, want in self.trees.items():
                self.trees[root] = _restore_tree(root, want)
            _clear_ipc()
        except (OSError, ValueError, RecursionError) as exc:
            return f"the session's state could not be restored: {exc}"
        return None

    def load(self, source: str) -> None:
        """The next submission's workspace: a copy of what the host put in ``source``."""
        shutil.copytree(source, self.workspace, symlinks=True, dirs_exist_ok=True, copy_function=shutil.copy)
        importlib.invalidate_caches()


def serve(config: dict, host: int, baseline: dict[str, str], control: object) -> None:
    """Grade each submission the host sends on ``control`` until it closes it; then ``done``."""
    from _bouts_driver.supervisor import Control, run_phases

    assert isinstance(control, Control)
    state = Baseline(config["workspace"])
    send(host, {"type": "batch_ready"})
    while (line := control.line(None)) is not None:
        try:
            sample = json.loads(line)
        except ValueError:
            sample = None
        if not isinstance(sample, dict) or not isinstance(sample.get("n"), int):
            send(host, {"type": "batch_broken", "detail": "an unreadable submission line"})
            break
        why = state.restore()
        if why is not None:
            send(host, {"type": "batch_broken", "detail": why})
            break
        state.load(config["source"])
        settings = {**config, **sample}
        os.environ["BOUTS_SEED"] = str(settings["seed"])
        send(host, {"type": "sample", "n": sample["n"]})
        run_phases(settings, host, baseline, control)
        procs.kill_children()
        send(host, {"type": "sample_done", "n": sample["n"]})
    control.close()
    with contextlib.suppress(OSError):
        send(host, {"type": "done", "exit": 0})
