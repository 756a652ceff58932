"""The sandbox contract every backend keeps, and the process plumbing they share.

See ``docs/sandbox.md`` for what each backend guarantees and what it does not.
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

from bouts.errors import SandboxError
from bouts.models.challenge import Limits

WORKSPACE = "/workspace"
"""Where the workspace directory appears inside every sandbox (the ``none`` backend aside)."""

SANDBOX_USER = "dev"
SANDBOX_UID = 1000
"""Who the command runs as inside an isolated sandbox: an ordinary first user, not a tell-tale
grader uid (docs/sandbox.md, "What graded code sees"). Its home is :data:`SANDBOX_HOME`."""
SANDBOX_HOME = f"/home/{SANDBOX_USER}"
"""The user's home inside an isolated sandbox: it exists and is writable (a small tmpfs)."""


def user_env(isolated: bool) -> dict[str, str]:
    """The user part of a sandboxed command's environment: the sandbox user's ``HOME``, ``USER``,
    ``LOGNAME`` and ``SHELL`` in an isolated backend; only ``HOME=/tmp`` on the host (``none``)."""
    if not isolated:
        return {"HOME": "/tmp"}
    return {"HOME": SANDBOX_HOME, "USER": SANDBOX_USER, "LOGNAME": SANDBOX_USER, "SHELL": "/bin/bash"}


def passwd_lines() -> bytes:
    """``/etc/passwd`` inside an isolated sandbox: root, the sandbox user, nobody."""
    return (
        "root:x:0:0:root:/root:/bin/bash\n"
        f"{SANDBOX_USER}:x:{SANDBOX_UID}:{SANDBOX_UID}::{SANDBOX_HOME}:/bin/bash\n"
        "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
    ).encode()


def group_lines() -> bytes:
    """``/etc/group`` inside an isolated sandbox."""
    return f"root:x:0:\n{SANDBOX_USER}:x:{SANDBOX_UID}:\nnogroup:x:65534:\n".encode()


@dataclass(frozen=True)
class Mount:
    """A host path made visible read-only inside the sandbox at ``target``."""

    source: Path
    target: str


@dataclass(frozen=True)
class SandboxResult:
    """How a sandboxed command ended. A non-zero exit is data, not an error."""

    exit_code: int | None
    """Exit status, or ``None`` when the command was killed by a signal."""
    signal: int | None
    """The signal that killed the command, if any."""
    timed_out: bool
    """True when the sandbox killed the command at its wall timeout."""
    stdout: bytes
    """The first ``max_output_kb`` of standard output; the rest was read and discarded."""
    stderr: bytes
    """The first ``max_output_kb`` of standard error; the rest was read and discarded."""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    duration_s: float = 0.0
    notes: tuple[str, ...] = field(default_factory=tuple)
    """What the backend wants the caller to know (e.g. 'unsafe: no isolation')."""
    forbidden_calls: tuple[str, ...] = ()
    """System calls the backend's seccomp filter killed a process for, in words, as the backend
    saw them from outside (bubblewrap under a root engine: the kernel's audit log). Empty when
    none were made or the backend cannot see them; the driver reports what it saw separately."""


@runtime_checkable
class Sandbox(Protocol):
    """Runs one command in isolation. Implementations are registered in ``bouts.sandbox``.

    Contract:

    - ``workspace`` is visible read-write at ``workdir`` (default :data:`WORKSPACE`; a challenge
      may declare an ordinary project path instead), which is also the command's working directory
      (the ``none`` backend runs in the directory itself and says so); each of ``mounts`` read-only
      at its target. A mount whose target lies inside ``workdir`` sits on top of the workspace's
      copy, so the command can neither change nor replace what it holds (the runners put the tests
      there).
    - The environment is exactly ``env``: nothing leaks in from the host.
    - ``limits`` bound memory (address space), processes, file size and CPU of everything the
      command starts; standard output and error are each kept up to ``limits.max_output_kb``
      and the rest is discarded, never buffered.
    - ``pass_fds`` stay open in the command under the same numbers (e.g. a result pipe). A backend
      whose command can also *read* such a descriptor (the host writes, the command reads) says so
      with a class attribute ``duplex_fds = True`` (optional; absent means written by the command
      only, as Docker's relays are): the runner then gives the fresh-seed phase its seed that way.
    - At ``timeout_s`` the whole process tree is killed and ``timed_out`` is set; when ``run``
      returns, nothing the command started is still running (backends that cannot promise it
      say so in their docs).
    - ``on_spawn`` is called once the command has started, so the caller can close its own
      copies of ``pass_fds``.
    - An ``isolated`` backend runs the command as an ordinary user (:data:`SANDBOX_UID`, named
      :data:`SANDBOX_USER` in its ``/etc/passwd``) whose :data:`SANDBOX_HOME` exists and is
      writable (the runners pass :func:`user_env`), and refuses namespace, mount and tracing
      calls, reporting any it saw in ``forbidden_calls`` when it can see them.

    Raises :class:`~bouts.errors.SandboxError` when the sandbox itself cannot start or broke;
    whatever the command does (crash, exit code, timeout) is reported in the result instead.
    """

    name: str
    isolated: bool
    """True when the backend provides the mounts, the fixed ``/workspace`` path and a private PID
    namespace; False for the unsafe ``none`` backend (runs in the workspace directory itself)."""

    def run(
        self,
        argv: Sequence[str],
        *,
        workspace: Path,
        env: Mapping[str, str],
        limits: Limits,
        timeout_s: float,
        mounts: Sequence[Mount] = (),
        workdir: str = WORKSPACE,
        pass_fds: Sequence[int] = (),
        on_spawn: Callable[[], None] | None = None,
    ) -> SandboxResult:
        """Run ``argv`` in the sandbox and wait for it (see the class docstring)."""
        ...


class _CappedReader(threading.Thread):
    """Drains a pipe to EOF, keeping the first ``cap`` bytes (so a flood cannot block or bloat us)."""

    def __init__(self, stream: object, cap: int) -> None:
        super().__init__(daemon=True)
        self._stream = stream
        self._cap = cap
        self.data = bytearray()
        self.truncated = False

    def run(self) -> None:
        fd = self._stream.fileno()  # type: ignore[attr-defined]
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            room = self._cap - len(self.data)
            if room > 0:
                self.data += chunk[:room]
            if len(chunk) > room:
                self.truncated = True


def tree_bytes(root: Path) -> int:
    """Bytes a copy of ``root`` needs on a tmpfs (its files' sizes plus a block each for rounding)."""
    total = 0
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_size + 4096
    return total


def rlimit_args(limits: Limits, timeout_s: float) -> list[str]:
    """``prlimit`` options for the command: every process it starts inherits them."""
    mem = limits.memory_mb * 1024 * 1024
    fsize = limits.max_file_mb * 1024 * 1024
    # CPU seconds are a backstop: the wall timeout normally fires first.
    cpu = int(timeout_s) + 5
    return [
        "/usr/bin/prlimit",
        f"--as={mem}",
        f"--nproc={limits.max_processes}",
        f"--fsize={fsize}",
        "--core=0",
        f"--cpu={cpu}",
        "--nofile=1024",
        "--",
    ]


def exited_within(proc: subprocess.Popen, timeout_s: float) -> bool:
    """Whether ``proc`` ended (and was reaped) within ``timeout_s``. Woken by a pidfd the moment it
    ends: ``Popen.wait(timeout=...)`` polls with sleeps of up to 50 ms, and each run of the sandbox
    ended that late (half of a null session's wall time)."""
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # no pidfds (an old kernel): Popen's own polling
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return False
        return True
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        stop = time.monotonic() + timeout_s
        while not poller.poll(max(0, math.ceil((stop - time.monotonic()) * 1000))):
            if time.monotonic() >= stop:
                return False
    finally:
        os.close(pidfd)
    proc.wait()
    return True


def run_process(
    argv: Sequence[str],
    *,
    cwd: Path | None,
    env: Mapping[str, str],
    limits: Limits,
    timeout_s: float,
    pass_fds: Sequence[int],
    on_spawn: Callable[[], None] | None,
    notes: tuple[str, ...] = (),
    wrap: Callable[[list[str]], list[str]] = lambda inner: inner,
    settle: Callable[[], None] | None = None,
    on_start: Callable[[int], None] | None = None,
) -> SandboxResult:
    """Start ``argv`` in its own session, drain its output with caps, kill its group at the timeout.

    ``wrap`` turns the (marked) command into the full command line, e.g. the bwrap invocation.
    The command is prefixed with a tiny bash (plain sh cannot name fds above 9) that writes one
    byte to a private pipe right before it execs ``argv``: that byte proves the sandbox came up,
    so a command that fails later (and may print anything, including a fake ``bwrap:`` error) is
    never mistaken for a broken sandbox.
    ``settle`` runs once the command has ended, before that byte is looked for (a backend that
    relays the pipes, like ``docker``, flushes them there). Raises ``SandboxError`` when the byte
    never arrives. ``on_start`` gets the command's process group id (its pid) once it started: a
    caller that keeps the command for long (a batch session) kills it with that group.
    """
    cap = limits.max_output_kb * 1024
    start = time.monotonic()
    started_r, started_w = os.pipe()
    marked = ["/bin/bash", "-c", f'printf 1 >&{started_w} && exec {started_w}>&- && exec "$@"', "bash", *argv]
    try:
        proc = subprocess.Popen(
            wrap(marked),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(*pass_fds, started_w),
            start_new_session=True,  # its own process group: one killpg reaches the tree
            close_fds=True,
        )
    except OSError as exc:
        os.close(started_r)
        raise SandboxError(f"could not start the sandbox: {exc}") from exc
    finally:
        os.close(started_w)
        if on_spawn is not None:
            on_spawn()
    if on_start is not None:
        on_start(proc.pid)
    readers = [_CappedReader(proc.stdout, cap), _CappedReader(proc.stderr, cap)]
    for r in readers:
        r.start()
    timed_out = False
    try:
        timed_out = not exited_within(proc, timeout_s)
    finally:
        # Always kill the group: anything the command left running dies with the run.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    if settle is not None:
        settle()
    for r in readers:
        r.join(timeout=5)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    proc.stderr.close()
    rc = proc.returncode
    with os.fdopen(started_r, "rb") as marker:
        started = marker.read(1) == b"1"
    if not started and not timed_out:
        err = bytes(readers[1].data).decode(errors="replace").strip()
        raise SandboxError(f"the sandbox did not start (exit {rc}): {err[:2000]}")
    return SandboxResult(
        exit_code=rc if rc >= 0 else None,
        signal=-rc if rc < 0 else None,
        timed_out=timed_out,
        stdout=bytes(readers[0].data),
        stderr=bytes(readers[1].data),
        stdout_truncated=readers[0].truncated,
        stderr_truncated=readers[1].truncated,
        duration_s=time.monotonic() - start,
        notes=notes,
    )
