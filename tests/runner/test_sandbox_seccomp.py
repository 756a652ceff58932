"""The seccomp filter, checked offline: a tiny classic-BPF interpreter runs the generated program.

What runs through the real kernel (a process killed with SIGSYS, the record on the scorecard) is
in ``test_runner_escape.py``.
"""

from __future__ import annotations

import errno
import json
import struct
from pathlib import Path

import pytest

from bouts.models.challenge import Limits
from bouts.models.results import ObservedExploit, RunReport
from bouts.runner._channel import parse_record
from bouts.runner._exploits import MAX_EXPLOITS, merged, observed
from bouts.runner._grade import merge_phases
from bouts.runner._verdicts import RunEnd
from bouts.sandbox._bubblewrap import BubblewrapSandbox, Setup
from bouts.sandbox._docker import DockerSandbox, write_etc
from bouts.sandbox._kernel_log import seccomp_kill
from bouts.sandbox._seccomp import (
    ARCHES,
    KILLED,
    NAMESPACE_FLAGS,
    RET_ALLOW,
    RET_ERRNO,
    RET_KILL_PROCESS,
    bpf_program,
    docker_profile,
)

X86_64, AARCH64 = ARCHES
I386 = 0x40000003  # AUDIT_ARCH_I386: `int 0x80` from a 64-bit process


def run_filter(arch: int, nr: int, arg0: int = 0) -> int:
    """Evaluate the program on one ``struct seccomp_data`` (little-endian), as the kernel would."""
    data = struct.pack("<iIQ6Q", nr, arch, 0, arg0, 0, 0, 0, 0, 0)
    prog = [struct.unpack_from("<HBBI", bpf_program(), i) for i in range(0, len(bpf_program()), 8)]
    pc, acc = 0, 0
    for _ in range(len(prog)):
        code, jt, jf, k = prog[pc]
        if code == 0x20:  # ld [k]
            acc = struct.unpack_from("<I", data, k)[0]
            pc += 1
        elif code in (0x15, 0x35, 0x45):  # jeq / jge / jset
            hit = acc == k if code == 0x15 else acc >= k if code == 0x35 else bool(acc & k)
            pc += 1 + (jt if hit else jf)
        elif code == 0x06:
            return k
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")
    raise AssertionError("fell off the end of the program")


@pytest.mark.parametrize("arch", ARCHES, ids=lambda a: a.name)
def test_every_namespace_mount_and_tracing_call_kills_the_caller(arch) -> None:  # noqa: ANN001
    for name in KILLED:
        assert run_filter(arch.audit, arch.numbers[name]) == RET_KILL_PROCESS, name


@pytest.mark.parametrize("arch", ARCHES, ids=lambda a: a.name)
def test_clone_with_a_namespace_flag_is_killed_and_plain_clone_is_allowed(arch) -> None:  # noqa: ANN001
    clone = arch.numbers["clone"]
    sigchld, thread_flags = 17, 0x003D0F00  # what fork() and pthread_create pass
    assert run_filter(arch.audit, clone, sigchld) == RET_ALLOW
    assert run_filter(arch.audit, clone, thread_flags) == RET_ALLOW
    for name, flag in NAMESPACE_FLAGS.items():
        assert run_filter(arch.audit, clone, flag | sigchld) == RET_KILL_PROCESS, name
    assert run_filter(arch.audit, clone, (1 << 32) | sigchld) == RET_ALLOW  # high half: no namespace flags


@pytest.mark.parametrize("arch", ARCHES, ids=lambda a: a.name)
def test_clone3_says_not_implemented_so_libc_falls_back_to_the_checked_clone(arch) -> None:  # noqa: ANN001
    assert run_filter(arch.audit, arch.numbers["clone3"]) == RET_ERRNO | errno.ENOSYS


def test_ordinary_calls_are_allowed() -> None:
    for nr in (0, 1, 2, 57, 59, 60, 231, 257):  # read write open fork execve exit exit_group openat
        assert run_filter(X86_64.audit, nr) == RET_ALLOW


def test_a_foreign_architecture_and_the_x32_abi_are_killed() -> None:
    # 32-bit unshare is 310 under int 0x80: a list of 64-bit numbers would not catch it.
    assert run_filter(I386, 310) == RET_KILL_PROCESS
    assert run_filter(I386, 1) == RET_KILL_PROCESS
    assert run_filter(X86_64.audit, 0x40000000 | 272) == RET_KILL_PROCESS  # x32 unshare
    assert run_filter(X86_64.audit, 0x40000000 | 1) == RET_KILL_PROCESS


def test_the_docker_profile_states_the_same_rules() -> None:
    profile = docker_profile()
    rules = profile["syscalls"]
    assert profile["defaultAction"] == "SCMP_ACT_ALLOW"
    assert rules[0] == {"names": list(KILLED), "action": "SCMP_ACT_KILL_PROCESS"}
    assert rules[1] == {"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": errno.ENOSYS}
    masks = sorted(r["args"][0]["value"] for r in rules[2:])
    assert masks == sorted(NAMESPACE_FLAGS.values())
    assert all(r["args"][0]["op"] == "SCMP_CMP_MASKED_EQ" for r in rules[2:])
    json.dumps(profile)


def test_the_docker_command_line_runs_as_uid_1000_under_the_profile(tmp_path: Path) -> None:
    from bouts.sandbox._docker import DockerSettings

    box = object.__new__(DockerSandbox)
    box._docker, box._settings, box._env = "docker", DockerSettings(image="img"), {}  # type: ignore[attr-defined]
    write_etc(tmp_path / "etc")
    argv = box.build_argv(["python"], container="c", workspace=Path("/w"), fifo_dir=tmp_path / "fds", fds=[5],
                          env={}, limits=Limits(), mounts=[])  # fmt: skip
    joined = " ".join(argv)
    assert "setpriv --reuid=1000 --regid=1000 --clear-groups" in joined  # root opens the fds, then drops
    assert f"seccomp={tmp_path / 'etc' / 'seccomp.json'}" in joined
    assert f"{tmp_path / 'etc' / 'passwd'}:/etc/passwd:ro" in argv
    assert any(a.startswith("/home/dev:") and "uid=1000" in a for a in argv)
    assert json.loads((tmp_path / "etc" / "seccomp.json").read_text()) == docker_profile()


def test_the_bubblewrap_command_line_as_root_stages_sources_and_never_runs_bwrap_as_root(tmp_path: Path) -> None:
    box = object.__new__(BubblewrapSandbox)
    box._bwrap, box._tmp_mb = "/usr/bin/bwrap", 256
    setup = Setup(uid=1_600_000, hostname="0a1b2c3d4e5f", stage="/tmp/stage", seccomp_fd=7, passwd_fd=8, group_fd=9)
    argv, staged = box.command(["python"], workspace=tmp_path, env={}, limits=Limits(), timeout_s=5, setup=setup)
    bwrap = argv.index("/usr/bin/bwrap")
    assert argv[:4] == ["/usr/bin/unshare", "--mount", "--propagation", "private"]
    assert "--reuid=1600000" in argv[:bwrap] and "--clear-groups" in argv[:bwrap]
    tail = " ".join(argv[bwrap:])
    for flag in ("--unshare-user --uid 1000 --gid 1000 --disable-userns", "--hostname 0a1b2c3d4e5f",
                 "--seccomp 7", "--ro-bind-data 8 /etc/passwd", "--ro-bind-data 9 /etc/group",
                 "--tmpfs /home/dev", "--remount-ro /", "--unshare-net"):  # fmt: skip
        assert flag in tail, flag
    assert f"--ro-bind {tmp_path} " not in tail  # the workspace comes through the staging tmpfs
    assert argv[argv.index("/usr/bin/setpriv") - 1] == "/tmp/stage/fstab"  # one mount, from the stage's table
    assert str(tmp_path) in staged
    assert f"/tmp/stage/{staged.index(str(tmp_path))} /bouts/workspace-source" in tail


def test_the_kernel_log_names_the_call_for_the_runs_uid_only() -> None:
    line = ('5,348,820119608,-;audit: type=1326 audit(1796159404.650:9): auid=4294967295 uid=1650000 '
            'gid=1650000 ses=4294967295 pid=9270 comm="unshare" exe="/usr/bin/unshare" sig=31 arch=c000003e '
            'syscall=272 compat=0 ip=0x7f3c397f60f7 code=0x80000000')  # fmt: skip
    said = "unshare (number 272) by unshare, killed by the seccomp filter (kernel audit log)"
    assert seccomp_kill(line, 1650000) == said
    assert seccomp_kill(line, 1650001) is None  # another run's
    i386 = line.replace("arch=c000003e", "arch=40000003").replace("syscall=272", "syscall=310")
    assert "foreign architecture" in (seccomp_kill(i386, 1650000) or "")
    assert seccomp_kill(line.replace("sig=31", "sig=0"), 1650000) is None


def test_exploit_records_are_parsed_strictly_and_merged_once_per_attempt() -> None:
    rec = parse_record(json.dumps({"type": "result", "id": "t::a", "outcome": "failed", "exploits": [
        {"kind": "network", "evidence": "connect to 1.1.1.1:443\x1b[2J"}, {"kind": "root", "evidence": "x"},
        {"kind": "network"}]}).encode())  # fmt: skip
    assert rec.exploits == (("network", "connect to 1.1.1.1:443?[2J"),)
    again = parse_record(json.dumps({"type": "exploit", "where": "import", "kind": "network",
                                     "evidence": "connect to 1.1.1.1:443\x1b[2J"}).encode())  # fmt: skip
    assert parse_record(b'{"type": "exploit", "kind": "bogus", "evidence": "x"}').kind == "invalid"
    end = RunEnd(False, 0, None, forbidden_calls=("unshare (number 272) by python",))
    found = observed([rec, again], end)
    assert [(e.kind, e.where) for e in found] == [("sandbox_escape", ""), ("network", "t::a")]
    flood = [ObservedExploit(kind="network", evidence=f"connect to 10.0.0.{i}:1") for i in range(50)]
    assert len(merged(flood)) == MAX_EXPLOITS


def test_merge_phases_carries_the_exploits_of_both_seeds_once() -> None:
    seen = ObservedExploit(kind="sandbox_escape", evidence="unshare", where="t::a")
    first = RunReport(results=[], sandbox="bubblewrap", seeds=[1], exploits=[seen])
    lookup = ObservedExploit(kind="network", evidence="name lookup of x")
    again = seen.model_copy(update={"where": "t::b"})
    second = RunReport(results=[], sandbox="bubblewrap", seeds=[2], exploits=[again, lookup])
    assert [e.kind for e in merge_phases(first, second).exploits] == ["sandbox_escape", "network"]


def test_exploit_evidence_cannot_carry_hidden_test_text_out() -> None:
    # A "host name" the submission looks up is any text it likes: it is scrubbed like every detail.
    from bouts.runner._scrub import SecretIndex, scrub_report

    secret = "def test_hidden_case():\n    assert ledger.value('SKU-7') == 1999\n"
    index = SecretIndex.build([secret])
    leak = ObservedExploit(kind="network", evidence="name lookup of " + secret.replace("\n", " "),
                           where="tests/hidden/test_h.py::test_hidden_case")  # fmt: skip
    report = RunReport(results=[], sandbox="bubblewrap", exploits=[leak])
    (kept,) = scrub_report(report, index).exploits
    assert "SKU-7" not in kept.evidence and kept.kind == "network"
