"""CPU time of a command *and every process it starts*, through a cgroup v2 of our own.

``resource.getrusage(RUSAGE_CHILDREN)`` only sees children that were waited for by their parent;
bubblewrap's sandboxed processes are reaped inside a PID namespace (and the launcher may run them
under another uid), so their CPU never reaches the caller's rusage. A cgroup counts every task
that was ever in it, whoever reaps it. Needs a writable cgroup v2 hierarchy (root, or a delegated
subtree); the hybrid layout's ``/sys/fs/cgroup/unified`` works: its ``cpu.stat`` has the base
``usage_usec``/``user_usec``/``system_usec`` without any controller enabled.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

_ROOTS = (Path("/sys/fs/cgroup/unified"), Path("/sys/fs/cgroup"))


@dataclass(frozen=True)
class Usage:
    """One command's cost: wall seconds and CPU core-seconds of its whole process tree."""

    wall_s: float
    cpu_s: float
    user_s: float
    system_s: float
    stdout: bytes = b""
    stderr: bytes = b""
    """What the command printed (``measure``), for a benchmark to check what it measured."""


def cgroup_root() -> Path:
    """The first cgroup v2 mount we can create a child cgroup in; a clear error otherwise."""
    for root in _ROOTS:
        if (root / "cgroup.controllers").is_file() and (root / "cpu.stat").is_file() and os.access(root, os.W_OK):
            return root
    raise SystemExit("no writable cgroup v2 hierarchy (tried /sys/fs/cgroup/unified and /sys/fs/cgroup): run as root")


def _cpu_stat(path: Path) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in (path / "cpu.stat").read_text().splitlines():
        key, _, value = line.partition(" ")
        out[key] = int(value)
    return out


def measure(
    argv: Sequence[str], *, cwd: Path | None = None, env: Mapping[str, str] | None = None, check: bool = True
) -> Usage:
    """Run ``argv`` in a fresh cgroup; its wall time and the CPU of every process it started."""
    group = cgroup_root() / f"bouts-bench-{os.getpid()}-{time.monotonic_ns()}"
    group.mkdir()
    procs = group / "cgroup.procs"

    def enter() -> None:  # in the child, before exec: everything it starts inherits the cgroup
        with open(procs, "w") as fh:
            fh.write("0")

    try:
        start = time.perf_counter()
        done = subprocess.run(  # noqa: S603 - a benchmark's own fixed argv
            list(argv), cwd=cwd, env=dict(env) if env is not None else None, preexec_fn=enter,
            capture_output=True,
        )  # fmt: skip
        wall = time.perf_counter() - start
        if check and done.returncode != 0:
            raise SystemExit(f"{argv[0]} failed ({done.returncode}): {done.stderr.decode(errors='replace')[-2000:]}")
        stat = _cpu_stat(group)
    finally:
        _remove(group)
    return Usage(
        wall, stat["usage_usec"] / 1e6, stat["user_usec"] / 1e6, stat["system_usec"] / 1e6, done.stdout, done.stderr
    )


class Meter:
    """This process (and everything it starts from now on) in a cgroup of its own: ``cpu_s()`` is
    the CPU the whole tree has used so far, children reaped or not. Use as a context manager."""

    def __init__(self) -> None:
        self.root = cgroup_root()
        self.group = self.root / f"bouts-bench-{os.getpid()}-{time.monotonic_ns()}"

    def __enter__(self) -> Meter:
        self.group.mkdir()
        (self.group / "cgroup.procs").write_text(str(os.getpid()))
        return self

    def cpu_s(self) -> float:
        return _cpu_stat(self.group)["usage_usec"] / 1e6

    def __exit__(self, *exc: object) -> None:
        (self.root / "cgroup.procs").write_text(str(os.getpid()))
        _remove(self.group)


def _remove(group: Path) -> None:
    """rmdir once the last task left (a sandbox's tree is reaped asynchronously)."""
    for _ in range(200):
        try:
            group.rmdir()
            return
        except OSError:
            time.sleep(0.01)
