"""The default backend: bubblewrap namespaces, a minimal read-only root, rlimits, no network.

Why it is built the way it is (see ``docs/sandbox.md``):

- ``--unshare-pid/net/ipc/uts/cgroup``: no network (not even loopback DNS), and a PID namespace
  whose death takes every process the run started with it.
- No user namespace when we are root: the kernel exempts uid 0 (the host's root user, even inside
  a user namespace) from ``RLIMIT_NPROC``, so a fork bomb would not be stopped. Instead the command
  drops to a fresh unprivileged uid per run (``setpriv``), which has no capabilities and which
  ``RLIMIT_NPROC`` does count. Unprivileged callers get a user namespace, where the kernel counts
  processes per namespace.
- Only what Python needs is visible, read-only: ``/usr`` (and the ``/bin``, ``/lib*`` links), the
  interpreter install and the engine's environment. Not the host root, not ``/root``, not ``/work``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from bouts.errors import SandboxError
from bouts.models.challenge import Limits
from bouts.sandbox._base import WORKSPACE, Mount, SandboxResult, rlimit_args, run_process

log = logging.getLogger(__name__)

_WORKSPACE_SOURCE = "/bouts/workspace-source"
_UID_RANGE = (1_500_000, 1_900_000)
"""Per-run uids are drawn from here: far from real accounts, so RLIMIT_NPROC counts only this run."""


def _bwrap_path() -> str:
    path = shutil.which("bwrap") or ("/usr/bin/bwrap" if os.path.exists("/usr/bin/bwrap") else None)
    if path is None:
        raise SandboxError("bubblewrap (bwrap) is not installed; install it or pick another sandbox")
    return path


def _under_workspace(target: str) -> bool:
    return Path(target).is_relative_to(WORKSPACE) and Path(target) != Path(WORKSPACE)


def _ro_bind(args: list[str], source: Path, target: str) -> None:
    """Bind ``source`` read-only, first creating each parent as a 0755 dir.

    bwrap would otherwise copy the host parent's mode (``/root`` is 0700), and the
    unprivileged run could not reach the mount.
    """
    parts = Path(target).parts[1:-1]
    for i in range(len(parts)):
        args += ["--perms", "0755", "--dir", "/" + "/".join(parts[: i + 1])]
    args += ["--ro-bind", str(source), target]


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


def _python_binds(args: list[str], seen: set[str]) -> None:
    for prefix in {sys.base_prefix, sys.prefix, os.path.dirname(os.path.realpath(sys.executable))}:
        real = os.path.realpath(prefix)
        if real.startswith("/usr/") or real in seen:
            continue
        if any(real.startswith(s + "/") for s in seen):
            continue
        seen.add(real)
        _ro_bind(args, Path(real), real)
        if prefix != real:  # a symlinked prefix must resolve too
            _ro_bind(args, Path(real), prefix)


class BubblewrapSandbox:
    """Runs commands under bubblewrap. The default backend; see the module docstring."""

    name = "bubblewrap"
    isolated = True

    def __init__(self, *, tmp_mb: int = 256) -> None:
        self._bwrap = _bwrap_path()
        self._tmp_mb = tmp_mb

    def build_argv(
        self,
        argv: Sequence[str],
        *,
        workspace: Path,
        env: Mapping[str, str],
        limits: Limits,
        timeout_s: float,
        mounts: Sequence[Mount] = (),
        uid: int | None = None,
    ) -> list[str]:
        """The full bwrap command line (exposed for tests and for ``--explain`` style debugging)."""
        args = [self._bwrap, "--die-with-parent", "--new-session", "--clearenv"]
        args += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
        root = os.geteuid() == 0
        if not root:
            args += ["--unshare-user"]
        args += ["--proc", "/proc", "--dev", "/dev"]
        # /tmp first: the engine (its venv, a checkout) may itself live under /tmp, and binds made
        # after the tmpfs stay visible on top of it.
        tmp_size = str(min(self._tmp_mb, limits.memory_mb) * 1024 * 1024)
        args += ["--perms", "1777", "--size", tmp_size, "--tmpfs", "/tmp"]
        _system_binds(args)
        _python_binds(args, set())
        inside = [m for m in mounts if _under_workspace(m.target)]
        for m in mounts:
            if m not in inside:
                _ro_bind(args, m.source, m.target)
        # The workspace is a size-capped tmpfs holding a *copy* of the host directory (bound
        # read-only next to it): a disk-filling test hits ENOSPC there, and nothing the run
        # writes ever reaches the host.
        _ro_bind(args, workspace, _WORKSPACE_SOURCE)
        size = _tree_bytes(workspace) + int(tmp_size)
        args += ["--perms", "1777", "--size", str(size), "--tmpfs", WORKSPACE, "--chdir", WORKSPACE]
        # Mounts inside the workspace lie on top of the copy, read-only: the graded code can
        # neither edit nor replace them (the pristine tests are one), and a mount point cannot be
        # renamed or removed.
        for m in inside:
            args += ["--ro-bind", str(m.source), m.target]
        for key, value in env.items():
            args += ["--setenv", key, value]
        copy_in = ["/bin/sh", "-c", f'cp -R {_WORKSPACE_SOURCE}/. {WORKSPACE}/ && exec "$@"', "sh"]
        inner = rlimit_args(limits, timeout_s) + copy_in + list(argv)
        if root:
            uid = uid if uid is not None else secrets.randbelow(_UID_RANGE[1] - _UID_RANGE[0]) + _UID_RANGE[0]
            # Only the two capabilities setpriv needs; it clears them when it changes uid.
            args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
            inner = [
                "/usr/bin/setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                "--inh-caps=-all", "--",
            ] + inner  # fmt: skip
        return args + ["--"] + inner

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
    ) -> SandboxResult:
        """Run ``argv`` under bubblewrap (contract: :class:`bouts.sandbox.Sandbox`)."""
        uid = None
        if os.geteuid() == 0:
            uid = secrets.randbelow(_UID_RANGE[1] - _UID_RANGE[0]) + _UID_RANGE[0]
        return run_process(
            argv,
            cwd=None,
            env={},
            limits=limits,
            timeout_s=timeout_s,
            pass_fds=pass_fds,
            on_spawn=on_spawn,
            wrap=lambda marked: self.build_argv(
                marked,
                workspace=workspace,
                env=env,
                limits=limits,
                timeout_s=timeout_s,
                mounts=mounts,
                uid=uid,
            ),
        )


def _tree_bytes(root: Path) -> int:
    """Bytes the workspace copy needs (plus a block per file for tmpfs rounding)."""
    total = 0
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_size + 4096
    return total
