"""The ``docker`` backend: the same contract as bubblewrap, enforced by a Docker engine.

No Docker engine runs on these machines by default: building the backend raises
``SandboxError`` when none answers, and its tests skip. Pipes cannot cross into a container, so
every ``pass_fds`` descriptor is relayed through a FIFO mounted at ``/bouts/fds/<n>`` and
reopened under the same number inside by the container's root, before it drops to uid 1000
(``dev``, with a generated ``/etc/passwd`` and a writable ``HOME``) with no capability left, under
a seccomp profile generated from the same rules as bubblewrap's filter (``_seccomp.docker_profile``;
under gVisor, gVisor's own). See docs/sandbox.md, "The docker backend".
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import selectors
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bouts.errors import InputError, SandboxError
from bouts.models.challenge import Limits
from bouts.sandbox._base import (
    SANDBOX_HOME,
    SANDBOX_UID,
    WORKSPACE,
    Mount,
    SandboxResult,
    group_lines,
    passwd_lines,
    rlimit_args,
    run_process,
)
from bouts.sandbox._seccomp import docker_profile

DEFAULT_IMAGE = "bouts-sandbox:bookworm"
"""The image ``bouts sandbox image`` builds from Debian's packages (debootstrap + ``docker import``;
docs/sandbox.md, "The docker backend"): bash, cp, setpriv and a glibc at least as new as the
engine's interpreter was built for, with ``/root`` traversable (0711) so that uid 1000 reaches an
engine installed under it. The engine's own Python install and environment are mounted read-only,
as with bubblewrap, so the image holds no Python of its own."""
ENGINE_TOOLS = ("/usr/bin/node",)
"""Programs of the engine's the runners start inside (the JavaScript runner's node), mounted from the
host at their own paths, so a run under Docker uses the versions a bubblewrap run does."""
RUNTIMES = ("runc", "runsc")
"""Runtimes the backend knows how to drive (runsc: gVisor, docs/sandbox.md)."""
_SOURCE = "/bouts/workspace-source"
_SETUP_CAPS = ("SETUID", "SETGID", "SETPCAP", "DAC_OVERRIDE")
"""What root in the container holds until ``setpriv`` drops it: open the relayed FIFOs (the engine's
files, 0600), then change identity and clear the bounding set. Nothing the submission runs has any."""
_CLIENT_ENV = ("PATH", "HOME", "XDG_RUNTIME_DIR", "DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG",
               "DOCKER_CERT_PATH", "DOCKER_TLS_VERIFY", "DOCKER_API_VERSION")  # fmt: skip
"""What the ``docker`` client reads to find its engine (a rootless daemon, a context, TLS): passed to
every client call, the availability check and ``docker run`` alike."""


@dataclass(frozen=True)
class DockerSettings:
    """The backend's options (``--sandbox docker:image=...,runtime=runsc,tmp_mb=512``)."""

    image: str = DEFAULT_IMAGE
    runtime: str = "runc"
    tmp_mb: int = 256
    """Each scratch tmpfs (``/tmp``; the workspace gets twice this), capped by the memory limit."""

    @classmethod
    def parse(cls, *, image: str = "", runtime: str = "", tmp_mb: str = "") -> DockerSettings:
        """From option text; ``InputError`` naming the option when one is malformed."""
        if image and (any(c.isspace() for c in image) or image.startswith("-")):
            raise InputError(f"docker option image={image!r} is not an image reference", field="sandbox")
        if runtime and runtime not in RUNTIMES:
            raise InputError(f"docker option runtime={runtime!r}: one of {', '.join(RUNTIMES)}", field="sandbox")
        size = cls.tmp_mb
        if tmp_mb:
            if not tmp_mb.isdigit() or not 16 <= int(tmp_mb) <= 65536:
                raise InputError(f"docker option tmp_mb={tmp_mb!r}: a whole number of MB, 16 to 65536",
                                 field="sandbox")  # fmt: skip
            size = int(tmp_mb)
        return cls(image=image or DEFAULT_IMAGE, runtime=runtime or "runc", tmp_mb=size)


def client_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment the ``docker`` client runs with: how to reach the engine, nothing else."""
    environ = os.environ if environ is None else environ
    env = {k: environ[k] for k in _CLIENT_ENV if k in environ}
    env.setdefault("PATH", "/usr/bin:/bin")
    return env


def _engine_answers(docker: str, env: Mapping[str, str] | None = None) -> bool:
    try:
        probe = _client(docker, "version", "--format", "{{.Server.Version}}",
                        env=client_env() if env is None else env, timeout=10)  # fmt: skip
    except SandboxError:
        return False
    return probe.returncode == 0 and bool(probe.stdout.strip())


def _client(docker: str, *args: str, env: Mapping[str, str], timeout: float = 30) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run([docker, *args], capture_output=True, text=True, timeout=timeout, env=dict(env))
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxError(f"docker {args[0]} did not answer: {exc}") from exc


class _Relay(threading.Thread):
    """Copies a host-side FIFO into the caller's descriptor until told to stop, then drains it."""

    inward = False

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


class _InwardRelay(threading.Thread):
    """The other direction, for a descriptor the command reads (the JavaScript supervisor's nonce
    pipe): what the caller writes into it is copied into the FIFO, and its end of file becomes the
    FIFO's (the FIFO is opened write-only, so the reader sees EOF once the copy closes it)."""

    inward = True

    def __init__(self, fifo: Path, source_fd: int) -> None:
        super().__init__(daemon=True)
        self.fifo = fifo
        self.src = os.dup(source_fd)
        self.stop = threading.Event()

    def run(self) -> None:
        try:
            dst = os.open(self.fifo, os.O_WRONLY)  # blocks until the container opens it (or settle does)
        except OSError:
            os.close(self.src)
            return
        try:
            while not self.stop.is_set():
                chunk = os.read(self.src, 65536)
                if not chunk:
                    return
                while chunk:
                    chunk = chunk[os.write(dst, chunk) :]
        except OSError:
            return
        finally:
            os.close(dst)
            os.close(self.src)

    def release(self) -> None:
        """Unblock a writer still waiting for a reader that never came (the container died first)."""
        with contextlib.suppress(OSError):
            os.close(os.open(self.fifo, os.O_RDONLY | os.O_NONBLOCK))


def _reads(fd: int) -> bool:
    """Whether ``fd`` is a read-only descriptor (the command reads it) rather than one it writes."""
    import fcntl

    return fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY


_ETC = ("passwd", "group", "hosts", "resolv.conf")
"""Mounted over the image's (Docker would otherwise copy the host's resolver and hosts in)."""


def write_etc(etc: Path) -> None:
    """The container's seccomp profile and its ``/etc/passwd``, ``/etc/group``, ``/etc/hosts`` and an
    empty ``/etc/resolv.conf`` (no network: nothing to resolve, and nothing of the host's), written
    into ``etc``."""
    etc.mkdir(mode=0o755)
    (etc / "seccomp.json").write_text(json.dumps(docker_profile(), indent=1))
    (etc / "passwd").write_bytes(passwd_lines())
    (etc / "group").write_bytes(group_lines())
    (etc / "hosts").write_text("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n")
    (etc / "resolv.conf").write_text("")
    for name in _ETC:
        os.chmod(etc / name, 0o644)


class DockerSandbox:
    """Runs commands in a throwaway container: no network, read-only root, capped tmpfs, caps dropped.

    The container starts as root with only the capabilities needed to open the relayed descriptors
    and drop its identity (SETUID, SETGID, SETPCAP, DAC_OVERRIDE), opens them, then ``setpriv``
    becomes uid 1000 with no capability left (bounding set cleared, ``no-new-privileges``): the FIFOs
    (0600, in a 0700 folder) cannot be opened by path by anything the submission runs.
    """

    name = "docker"
    isolated = True

    def __init__(self, settings: DockerSettings | None = None, *, environ: Mapping[str, str] | None = None) -> None:
        settings = settings or DockerSettings()
        docker = shutil.which("docker")
        env = client_env(environ)
        if docker is None or not _engine_answers(docker, env):
            raise SandboxError("no Docker engine answers (is it installed and started? `dockerd`, or DOCKER_HOST "
                               "for another daemon); pick another sandbox")  # fmt: skip
        if _client(docker, "image", "inspect", "--format", "{{.Id}}", settings.image, env=env).returncode != 0:
            raise SandboxError(f"the Docker image {settings.image!r} is not there: build it with "
                               f"`bouts sandbox image --tag {settings.image}` (docs/sandbox.md)")  # fmt: skip
        if settings.runtime != "runc":
            info = _client(docker, "info", "--format", "{{json .Runtimes}}", env=env)
            if settings.runtime not in (info.stdout or ""):
                raise SandboxError(f"the Docker engine has no runtime {settings.runtime!r} (docs/sandbox.md, gVisor)")
        self._docker, self._settings, self._env = docker, settings, env

    @property
    def settings(self) -> DockerSettings:
        return self._settings

    def build_argv(
        self, argv: Sequence[str], *, container: str, workspace: Path, fifo_dir: Path, fds: Sequence[int],
        env: Mapping[str, str], limits: Limits, mounts: Sequence[Mount], etc_dir: Path | None = None,
        workdir: str = WORKSPACE, hostname: str | None = None, timeout_s: float = 600,
        inward: Sequence[int] = (),
    ) -> list[str]:  # fmt: skip
        """The ``docker run`` command line (exposed for tests). ``etc_dir`` holds the files
        :func:`write_etc` wrote (default: ``etc`` next to ``fifo_dir``); ``inward``: the descriptors
        of ``fds`` the command reads (opened for reading inside), the rest it writes."""
        etc = etc_dir or fifo_dir.parent / "etc"
        settings = self._settings
        scratch = min(settings.tmp_mb, limits.memory_mb) * 1024 * 1024
        # Each process is held to memory_mb by RLIMIT_AS, as under bubblewrap (rlimit_args below): a
        # test's hog meets MemoryError in its own process. The container's cgroup is a backstop for
        # them all together, never the first limit one test meets (at memory_mb it would starve the
        # supervisor and the workers beside the hog until the test's timeout).
        mem = f"{max(2 * limits.memory_mb, limits.memory_mb + 1024)}m"
        owner = f"uid={SANDBOX_UID},gid={SANDBOX_UID}"
        gvisor = settings.runtime == "runsc"
        args = [
            self._docker, "run", "--rm", "--name", container, "--network", "none", "--read-only",
            "--runtime", settings.runtime, "--memory", mem, "--memory-swap", mem,
            "--user", "0:0", "--cap-drop", "ALL", *(a for c in _SETUP_CAPS for a in ("--cap-add", c)),
            "--security-opt", "no-new-privileges",
            "--ulimit", "core=0", "--ulimit", "nofile=1024",
            "--ulimit", f"fsize={limits.max_file_mb * 1024 * 1024}",
            "--tmpfs", f"/tmp:rw,exec,size={scratch},mode=1777",
            # No `-w`: runc would make the folder first (0755 root) and the tmpfs's owner be lost.
            "--tmpfs", f"{workdir}:rw,exec,size={scratch * 2},mode=0755,{owner}",
            "--tmpfs", f"{SANDBOX_HOME}:rw,exec,size={min(scratch, 64 * 1024 * 1024)},mode=0755,{owner}",
            *(a for name in _ETC for a in ("-v", f"{etc / name}:/etc/{name}:ro")),
            "--hostname", hostname or secrets.token_hex(6),  # like bubblewrap's: an ordinary machine's name
            "-v", f"{workspace}:{_SOURCE}:ro", "-v", f"{fifo_dir}:/bouts/fds",  # 0700, the engine's: root only
        ]  # fmt: skip
        if gvisor:
            # gVisor is itself a syscall filter between the container and the host kernel (its Sentry
            # implements the syscalls); it refuses an OCI seccomp profile unless started with
            # --oci-seccomp. Its own threads count against a pids cgroup: the limit is on processes
            # inside, enforced by the supervisor's RLIMIT_NPROC as under every backend.
            args += ["--pids-limit", str(max(limits.max_processes, 1024))]
        else:
            args += ["--pids-limit", str(limits.max_processes), "--security-opt", f"seccomp={etc / 'seccomp.json'}"]
        for prefix in {os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix)}:
            args += ["-v", f"{prefix}:{prefix}:ro"]
        for tool in ENGINE_TOOLS:  # the engine's own, as bubblewrap's bound /usr gives them: the same versions
            if os.path.isfile(tool):
                args += ["-v", f"{tool}:{tool}:ro"]
        for m in mounts:
            args += ["-v", f"{m.source}:{m.target}:ro"]
        for key, value in env.items():
            args += ["-e", f"{key}={value}"]
        reopen = " ".join(f"{fd}{'<' if fd in inward else '>'}/bouts/fds/{fd}" for fd in fds)
        drop = (f"setpriv --reuid={SANDBOX_UID} --regid={SANDBOX_UID} --clear-groups --inh-caps=-all "
                f"--bounding-set=-all --")  # fmt: skip
        inner = f'cp -R {_SOURCE}/. {shlex.quote(workdir)}/ && cd {shlex.quote(workdir)} && exec "$@"'
        script = (f"exec {reopen}; " if fds else "") + f"exec {drop} /bin/bash -c {shlex.quote(inner)} bash \"$@\""
        rlimits = rlimit_args(limits, timeout_s)
        if not gvisor:  # RLIMIT_NPROC counts uid 1000's processes host-wide under runc: the pids cgroup
            rlimits = [a for a in rlimits if not a.startswith("--nproc=")]  # counts this container's alone
        return args + [settings.image, "/bin/bash", "-c", script, "bash", *rlimits, *argv]

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
        workspace = Path(os.path.abspath(workspace))  # docker -v takes a relative path for a volume name
        with tempfile.TemporaryDirectory(prefix="bouts-docker-") as tmp:
            fifo_dir = Path(tmp) / "fds"
            fifo_dir.mkdir(mode=0o700)
            os.chmod(fifo_dir, 0o700)
            write_etc(Path(tmp) / "etc")
            relays: list[_Relay | _InwardRelay] = []

            def wrap(marked: list[str]) -> list[str]:
                # The start marker's descriptor is named in the marked command (`>&N`); relay it too.
                fds = list(pass_fds) + [int(marked[2].split(">&")[1].split()[0])]
                for fd in fds:
                    fifo = fifo_dir / str(fd)
                    os.mkfifo(fifo, 0o600)
                    os.chmod(fifo, 0o600)  # whatever the umask: the container's root opens it, nobody after
                    relays.append(_InwardRelay(fifo, fd) if _reads(fd) else _Relay(fifo, fd))
                for relay in relays:
                    relay.start()
                inward = [r for r, relay in zip(fds, relays, strict=True) if relay.inward]
                return self.build_argv(marked, container=container, workspace=workspace, fifo_dir=fifo_dir,
                                       inward=inward,
                                       fds=fds, env=env, limits=limits, mounts=mounts, workdir=workdir,
                                       timeout_s=timeout_s)  # fmt: skip

            def settle() -> None:
                # The docker client is gone; make sure the container is too, then flush the relays.
                with contextlib.suppress(SandboxError):
                    _client(self._docker, "rm", "-f", container, env=self._env)
                for relay in relays:
                    relay.stop.set()
                    if isinstance(relay, _InwardRelay):
                        relay.release()
                for relay in relays:
                    relay.join(timeout=10)

            return run_process(
                argv, cwd=None, env=self._env, limits=limits,
                timeout_s=timeout_s, pass_fds=pass_fds, on_spawn=on_spawn, wrap=wrap, settle=settle,
            )  # fmt: skip
