"""The seccomp filter every sandboxed command runs under: no namespaces, mounts, tracing or kernel objects.

Why: inside bubblewrap, graded code could otherwise ``unshare(CLONE_NEWUSER|CLONE_NEWNS)``,
become root of its own namespace and mount a tmpfs over the read-only ``tests/``. The filter
refuses that family of system calls (Docker's default profile is the reference: it denies the
same calls to a container without ``CAP_SYS_ADMIN``). See docs/sandbox.md, "seccomp".

What it does, per system call:

- a call on :data:`KILLED` → ``SECCOMP_RET_KILL_PROCESS``: the process dies with ``SIGSYS``. A
  refusal that only returned ``EPERM`` would go unnoticed; a death by ``SIGSYS`` is seen by the
  process's parent (the driver), which records it as a ``sandbox_escape`` attempt;
- ``clone`` with any namespace flag (:data:`NAMESPACE_FLAGS`, read from its first argument) → killed;
- ``clone3`` → ``ENOSYS``: its flags live in a struct in memory, which a filter cannot read, so
  it is refused as "not implemented"; glibc then falls back to ``clone``, which is checked;
- a call from a foreign architecture (32-bit ``int 0x80`` on x86-64, AArch32 on AArch64) or with
  the x32 ABI bit set → killed: those number the calls differently and would slip past the list;
- everything else → allowed.

The program is classic BPF built here in pure Python (no libseccomp needed): bubblewrap loads it
from a descriptor (``--seccomp FD``). :func:`docker_profile` states the same rules as a Docker
seccomp profile.
"""

from __future__ import annotations

import errno
import struct
from collections.abc import Mapping
from dataclasses import dataclass

KILLED: tuple[str, ...] = (
    # namespaces and mounts: the way out of a read-only bind and of the sandbox's view
    "unshare", "setns", "mount", "umount2", "pivot_root", "open_by_handle_at",
    "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
    # tracing and reading other processes' memory (the supervisor, a parallel test)
    "ptrace", "process_vm_readv", "process_vm_writev",
    # kernel objects a test has no business with
    "bpf", "perf_event_open", "keyctl", "add_key", "request_key",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
)  # fmt: skip
"""System calls that kill the calling process."""

NAMESPACE_FLAGS: Mapping[str, int] = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
"""``clone`` flags that create a namespace; ``clone`` with any of them kills the caller."""
_NAMESPACE_MASK = sum(NAMESPACE_FLAGS.values())


@dataclass(frozen=True)
class Arch:
    """One architecture the filter knows: its audit id and its system call numbers."""

    name: str
    audit: int
    """``AUDIT_ARCH_*``: what the kernel reports in ``seccomp_data.arch``."""
    numbers: Mapping[str, int]
    """System call numbers (from ``asm/unistd_64.h``, ``asm-generic/unistd.h``)."""
    x32_bit: bool = False
    """True where numbers with ``__X32_SYSCALL_BIT`` select the x32 ABI (x86-64)."""


_X86_64 = Arch("x86_64", 0xC000003E, {
    "unshare": 272, "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155, "open_by_handle_at": 304,
    "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "move_mount": 429, "open_tree": 428,
    "mount_setattr": 442, "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "bpf": 321,
    "perf_event_open": 298, "keyctl": 250, "add_key": 248, "request_key": 249, "init_module": 175,
    "finit_module": 313, "delete_module": 176, "kexec_load": 246, "kexec_file_load": 320,
    "clone": 56, "clone3": 435,
}, x32_bit=True)  # fmt: skip
_AARCH64 = Arch("aarch64", 0xC00000B7, {
    "unshare": 97, "setns": 268, "mount": 40, "umount2": 39, "pivot_root": 41, "open_by_handle_at": 265,
    "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "move_mount": 429, "open_tree": 428,
    "mount_setattr": 442, "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "bpf": 280,
    "perf_event_open": 241, "keyctl": 219, "add_key": 217, "request_key": 218, "init_module": 105,
    "finit_module": 273, "delete_module": 106, "kexec_load": 104, "kexec_file_load": 294,
    "clone": 220, "clone3": 435,
})  # fmt: skip
ARCHES: tuple[Arch, ...] = (_X86_64, _AARCH64)

# Classic BPF opcodes (linux/bpf_common.h) and seccomp return values (linux/seccomp.h).
_LD_W_ABS = 0x20  # A = 32-bit word at offset k of struct seccomp_data
_JEQ = 0x15  # if A == k
_JGE = 0x35  # if A >= k
_JSET = 0x45  # if A & k
_RET = 0x06
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000
_X32_SYSCALL_BIT = 0x40000000
# struct seccomp_data { int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6]; }
_OFF_NR, _OFF_ARCH, _OFF_ARG0_LOW = 0, 4, 16  # both architectures are little-endian


def bpf_program() -> bytes:
    """The filter as an array of ``struct sock_filter`` (what ``bwrap --seccomp FD`` reads)."""
    asm = _Assembler()
    asm.load(_OFF_ARCH)
    for arch in ARCHES:
        asm.jump(_JEQ, arch.audit, arch.name)
    asm.ret(RET_KILL_PROCESS)  # a foreign architecture
    for arch in ARCHES:
        asm.label(arch.name)
        asm.load(_OFF_NR)
        if arch.x32_bit:
            asm.jump(_JGE, _X32_SYSCALL_BIT, "kill")
        asm.jump(_JEQ, arch.numbers["clone3"], "enosys")
        asm.jump(_JEQ, arch.numbers["clone"], "clone")
        for name in KILLED:
            asm.jump(_JEQ, arch.numbers[name], "kill")
        asm.ret(RET_ALLOW)
    asm.label("clone")
    asm.load(_OFF_ARG0_LOW)  # the namespace flags all sit in the low half of clone's flags
    asm.jump(_JSET, _NAMESPACE_MASK, "kill")
    asm.ret(RET_ALLOW)
    asm.label("enosys")
    asm.ret(RET_ERRNO | errno.ENOSYS)
    asm.label("kill")
    asm.ret(RET_KILL_PROCESS)
    return asm.assemble()


def docker_profile() -> dict[str, object]:
    """The same rules as a Docker seccomp profile (``--security-opt seccomp=<file>``).

    Docker's own default profile is an allow-list; this one allows everything else, as
    :func:`bpf_program` does, and relies on the container having no capabilities for the rest.
    Unlisted architectures are killed by libseccomp's default bad-architecture action.
    """
    clone_rules = [
        {"names": ["clone"], "action": "SCMP_ACT_KILL_PROCESS",
         "args": [{"index": 0, "value": flag, "valueTwo": flag, "op": "SCMP_CMP_MASKED_EQ"}]}
        for flag in NAMESPACE_FLAGS.values()
    ]  # fmt: skip
    return {
        "defaultAction": "SCMP_ACT_ALLOW",
        "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_AARCH64"],
        "syscalls": [
            {"names": list(KILLED), "action": "SCMP_ACT_KILL_PROCESS"},
            {"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": errno.ENOSYS},
            *clone_rules,
        ],
    }


class _Assembler:
    """Just enough of a BPF assembler: forward jumps to labels, resolved to 8-bit offsets."""

    def __init__(self) -> None:
        self._code: list[tuple[int, int, str | None, int]] = []  # (opcode, k, jump-true label, index)
        self._labels: dict[str, int] = {}

    def load(self, offset: int) -> None:
        self._code.append((_LD_W_ABS, offset, None, len(self._code)))

    def jump(self, op: int, k: int, target: str) -> None:
        self._code.append((op, k, target, len(self._code)))

    def ret(self, value: int) -> None:
        self._code.append((_RET, value, None, len(self._code)))

    def label(self, name: str) -> None:
        self._labels[name] = len(self._code)

    def assemble(self) -> bytes:
        out = bytearray()
        for op, k, target, index in self._code:
            jt = 0
            if target is not None:
                jt = self._labels[target] - index - 1
                if not 0 <= jt <= 255:
                    raise ValueError(f"BPF jump to {target} out of range ({jt})")
            out += struct.pack("<HBBI", op, jt, 0, k)  # jf = 0: fall through to the next test
        return bytes(out)
