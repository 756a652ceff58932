"""Attacks on the sandbox itself, each run only through bubblewrap: namespaces, mounts, tracing,
network, grader detection, fork and memory bombs. Each must fail, and be seen.

The seccomp filter kills a process making a forbidden call (SIGSYS); the driver and, under a
root engine, the kernel's audit log report it as ``sandbox_escape``; an audit hook reports an
outbound connection as ``network`` (docs/sandbox.md).
"""

from __future__ import annotations

import os
import socket
import textwrap
import time
from pathlib import Path

import pytest

from bouts.models.results import Outcome
from bouts.pipeline import score
from bouts.runner import run_suites
from bouts.sandbox import Sandbox

pytestmark = pytest.mark.sandbox

LIBC = "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000


def outcomes(report) -> dict[str, Outcome]:  # noqa: ANN001
    return {r.id.split("::")[-1]: r.outcome for r in report.results}


def escapes(report) -> list[str]:  # noqa: ANN001
    return [e.evidence for e in report.exploits if e.kind == "sandbox_escape"]


def test_unshare_then_mounting_over_the_read_only_tests_is_refused_and_recorded(make_challenge, bwrap: Sandbox):
    # The attack: become root of a new user+mount namespace, hide the read-only tests/
    # under a tmpfs and plant a passing copy. The first call kills the process.
    attack = LIBC + f"""
def take_over():
    if libc.unshare({CLONE_NEWUSER | CLONE_NEWNS}) != 0:
        return "refused with errno %d" % ctypes.get_errno()
    libc.mount(b"none", b"/workspace/tests", b"tmpfs", 0, None)
    open("/workspace/tests/visible/test_b.py", "w").write("def test_b(): pass\\n")
    return "mounted"
"""
    challenge, code = make_challenge(
        {"visible": {
            "test_a.py": "import evil\ndef test_a(): assert evil.take_over() == 'nothing'\n",
            "test_b.py": "def test_b(): assert False, 'the real test'\n",
        }},
        {"evil.py": attack},
    )  # fmt: skip
    report = run_suites(challenge, code, sandbox=bwrap)
    assert outcomes(report) == {"test_a": Outcome.CRASHED, "test_b": Outcome.FAILED}
    assert "SIGSYS" in next(r.detail for r in report.results if r.id.endswith("test_a"))
    assert escapes(report), report.exploits
    if os.geteuid() == 0:  # the kernel's own record names the call
        assert any(e.startswith("unshare (number") for e in escapes(report)), report.exploits
    assert any("crashed" in c for c in report.stability.crashes)


def test_os_unshare_a_ctypes_mount_syscall_and_ptrace_are_refused_and_recorded(make_challenge, bwrap: Sandbox):
    nr = {"x86_64": (165, 101), "aarch64": (40, 117)}[os.uname().machine]
    tests = LIBC + f"""
import subprocess
def test_os_unshare():
    unshare = getattr(os, "unshare", None) or (lambda flags: libc.unshare(flags))  # os.unshare: 3.12+
    unshare({CLONE_NEWUSER})
def test_mount_syscall():
    libc.syscall({nr[0]}, b"none", b"/workspace/tests", b"tmpfs", 0, None)
def test_ptrace_the_worker():
    libc.ptrace(16, os.getppid(), 0, 0)  # PTRACE_ATTACH
def test_unshare_command_in_a_child():
    assert subprocess.run(["/usr/bin/unshare", "-U", "true"]).returncode == -31  # SIGSYS
def test_after():
    assert True
"""
    challenge, code = make_challenge({"visible": {"test_s.py": tests}})
    report = run_suites(challenge, code, sandbox=bwrap)
    assert outcomes(report) == {
        "test_os_unshare": Outcome.CRASHED,
        "test_mount_syscall": Outcome.CRASHED,
        "test_ptrace_the_worker": Outcome.CRASHED,
        "test_unshare_command_in_a_child": Outcome.PASSED,
        "test_after": Outcome.PASSED,
    }
    assert escapes(report)
    if os.geteuid() == 0:  # the kernel's record names each call (one record per call)
        named = {e.split(" ")[0] for e in escapes(report)}
        assert {"unshare", "mount", "ptrace"} <= named, report.exploits


@pytest.mark.skipif(os.geteuid() != 0, reason="the kernel's audit log is read under a root engine only")
def test_a_forbidden_call_in_a_grandchild_reaped_by_the_test_is_still_recorded(make_challenge, bwrap: Sandbox):
    # The test waits for its own child, so the driver never sees the SIGSYS: the kernel does.
    tests = "import subprocess\ndef test_a():\n    subprocess.run(['/usr/bin/unshare', '-Urm', 'true'])\n"
    challenge, code = make_challenge({"visible": {"test_g.py": tests}})
    report = run_suites(challenge, code, sandbox=bwrap)
    assert outcomes(report) == {"test_a": Outcome.PASSED}
    assert escapes(report) == ["unshare (number 272) by unshare, killed by the seccomp filter (kernel audit log)"] or (
        os.uname().machine != "x86_64" and escapes(report)
    )


def test_an_outbound_connection_is_recorded_as_network_and_local_sockets_are_not(make_challenge, bwrap: Sandbox):
    tests = """
import socket, pytest
def test_connect_out():
    with pytest.raises(OSError):
        socket.create_connection(("1.1.1.1", 443), timeout=1)
def test_lookup():
    with pytest.raises(OSError):
        socket.getaddrinfo("example.com", 443)
def test_local():
    for family, address in ((socket.AF_UNIX, "/tmp/nothing.sock"), (socket.AF_INET, ("127.0.0.1", 5432))):
        with pytest.raises(OSError), socket.socket(family) as s:
            s.connect(address)
"""
    challenge, code = make_challenge({"visible": {"test_n.py": tests}})
    report = run_suites(challenge, code, sandbox=bwrap)
    assert set(outcomes(report).values()) == {Outcome.PASSED}
    assert sorted((e.kind, e.evidence, e.where.split("::")[-1]) for e in report.exploits) == [
        ("network", "connect to 1.1.1.1:443", "test_connect_out"),
        ("network", "name lookup of example.com", "test_lookup"),
    ]


def test_a_connection_made_while_the_code_is_imported_is_recorded(make_challenge, bwrap: Sandbox):
    challenge, code = make_challenge(
        {"visible": {"test_i.py": "import phone_home\ndef test_a(): assert phone_home.ok\n"}},
        {"phone_home.py": "import socket\ntry:\n    socket.create_connection(('8.8.8.8', 53), timeout=1)\n"
                          "except OSError:\n    pass\nok = True\n"},
    )  # fmt: skip
    report = run_suites(challenge, code, sandbox=bwrap)
    assert outcomes(report) == {"test_a": Outcome.PASSED}
    assert [(e.kind, e.evidence) for e in report.exploits] == [("network", "connect to 8.8.8.8:53")]
    assert report.exploits[0].where == "importing the tests and code"


def test_the_sandbox_looks_like_an_ordinary_machine_not_a_grader(make_challenge, bwrap: Sandbox):
    # Code that behaves only when os.getuid() looks like the grader's has nothing to key on.
    tests = f"""
import os, pwd, socket
def test_identity():
    assert (os.getuid(), os.getgid(), os.geteuid()) == (1000, 1000, 1000)
    assert pwd.getpwuid(1000).pw_name == "dev" == os.environ["USER"] == os.environ["LOGNAME"]
    assert os.environ["HOME"] == pwd.getpwuid(1000).pw_dir == "/home/dev"
    assert os.path.expanduser("~") == "/home/dev"
    with open(os.path.expanduser("~/.config-test"), "w") as fh:
        fh.write("writable")
    assert os.getcwd() == "/workspace"
def test_hostname():
    assert socket.gethostname() != {socket.gethostname()!r}
    assert len(socket.gethostname()) == 12
"""
    challenge, code = make_challenge({"visible": {"test_u.py": tests}})
    report = run_suites(challenge, code, sandbox=bwrap)
    assert set(outcomes(report).values()) == {Outcome.PASSED}, report.results


def test_a_fork_bomb_left_behind_by_a_test_dies_with_it_and_is_a_crash(make_challenge, bwrap: Sandbox):
    # The test returns at once; its children keep forking. The sweep must end them all, every
    # other test must still start, and the run must not wait on the bomb.
    tests = """
import os, time
def test_bomb():
    if os.fork() == 0:
        while True:
            try:
                os.fork()
            except OSError:
                time.sleep(0.001)
    time.sleep(0.3)
""" + "".join(f"def test_after_{i}(): time.sleep(0.05)\n" for i in range(10))
    challenge, code = make_challenge({"visible": {"test_f.py": tests}})
    start = time.monotonic()
    report = run_suites(challenge, code, sandbox=bwrap)
    assert time.monotonic() - start < 20
    got = outcomes(report)
    assert got.pop("test_bomb") is Outcome.CRASHED
    assert set(got.values()) == {Outcome.PASSED}, report.results
    assert any("fork bomb" in c for c in report.stability.crashes)


def test_memory_exhausted_while_importing_is_a_crash_not_a_clean_run(make_challenge, bwrap: Sandbox):
    challenge, code = make_challenge(
        {"visible": {"test_m.py": "import hog\ndef test_a(): assert hog.ok\n"}},
        {"hog.py": "hog = []\nwhile True:\n    hog.append(bytearray(16 * 1024 * 1024))\nok = True\n"},
    )
    report = run_suites(challenge, code, sandbox=bwrap)
    assert [r.outcome for r in report.results] == [Outcome.ERROR]
    assert any("out of memory" in c for c in report.stability.crashes), report.stability


CHALLENGE_TOML = """
id = "tiny-calc"
title = "Tiny calculator"
profile = "composite"
[limits]
test_timeout_s = 3
suite_timeout_s = 60
memory_mb = 256
max_processes = 16
[adversarial]
generate = false
"""


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))
    return root


def test_an_escape_attempt_is_a_bright_line_and_an_exploit_penalty_on_the_scorecard(tmp_path: Path) -> None:
    good = "def add(a, b):\n    return a + b\n"
    challenge = _write(tmp_path / "challenge", {
        "challenge.toml": CHALLENGE_TOML, "starter/calc.py": "def add(a, b):\n    return 0\n",
        "reference/calc.py": good,
        "tests/visible/test_calc.py": "from calc import add\ndef test_add():\n    assert add(2, 3) == 5\n",
        "tests/hidden/test_calc_hidden.py": "from calc import add\ndef test_swapped():\n    assert add(3, 2) == 5\n",
    })  # fmt: skip
    evil = good + LIBC + f"libc.unshare({CLONE_NEWUSER | CLONE_NEWNS})\n"  # at import: the worker dies
    sub = _write(tmp_path / "sub", {
        "submission.toml": 'agent = "tester"\nchallenge = "tiny-calc"\niteration = 1\n', "code/calc.py": evil,
    })  # fmt: skip
    card = score(challenge, sub).model_dump(mode="json")
    assert card["adjustments"]["exploit_penalties"] >= 25
    assert card["adjustments"]["integrity"] == -25
    math = "\n".join(card["math"])
    assert "circumventing sandbox restrictions" in math and "exploit: sandbox_escape" in math
    assert socket.gethostname() not in math
