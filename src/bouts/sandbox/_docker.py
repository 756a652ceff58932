"""The ``docker`` backend: the same contract as bubblewrap, enforced by a Docker engine.

No Docker engine runs on these machines by default: building the backend raises
``SandboxError`` when none answers, and its tests skip. Pipes cannot cross into a container, so
every ``pass_fds`` descriptor is relayed through a FIFO mounted at ``/bouts/fds/<n>`` and
reopened under the same number inside (see docs/sandbox.md, "Backends"). The command runs as
uid 1000 (``dev``, with a generated ``/etc/passwd`` and a writable ``HOME``) under a seccomp
profile generated from the same rules as bubblewrap's filter (``_seccomp.docker_profile``).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import selectors
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from bouts.errors import SandboxError
from bouts.models.challenge import Limits
from bouts.sandbox._base import (
    SANDBOX_HOME,
    SANDBOX_UID,
    WORKSPACE,
    Mount,
    SandboxResult,
    group_lines,
    passwd_lines,
    run_process,
)
from bouts.sandbox._seccomp import docker_profile

DEFAULT_IMAGE = "debian:bookworm-slim"
"""Must provide bash, cp and a glibc at least as new as the engine's interpreter was built for:
the engine's own Python install and environment are mounted read-only, as with bubblewrap."""
_SOURCE = "/bouts/workspace-source"


def _engine_answers(docker: str) -> bool:
    try:
        probe = subprocess.run([docker, "version", "--format", "{{.Server.Version}}"], capture_output=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0 and bool(probe.stdout.strip())


class _Relay(threading.Thread):
    """Copies a host-side FIFO into the caller's descriptor until told to stop, then drains it."""

    def __init__(self, fifo: Path, target_fd: int) -> None:
        super().__init__(daemon=True)
        # O_RDWR: the open never blocks and never sees EOF before we decide to stop.
        self.src = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
        self.dst = os.dup(target_fd)  # our own copy: the caller closes its one once we started
        self.stop = threading.Event()

    def run(self) -> None:
        sel = selectors.DefaultSelector()
        sel.register(self.src, selectors.EVENT_READ)
        try:
            while True:
                ready = sel.select(0.1)
                if not ready and self.stop.is_set():
                    return
                for _ in ready:
                    with contextlib.suppress(BlockingIOError):
                        chunk = os.read(self.src, 65536)
                        while chunk:
                            chunk = chunk[os.write(self.dst, chunk) :]
        finally:
            sel.close()
            os.close(self.src)
            os.close(self.dst)


def write_etc(etc: Path) -> None:
    """The container's seccomp profile, ``/etc/passwd`` and ``/etc/group``, written into ``etc``."""
    etc.mkdir(mode=0o755)
    (etc / "seccomp.json").write_text(json.dumps(docker_profile(), indent=1))
    (etc / "passwd").write_bytes(passwd_lines())
    (etc / "group").write_bytes(group_lines())
    for name in ("passwd", "group"):
        os.chmod(etc / name, 0o644)


class DockerSandbox:
    """Runs commands in a throwaway container: no network, read-only root, capped tmpfs, caps dropped."""

    name = "docker"
    isolated = True

    def __init__(self, *, image: str = DEFAULT_IMAGE, tmp_mb: int = 256) -> None:
        docker = shutil.which("docker")
        if docker is None or not _engine_answers(docker):
            raise SandboxError("no Docker engine answers (is it installed and started?); pick another sandbox")
        self._docker, self._image, self._tmp_mb = docker, image, tmp_mb

    def build_argv(
        self, argv: Sequence[str], *, container: str, workspace: Path, fifo_dir: Path, fds: Sequence[int],
        env: Mapping[str, str], limits: Limits, mounts: Sequence[Mount], etc_dir: Path | None = None,
        workdir: str = WORKSPACE,
    ) -> list[str]:  # fmt: skip
        """The ``docker run`` command line (exposed for tests). ``etc_dir`` holds the files
        :func:`write_etc` wrote (default: ``etc`` next to ``fifo_dir``)."""
        etc = etc_dir or fifo_dir.parent / "etc"
        scratch = min(self._tmp_mb, limits.memory_mb) * 1024 * 1024
        mem = f"{limits.memory_mb}m"
        uid = f"{SANDBOX_UID}:{SANDBOX_UID}"
        args = [
            self._docker, "run", "--rm", "--name", container, "--network", "none", "--read-only",
            "--pids-limit", str(limits.max_processes), "--memory", mem, "--memory-swap", mem,
            "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--user", uid,
            "--security-opt", f"seccomp={etc / 'seccomp.json'}",
            "--ulimit", "core=0", "--ulimit", "nofile=1024",
            "--ulimit", f"fsize={limits.max_file_mb * 1024 * 1024}",
            "--tmpfs", f"/tmp:rw,exec,size={scratch},mode=1777",
            "--tmpfs", f"{workdir}:rw,exec,size={scratch * 2},mode=1777",
            "--tmpfs", f"{SANDBOX_HOME}:rw,exec,size={min(scratch, 64 * 1024 * 1024)},mode=0755,uid={SANDBOX_UID},"
                       f"gid={SANDBOX_UID}",
            "-v", f"{etc / 'passwd'}:/etc/passwd:ro", "-v", f"{etc / 'group'}:/etc/group:ro",
            "-v", f"{workspace}:{_SOURCE}:ro", "-v", f"{fifo_dir}:/bouts/fds", "-w", workdir,
        ]  # fmt: skip
        for prefix in {os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix)}:
            args += ["-v", f"{prefix}:{prefix}:ro"]
        for m in mounts:
            args += ["-v", f"{m.source}:{m.target}:ro"]
        for key, value in env.items():
            args += ["-e", f"{key}={value}"]
        reopen = " ".join(f"{fd}>/bouts/fds/{fd}" for fd in fds)
        script = (
            f'exec {reopen}; cp -R {_SOURCE}/. {workdir}/ && exec "$@"'
            if fds
            else f'cp -R {_SOURCE}/. {workdir}/ && exec "$@"'
        )
        return args + [self._image, "/bin/bash", "-c", script, "bash", *argv]

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
    ) -> SandboxResult:
        """Run ``argv`` in a container (contract: :class:`bouts.sandbox.Sandbox`)."""
        container = f"bouts-{secrets.token_hex(8)}"
        with tempfile.TemporaryDirectory(prefix="bouts-docker-") as tmp:
            fifo_dir = Path(tmp) / "fds"
            fifo_dir.mkdir(mode=0o755)
            os.chmod(fifo_dir, 0o755)
            write_etc(Path(tmp) / "etc")
            relays: list[_Relay] = []

            def wrap(marked: list[str]) -> list[str]:
                # The start marker's descriptor is named in the marked command (`>&N`); relay it too.
                fds = list(pass_fds) + [int(marked[2].split(">&")[1].split()[0])]
                for fd in fds:
                    fifo = fifo_dir / str(fd)
                    os.mkfifo(fifo, 0o666)
                    relays.append(_Relay(fifo, fd))
                for relay in relays:
                    relay.start()
                return self.build_argv(marked, container=container, workspace=workspace, fifo_dir=fifo_dir,
                                       fds=fds, env=env, limits=limits, mounts=mounts, workdir=workdir)  # fmt: skip

            def settle() -> None:
                # The docker client is gone; make sure the container is too, then flush the relays.
                subprocess.run([self._docker, "rm", "-f", container], capture_output=True, timeout=30)
                for relay in relays:
                    relay.stop.set()
                for relay in relays:
                    relay.join(timeout=10)

            return run_process(
                argv, cwd=None, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, limits=limits,
                timeout_s=timeout_s, pass_fds=pass_fds, on_spawn=on_spawn, wrap=wrap, settle=settle,
            )  # fmt: skip
