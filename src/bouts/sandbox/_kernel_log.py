"""The kernel's own record of a seccomp kill: evidence read on the host, out of the sandbox's reach.

When the seccomp filter (``_seccomp.py``) kills a process, the kernel logs an audit record
(``type=1326``, ``sig=31``) naming the *host* uid, the command and the system call. Under a root
engine every run has its own host uid, so the records of one run are exactly those with its uid:
nothing inside the sandbox can forge, hide or clear them, and they name the call even when the
killed process was a grandchild whose death only its (untrusted) parent saw.

Best effort: with ``/dev/kmsg`` unreadable (not root, some containers), with auditd taking the
records, or past the kernel's printk rate limit, nothing is found here and the driver's own
records (a ``SIGSYS`` death its parent saw) are the evidence.
"""

from __future__ import annotations

import contextlib
import os
import re

from bouts.sandbox._seccomp import ARCHES

_RECORD = re.compile(
    r"type=1326 .*?\buid=(?P<uid>\d+) .*?\bcomm=(?P<comm>\"[^\"]*\"|\S+) .*?\bsig=31 "
    r"arch=(?P<arch>[0-9a-f]+) syscall=(?P<nr>\d+)"
)
_NAMES = {arch.audit: {nr: name for name, nr in arch.numbers.items()} for arch in ARCHES}


def seccomp_kill(line: str, uid: int) -> str | None:
    """The call a kernel log line says the filter killed a process of ``uid`` for, in words; else None."""
    m = _RECORD.search(line)
    if m is None or int(m["uid"]) != uid:
        return None
    arch, nr = int(m["arch"], 16), int(m["nr"])
    comm = "".join(c if c.isprintable() else "?" for c in m["comm"].strip('"'))[:32]
    if arch not in _NAMES:
        call = f"a system call from a foreign architecture (arch {arch:#x}, number {nr})"
    elif nr & 0x40000000:
        call = f"an x32-ABI system call (number {nr})"
    else:
        call = f"{_NAMES[arch].get(nr, 'system call')} (number {nr})"
    return f"{call} by {comm}, killed by the seccomp filter (kernel audit log)"


class KernelLog:
    """Reads the kernel log from the moment it was opened; a no-op when it cannot be read."""

    def __init__(self) -> None:
        self._fd: int | None = None
        with contextlib.suppress(OSError):
            fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            try:
                os.lseek(fd, 0, os.SEEK_END)  # only what is logged from now on
            except OSError:
                os.close(fd)
                raise
            self._fd = fd

    def seccomp_kills(self, uid: int, limit: int = 20) -> tuple[str, ...]:
        """Seccomp kills of ``uid`` logged since the log was opened, one per call (at most ``limit``)."""
        found: list[str] = []
        for _ in range(10_000):  # bounded: the log of a busy machine must not hold us
            if self._fd is None:
                break
            try:
                record = os.read(self._fd, 8192)
            except BlockingIOError:
                break
            except BrokenPipeError:  # records overwritten while we were away: keep reading
                continue
            except OSError:
                break
            said = seccomp_kill(record.decode(errors="replace"), uid)
            call = said.split(" by ")[0] if said else None
            if said and all(f.split(" by ")[0] != call for f in found) and len(found) < limit:
                found.append(said)  # one per call: the same call by another process is the same attempt
        return tuple(found)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
