"""Batch sessions (``bouts.runner._batch``, docs/sandbox.md "Batch sessions"): submissions graded one
after another in one bubblewrap session. What one leaves behind (processes, files on every writable
mount, System V IPC objects, modes) is gone before the next starts; a submission that breaks the
session (kills its supervisor, leaves what cannot be undone, overruns its time) costs only itself:
the next is graded in a new session. Every hostile payload runs only inside the sandbox.
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys
from pathlib import Path

import pytest
from test_runner_externalised import RIGHT, WRONG, _challenge, _passed

from bouts.models.challenge import Limits
from bouts.models.results import Outcome
from bouts.runner import _batch, grade, run_suites
from bouts.runner._run import DRIVER_LIB
from bouts.sandbox import Sandbox

sys.path.insert(0, str(DRIVER_LIB))  # the driver's own package name, as the sandbox imports it
try:
    driver_batch = importlib.import_module("_bouts_driver.batch")
finally:
    sys.path.remove(str(DRIVER_LIB))

pytestmark = pytest.mark.sandbox

PROBE_TEST = """
from solution import probe

def test_clean():
    assert probe() == []
"""

CLEAN = '''
import os, subprocess

def probe():
    """What an earlier submission could have left where this one runs (not what the sandbox made
    for its mounts: an engine installed under /tmp has its directories there)."""
    with open("/proc/self/mountinfo") as fh:
        points = [line.split()[4] for line in fh]
    found = []
    for d in ("/tmp", os.environ["HOME"], "/dev/shm"):
        names = [n for n in os.listdir(d)
                 if not any(p == f"{d}/{n}" or p.startswith(f"{d}/{n}/") for p in points)]
        if names:
            found.append(f"{d}: {sorted(names)}")
    if os.stat("/tmp").st_mode & 0o7777 != 0o1777:
        found.append("/tmp mode")
    for d in ("/tmp", os.environ["HOME"], "/dev/shm"):
        if os.listxattr(d):  # an answer, or a default ACL, written on the directory itself
            found.append(f"{d}: xattrs {os.listxattr(d)}")
    if int(os.stat("/tmp").st_mtime) == 1234567:  # a number carried in a directory's times
        found.append("/tmp mtime")
    if os.path.lexists("/dev/leftover"):
        found.append("/dev/leftover")
    extra = set(os.listdir(".")) - {"solution.py", "tests", "__pycache__"}  # its own import's bytecode
    if extra:
        found.append(f"workspace: {sorted(extra)}")
    # Other processes' command lines are read by grep: the submission's own code reading one is
    # test-environment detection (docs/sandbox.md, "Grader context"), which would void this test.
    # The bracket keeps grep's own command line from matching.
    cmdlines = [f"/proc/{pid}/cmdline" for pid in filter(str.isdigit, os.listdir("/proc"))]
    hits = subprocess.run(["grep", "-l", "-s", "leftover-marke[r]", *cmdlines], capture_output=True, text=True)
    found += [f"process {path.split('/')[2]}" for path in hits.stdout.split()]
    with open("/proc/sysvipc/shm") as fh:
        if len(fh.read().splitlines()) > 1:
            found.append("shared memory")
    return found
'''

LITTERING = '''
import ctypes, os, subprocess, sys

def probe():
    """Leave something everywhere a later submission could look."""
    for d in ("/tmp", os.environ["HOME"], "/dev/shm", "."):
        with open(os.path.join(d, "left.txt"), "w") as fh:
            fh.write("from an earlier submission")
    for d in ("/tmp", os.environ["HOME"], "/dev/shm"):
        os.setxattr(d, "user.answer", b"42")
    os.makedirs("/tmp/deep/er/still", exist_ok=True)
    os.symlink("/etc/passwd", os.path.join(os.environ["HOME"], "link"))
    with open("/dev/leftover", "w") as fh:
        fh.write("x")
    os.chmod(os.environ["HOME"], 0o500)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmget(0x5EED, 4096, 0o1000 | 0o666)  # IPC_CREAT
    if os.fork() == 0:  # a daemon: double fork, new session
        os.setsid()
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)  # leftover-marker"])
        os._exit(0)
    os.wait()
    os.setxattr("/tmp", "system.posix_acl_default", bytes.fromhex("02000000" "01000000ffffffff" "04000000ffffffff"
                                                               "20000000ffffffff"))  # user::--- group::--- other::---
    os.chmod("/tmp", 0o700)
    os.utime("/tmp", (1234567, 1234567))
    return ["littered"]
'''


def _probe_challenge(make_challenge):  # noqa: ANN001, ANN202
    challenge, code_dir = make_challenge({"visible": {"test_probe.py": PROBE_TEST}}, {"solution.py": CLEAN})
    return challenge, code_dir


def _code(tmp_path: Path, name: str, text: str) -> Path:
    code = tmp_path / name
    code.mkdir()
    (code / "solution.py").write_text(text)
    return code


def _the_session() -> _batch.Session:
    assert _batch._ACTIVE is not None and len(_batch._ACTIVE) == 1
    return next(iter(_batch._ACTIVE.values()))


def test_a_submission_finds_nothing_an_earlier_one_left(make_challenge, bwrap: Sandbox, tmp_path: Path) -> None:
    challenge, clean = _probe_challenge(make_challenge)
    littering = _code(tmp_path, "littering", LITTERING)
    with _batch.batches():
        first = run_suites(challenge, clean, sandbox=bwrap)
        session = _the_session()
        dirty = run_suites(challenge, littering, sandbox=bwrap)
        after = run_suites(challenge, clean, sandbox=bwrap)
        again = run_suites(challenge, clean, sandbox=bwrap)
        assert _the_session() is session and session.served == 4  # one session graded all four
    assert [r.outcome for r in first.results] == [Outcome.PASSED], [r.detail for r in first.results]
    assert [r.outcome for r in dirty.results] == [Outcome.FAILED]
    assert "littered" in dirty.results[0].detail
    # The clean submission after the littering one finds none of it (its probe names what it finds).
    assert [(r.outcome, r.detail) for r in after.results] == [(Outcome.PASSED, "")]
    assert [r.outcome for r in again.results] == [Outcome.PASSED]
    assert session.dead and _batch._ACTIVE is None  # the batch ended with its block


def test_the_same_verdicts_as_sessions_of_their_own(make_challenge, bwrap: Sandbox, tmp_path: Path) -> None:
    # Externalised assertions and both seeds' phases: right, wrong, right in one session.
    challenge, right = _challenge(make_challenge, RIGHT)
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    (wrong / "calc.py").write_text(WRONG)
    alone = [sorted(_passed(grade(challenge, c, sandbox=bwrap, fresh_seed=99))) for c in (right, wrong)]
    with _batch.batches():
        together = [sorted(_passed(grade(challenge, c, sandbox=bwrap, fresh_seed=99))) for c in (right, wrong, right)]
        assert _the_session().served == 3
    assert together == [alone[0], alone[1], alone[0]]
    assert alone[0] == ["test_adds", "test_many", "test_more", "test_rejects_text", "test_seeded"]
    assert alone[1] != alone[0]


KILLER = """
import os, signal

def probe():
    # test process -> worker -> supervisor: kill the supervisor, and with it the session
    with open(f"/proc/{os.getppid()}/stat") as fh:
        supervisor = int(fh.read().rsplit(")", 1)[1].split()[1])
    os.kill(supervisor, signal.SIGKILL)
    return []
"""

DEEP = """
import os

def probe():
    # deeper than PATH_MAX: the driver cannot remove it by path, so the session ends
    os.chdir("/tmp")
    for _ in range(2200):
        os.mkdir("dd")
        os.chdir("dd")
    return []
"""


@pytest.mark.parametrize("hostile", [KILLER, DEEP], ids=["kills-the-supervisor", "leaves-what-cannot-be-undone"])
def test_a_submission_that_breaks_the_session_costs_only_itself(
    make_challenge, bwrap: Sandbox, tmp_path: Path, hostile: str
) -> None:
    challenge, clean = _probe_challenge(make_challenge)
    bad = _code(tmp_path, "bad", hostile)
    with _batch.batches():
        first = run_suites(challenge, bad, sandbox=bwrap)
        broken = _the_session() if _batch._ACTIVE else None
        after = run_suites(challenge, clean, sandbox=bwrap)
        later = run_suites(challenge, clean, sandbox=bwrap)
        assert _the_session() is not broken and not _the_session().dead
    if hostile is KILLER:
        assert first.results[0].outcome is not Outcome.PASSED
    assert [(r.outcome, r.detail) for r in after.results] == [(Outcome.PASSED, "")]
    assert [r.outcome for r in later.results] == [Outcome.PASSED]


STOPPER = """
import os, signal, time

def probe():
    with open(f"/proc/{os.getppid()}/stat") as fh:
        supervisor = int(fh.read().rsplit(")", 1)[1].split()[1])
    os.kill(supervisor, signal.SIGSTOP)  # nobody left to enforce the time limits inside
    time.sleep(600)
"""


def test_a_submission_over_its_time_is_stopped_from_outside(make_challenge, bwrap: Sandbox, tmp_path: Path) -> None:
    limits = Limits(test_timeout_s=1, suite_timeout_s=2, memory_mb=512, max_processes=32, max_file_mb=8,
                    max_output_kb=16)  # fmt: skip
    challenge, clean = make_challenge({"visible": {"test_probe.py": PROBE_TEST}}, {"solution.py": CLEAN}, limits=limits)
    stopper = _code(tmp_path, "stopper", STOPPER)
    with _batch.batches():
        stopped = run_suites(challenge, stopper, sandbox=bwrap)
        after = run_suites(challenge, clean, sandbox=bwrap)
    assert stopped.results[0].outcome is not Outcome.PASSED
    assert [(r.outcome, r.detail) for r in after.results] == [(Outcome.PASSED, "")]


def test_only_graded_runs_in_the_layout_share_a_session(make_challenge, bwrap: Sandbox) -> None:
    challenge, clean = _probe_challenge(make_challenge)
    run_suites(challenge, clean, sandbox=bwrap)
    assert _batch._ACTIVE is None  # no batch: nothing kept
    with _batch.batches():
        run_suites(challenge, clean, sandbox=bwrap, assertions="golden")  # a reference's run: its own session
        assert _batch._ACTIVE == {}
        run_suites(challenge, clean, sandbox=bwrap)
        other = challenge.model_copy(update={"spec": challenge.spec.model_copy(update={"limits": Limits()})})
        run_suites(other, clean, sandbox=bwrap)
        assert len(_batch._ACTIVE) == 2  # other limits: another session


def test_the_driver_puts_a_tree_back_as_it_was(tmp_path: Path) -> None:
    # The restore itself, on a scratch tree of the host (no submission code involved).
    root = tmp_path / "mount"
    (root / "keep" / "sub").mkdir(parents=True)
    (root / "keep").chmod(0o750)
    os.symlink("/nowhere", root / "link")
    want = driver_batch._tree(str(root))
    (root / "keep" / "new.txt").write_text("x")
    (root / "keep" / "sub" / "a" / "b").mkdir(parents=True)
    (root / "keep" / "sub" / "a").chmod(0o000)
    (root / "keep").chmod(0o700)
    (root / "link").unlink()
    os.symlink("/elsewhere", root / "link")
    shutil.rmtree(root / "keep" / "sub")
    (root / "stray").mkdir()
    os.utime(root / "keep", ns=(1, 1))
    now = driver_batch._restore_tree(str(root), want)
    assert {k: (v.kind, v.mode, v.target, v.times[1]) for k, v in now.items()} == {
        k: (v.kind, v.mode, v.target, v.times[1]) for k, v in want.items()
    }  # modification times too: a number written in one would outlive the submission
    assert sorted(p.name for p in root.iterdir()) == ["keep", "link"]
    assert os.readlink(root / "link") == "/nowhere"
