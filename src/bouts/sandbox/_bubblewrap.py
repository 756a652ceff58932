"""The default backend: bubblewrap namespaces, a minimal read-only root, rlimits, no network, seccomp.

Why it is built the way it is (see ``docs/sandbox.md``):

- ``--unshare-pid/net/ipc/uts/cgroup``: no network (not even loopback DNS), and a PID namespace
  whose death takes every process the run started with it.
- Always a user namespace, in which the command is uid 1000 (``dev``) with a generated
  ``/etc/passwd``, ``HOME`` and a random hostname: an ordinary machine, not a grader's tell.
  ``--disable-userns`` and the seccomp filter (``_seccomp.py``) forbid any further namespace,
  mount or tracing call; a forbidden call kills the caller with ``SIGSYS``.
- bubblewrap itself never runs as the host's root: the kernel exempts root from
  ``RLIMIT_NPROC`` (even inside a user namespace), so a fork bomb would not be stopped. As root
  we start it as a fresh per-run uid (``setpriv``), which has no capabilities and which
  ``RLIMIT_NPROC`` counts; that uid cannot read paths under ``/root`` or the engine's private
  temp directories, so those sources are first bind-mounted into a per-run staging directory, in a
  private mount namespace of the (root) launcher.
- Only what Python needs is visible, read-only: ``/usr`` (and the ``/bin``, ``/lib*`` links), the
  interpreter install and the engine's environment. Not the host root, not ``/root``, not ``/work``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import secrets
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bouts.errors import SandboxError
from bouts.models.challenge import Limits
from bouts.sandbox import _base, _kernel_log
from bouts.sandbox._base import (
    SANDBOX_HOME,
    SANDBOX_UID,
    WORKSPACE,
    Mount,
    SandboxResult,
    rlimit_args,
    run_process,
    tree_bytes,
)
from bouts.sandbox._seccomp import bpf_program

log = logging.getLogger(__name__)

_WORKSPACE_SOURCE = "/bouts/workspace-source"
_UID_RANGE = (1_500_000, 1_900_000)
"""Per-run host uids are drawn from here: far from real accounts, owning nothing on the host."""
_HOME_MB = 64
_STAGE = r"""set -e
mount --all --fstab "$1"
shift
exec "$@"
"""
"""Run as root in a private mount namespace: bind each source into ``<stage>/<i>``, which the
unprivileged per-run uid can reach, with one ``mount`` from the table :func:`stage` wrote (a
``mount --bind`` each, and a ``mkdir`` for each mount point, were 6 ms of a session's 18), then
exec the rest of the command line (setpriv, bwrap)."""


def _fstab_field(path: str) -> str:
    """``path`` as an fstab field: libmount reads whitespace and backslashes as octal escapes."""
    return "".join(f"\\{ord(c):03o}" if c in " \t\n\\" else c for c in path)


def _table(stage_dir: str) -> str:
    """Where :func:`stage` writes the bind table that :data:`_STAGE` mounts from."""
    return f"{stage_dir}/fstab"


def stage(stage_dir: str, staged: Sequence[str]) -> str:
    """Make the mount point of each of ``staged`` in ``stage_dir`` (a directory for a directory, an
    empty file for anything else) and write their bind table; the table's path (for :data:`_STAGE`).
    The mount points are on the host, empty; the binds on them live in the launcher's private mount
    namespace only (:func:`unstage`)."""
    os.chmod(stage_dir, 0o755)  # mkdtemp's 0700 would keep the per-run uid out
    lines = []
    for i, source in enumerate(staged):
        point = f"{stage_dir}/{i}"
        if os.path.isdir(source):
            os.mkdir(point, 0o755)
        else:
            os.close(os.open(point, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        lines.append(f"{_fstab_field(source)} {_fstab_field(point)} none bind 0 0\n")
    table = _table(stage_dir)
    fd = os.open(table, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.writelines(lines)
    return table


def unstage(stage_dir: str) -> None:
    """Remove what :func:`stage` made, name by name and never recursively: were a bind ever seen here
    (it is not: the launcher's namespace is private), removing its mount point fails (``EBUSY``),
    where a recursive removal would delete the bound source's files."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(stage_dir):
            with contextlib.suppress(OSError):
                if entry.is_dir(follow_symlinks=False):
                    os.rmdir(entry.path)
                else:
                    os.unlink(entry.path)
    with contextlib.suppress(OSError):
        os.rmdir(stage_dir)


@dataclass(frozen=True)
class Setup:
    """Per-run facts of a bubblewrap command line (exposed for tests)."""

    uid: int | None = None
    """Host uid bubblewrap runs as (root engine: a fresh one per run); ``None``: the engine's own."""
    hostname: str = "localhost"
    stage: str | None = None
    """Staging directory for sources the per-run uid cannot reach (root engine only)."""
    seccomp_fd: int | None = None
    passwd_fd: int | None = None
    group_fd: int | None = None


class _Sources:
    """Where bubblewrap finds each bind source: the path itself, or its place in the staging directory."""

    def __init__(self, stage: str | None) -> None:
        self.stage = stage
        self.staged: list[str] = []

    def __call__(self, path: Path | str) -> str:
        if self.stage is None:
            return str(path)
        self.staged.append(str(path))
        return f"{self.stage}/{len(self.staged) - 1}"


def _bwrap_path() -> str:
    path = shutil.which("bwrap") or ("/usr/bin/bwrap" if os.path.exists("/usr/bin/bwrap") else None)
    if path is None:
        raise SandboxError("bubblewrap (bwrap) is not installed; install it or pick another sandbox")
    return path


def _under_workspace(target: str, workdir: str = WORKSPACE) -> bool:
    return Path(target).is_relative_to(workdir) and Path(target) != Path(workdir)


def _ro_bind(args: list[str], source: str, target: str) -> None:
    """Bind ``source`` read-only, first creating each parent as a 0755 dir.

    bwrap would otherwise copy the host parent's mode (``/root`` is 0700), and the
    unprivileged run could not reach the mount.
    """
    parts = Path(target).parts[1:-1]
    for i in range(len(parts)):
        args += ["--perms", "0755", "--dir", "/" + "/".join(parts[: i + 1])]
    args += ["--ro-bind", source, target]


def _system_binds(args: list[str]) -> None:
    args += ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = Path("/") / name
        if host.is_symlink():
            args += ["--symlink", os.readlink(host), f"/{name}"]
        elif host.is_dir():
            args += ["--ro-bind", str(host), f"/{name}"]
    # A few /etc files libc and Python consult; never the whole /etc (it may hold secrets).
    for name in ("ld.so.cache", "localtime", "nsswitch.conf", "hosts"):
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]


def _python_binds(args: list[str], seen: set[str], source: _Sources) -> None:
    for prefix in {sys.base_prefix, sys.prefix, os.path.dirname(os.path.realpath(sys.executable))}:
        real = os.path.realpath(prefix)
        if real.startswith("/usr/") or real in seen:
            continue
        if any(real.startswith(s + "/") for s in seen):
            continue
        seen.add(real)
        _ro_bind(args, source(real), real)
        if prefix != real:  # a symlinked prefix must resolve too
            _ro_bind(args, source(real), prefix)


class BubblewrapSandbox:
    """Runs commands under bubblewrap. The default backend; see the module docstring."""

    name = "bubblewrap"
    isolated = True
    duplex_fds = True
    """The command reads a pipe the host writes as well as it writes one (``Sandbox``'s contract)."""
    workspace_source = _WORKSPACE_SOURCE
    """Where the host's workspace directory is bound read-only (the workspace is a copy of it): a
    batch session (``bouts.runner._batch``) copies each submission's files from there."""

    def __init__(self, *, tmp_mb: int = 256) -> None:
        self._bwrap = _bwrap_path()
        self._tmp_mb = tmp_mb

    def command(
        self,
        argv: Sequence[str],
        *,
        workspace: Path,
        env: Mapping[str, str],
        limits: Limits,
        timeout_s: float,
        mounts: Sequence[Mount] = (),
        setup: Setup = Setup(),
        workdir: str = WORKSPACE,
    ) -> tuple[list[str], list[str]]:
        """The full command line (``run`` executes it; tests read it), and the sources it binds
        through ``setup.stage`` (:func:`stage` makes their mount points and table before it runs)."""
        source = _Sources(setup.stage)
        args = [self._bwrap, "--die-with-parent", "--new-session", "--clearenv"]
        args += ["--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--disable-userns"]
        args += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
        args += ["--hostname", setup.hostname]
        args += ["--proc", "/proc", "--dev", "/dev"]
        # /tmp first: the engine (its venv, a checkout) may itself live under /tmp, and binds made
        # after the tmpfs stay visible on top of it.
        tmp_size = str(min(self._tmp_mb, limits.memory_mb) * 1024 * 1024)
        args += ["--perms", "1777", "--size", tmp_size, "--tmpfs", "/tmp"]
        _system_binds(args)
        for fd, name in ((setup.passwd_fd, "passwd"), (setup.group_fd, "group")):
            if fd is not None:
                args += ["--perms", "0644", "--ro-bind-data", str(fd), f"/etc/{name}"]
        home_size = str(min(_HOME_MB, self._tmp_mb, limits.memory_mb) * 1024 * 1024)
        args += ["--perms", "0755", "--dir", "/home", "--perms", "0755", "--size", home_size, "--tmpfs", SANDBOX_HOME]
        _python_binds(args, set(), source)
        inside = [m for m in mounts if _under_workspace(m.target, workdir)]
        for m in mounts:
            if m not in inside:
                _ro_bind(args, source(m.source), m.target)
        # The workspace is a size-capped tmpfs holding a *copy* of the host directory (bound
        # read-only next to it): a disk-filling test hits ENOSPC there, and nothing the run
        # writes ever reaches the host.
        _ro_bind(args, source(workspace), _WORKSPACE_SOURCE)
        size = tree_bytes(workspace) + int(tmp_size)
        args += ["--perms", "1777", "--size", str(size), "--tmpfs", workdir]
        # Mounts inside the workspace lie on top of the copy, read-only: the graded code can
        # neither edit nor replace them (the pristine tests are one), and a mount point cannot be
        # renamed or removed.
        for m in inside:
            args += ["--ro-bind", source(m.source), m.target]
        # The root bwrap built (owned by the sandbox user in its namespace) is made read-only last.
        args += ["--remount-ro", "/", "--chdir", workdir]
        if setup.seccomp_fd is not None:
            args += ["--seccomp", str(setup.seccomp_fd)]
        for key, value in env.items():
            args += ["--setenv", key, value]
        copy_in = ["/bin/sh", "-c", f'cp -R {_WORKSPACE_SOURCE}/. {workdir}/ && exec "$@"', "sh"]
        command = args + ["--"] + rlimit_args(limits, timeout_s) + copy_in + list(argv)
        if setup.uid is not None:
            # No capabilities, no supplementary groups: bubblewrap is an ordinary user's process.
            command = [
                "/usr/bin/setpriv", f"--reuid={setup.uid}", f"--regid={setup.uid}", "--clear-groups",
                "--inh-caps=-all", "--",
            ] + command  # fmt: skip
        if setup.stage is not None:
            command = [
                "/usr/bin/unshare", "--mount", "--propagation", "private", "--",
                "/bin/sh", "-c", _STAGE, "sh", _table(setup.stage),
            ] + command  # fmt: skip
        return command, source.staged

    def run(
        self,
        argv: Sequence[str],
        *,
        workspace: Path,
        env: Mapping[str, str],
        limits: Limits,
        timeout_s: float,
        mounts: Sequence[Mount] = (),
        pass_fds: Sequence[int] = (),
        on_spawn: Callable[[], None] | None = None,
        workdir: str = WORKSPACE,
        on_start: Callable[[int], None] | None = None,
    ) -> SandboxResult:
        """Run ``argv`` under bubblewrap (contract: :class:`bouts.sandbox.Sandbox`); ``on_start``
        gets the process group to kill it by (``run_process``)."""
        root = os.geteuid() == 0
        data = [_data_fd(bpf_program()), _data_fd(_base.passwd_lines()), _data_fd(_base.group_lines())]
        stage = tempfile.mkdtemp(prefix="bouts-stage-", dir=_stage_parent()) if root else None
        setup = Setup(
            uid=secrets.randbelow(_UID_RANGE[1] - _UID_RANGE[0]) + _UID_RANGE[0] if root else None,
            hostname=secrets.token_hex(6),  # like a container's: says nothing about the grader
            stage=stage,
            seccomp_fd=data[0],
            passwd_fd=data[1],
            group_fd=data[2],
        )
        log = _kernel_log.KernelLog() if setup.uid is not None else None
        try:
            result = run_process(
                argv,
                cwd=None,
                env={},
                limits=limits,
                timeout_s=timeout_s,
                pass_fds=(*pass_fds, *data),
                on_spawn=on_spawn,
                on_start=on_start,
                wrap=lambda marked: self._staged(
                    marked,
                    workspace=workspace,
                    env=env,
                    limits=limits,
                    timeout_s=timeout_s,
                    mounts=mounts,
                    setup=setup,
                    workdir=workdir,
                ),  # fmt: skip
            )
            if log is not None and setup.uid is not None:
                result = dataclasses.replace(result, forbidden_calls=log.seccomp_kills(setup.uid))
            return result
        finally:
            if log is not None:
                log.close()
            for fd in data:
                os.close(fd)
            if stage is not None:
                unstage(stage)

    def _staged(self, argv: Sequence[str], *, setup: Setup, **kwargs: Any) -> list[str]:
        """:meth:`command`'s command line, its staging directory made ready (:func:`stage`)."""
        command, staged = self.command(argv, setup=setup, **kwargs)
        if setup.stage is not None:
            stage(setup.stage, staged)
        return command


def _stage_parent() -> str:
    """Where the staging directory goes: the temporary directory if the per-run uid can reach it
    (every directory on its path searchable by others), else ``/tmp`` or ``/dev/shm``. A ``TMPDIR``
    inside a private directory (a test runner's, a user's 0700 home) would leave the uid outside its
    own stage: the sandbox did not start ("Permission denied")."""
    for parent in (tempfile.gettempdir(), "/tmp", "/dev/shm"):
        with contextlib.suppress(OSError):
            path = Path(parent).resolve()
            if all(os.stat(p).st_mode & 0o001 for p in (path, *path.parents)):
                return str(path)
    return tempfile.gettempdir()


def _data_fd(data: bytes) -> int:
    """A pipe already holding ``data`` (small: it must fit the pipe buffer), write end closed."""
    r, w = os.pipe()
    try:
        os.write(w, data)
    finally:
        os.close(w)
    return r
