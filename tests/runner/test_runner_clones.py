"""Clones (docs/sandbox.md, "Clones"): with two workers or more only worker 0 collects, and the
others are copies of it forked once it has, handed to the supervisor by a double fork. The
supervisor adopts a clone only when the process it names is a child of its own and not a worker
already. Every submission here runs only inside the bubblewrap sandbox."""

from __future__ import annotations

import collections
import subprocess
import sys
import textwrap

import pytest
from test_runner_sandbox import outcomes

from bouts.models.results import Outcome
from bouts.runner import RunOptions, run_suites
from bouts.runner._run import DRIVER_LIB
from bouts.sandbox import Sandbox

REPORT = """
import os, time
with open("/tmp/imports", "a") as fh:  # the sandbox's /tmp lasts the whole run
    fh.write(f"{os.getpid()}\\n")
""" + "".join(
    f"""
def test_{i}(tmp_path):
    (tmp_path / "x").write_text("1")
    time.sleep(0.02)
    imports = len(open("/tmp/imports").read().split())
    raise ValueError(f"worker={{os.getppid()}} imports={{imports}} tmp={{tmp_path.parent.name}}")
"""
    for i in range(12)
)


@pytest.mark.sandbox
@pytest.mark.parametrize("workers", [2, 3])
def test_the_submission_is_imported_once_and_every_worker_runs_tests(
    make_challenge, bwrap: Sandbox, workers: int
) -> None:
    # Each test fails on purpose with a detail naming its worker (its process's parent), how many
    # imports of the test file there were, and its pytest temporary directory.
    challenge, code = make_challenge({"visible": {"test_r.py": REPORT}})
    report = run_suites(challenge, code, sandbox=bwrap, options=RunOptions(workers=workers, canaries=False))
    details = collections.Counter(r.detail for r in report.results)
    assert sum(details.values()) == 12, details
    parsed = [dict(kv.split("=") for kv in d.removeprefix("ValueError: ").split()) for d in details]
    assert {p["imports"] for p in parsed} == {"1"}, details  # one collection for all workers
    by_worker = {p["worker"]: p["tmp"] for p in parsed}
    # Tests went to more than one worker (the supervisor hands out two ids per worker at a time),
    # and each worker has a temporary directory of its own.
    assert len(by_worker) > 1, details
    assert len(set(by_worker.values())) == len(by_worker) and all(
        tmp == f"bouts-pytest-{worker}" for worker, tmp in by_worker.items()
    ), details


@pytest.mark.sandbox
def test_a_forged_clone_claim_is_a_violation_and_the_run_goes_on(make_challenge, bwrap: Sandbox) -> None:
    # Code run at import in worker 0 writes a clone's greeting, naming its own worker, on every pipe
    # it can write to before the real clone speaks. The supervisor refuses it (a worker already),
    # and the tests are still run and decided.
    forger = textwrap.dedent("""
        import json, os, stat
        line = (json.dumps({"type": "clone", "pid": os.getpid()}) + "\\n").encode()
        for fd in map(int, os.listdir("/proc/self/fd")):
            try:
                if stat.S_ISFIFO(os.fstat(fd).st_mode) and os.get_blocking(fd):
                    os.write(fd, line)
            except OSError:
                pass
    """)
    tests = "import forger\n\ndef test_a():\n    assert 1 + 1 == 2\n\ndef test_b():\n    assert 2 * 2 == 4\n"
    challenge, code = make_challenge({"visible": {"test_f.py": tests}}, {"forger.py": forger})
    report = run_suites(challenge, code, sandbox=bwrap, options=RunOptions(workers=2, canaries=False))
    assert any("a clone that is not ours" in c for c in report.stability.crashes), report.stability.crashes
    assert outcomes(report) == {"test_a": Outcome.PASSED, "test_b": Outcome.PASSED}


ADOPTION = """
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from _bouts_driver.supervisor import Pending, Supervisor

host_r, host_w = os.pipe()
sup = Supervisor({"workers": 1, "suite_of": {}}, host_w, {})

def pending():
    cmd_r, cmd_w = os.pipe()
    up_r, up_w = os.pipe()
    p = Pending(1, up_r, cmd_w)
    sup.pending[up_r] = p
    sup.sel.register(up_r, 1, ("clone", p))
    return p, up_w

def hello(pid):
    return json.dumps({"type": "clone", "pid": pid}).encode() + b"\\n"

# A process that is not a child of ours (our parent) is refused.
p, up = pending()
os.write(up, hello(os.getppid()))
sup._adopt(p)
assert not sup.pending and not sup.workers
# No greeting at all (the worker died or could not fork): dropped without a violation.
p, up = pending()
os.close(up)
sup._adopt(p)
assert not sup.pending and not sup.workers
# A child of ours, greeting in two pieces, its collected record right behind: adopted and read.
child = os.fork()
if child == 0:
    time.sleep(30)
    os._exit(0)
try:
    p, up = pending()
    line = hello(child) + json.dumps({"type": "collected", "ids": ["t::a"]}).encode() + b"\\n"
    os.write(up, line[:5])
    sup._adopt(p)
    assert sup.pending and not sup.workers  # not a whole line yet
    os.write(up, line[5:])
    sup._adopt(p)
    assert not sup.pending and list(sup.workers) == [child] and sup.workers[child].collected == {"t::a"}
    # The same process named again by another channel: a worker already, refused.
    p, up = pending()
    os.write(up, hello(child))
    sup._adopt(p)
    assert list(sup.workers) == [child] and not sup.pending
finally:
    os.kill(child, 9)
    os.waitpid(child, 0)
os.close(host_w)
kinds = [json.loads(x)["type"] for x in os.read(host_r, 1 << 20).splitlines()]
print(kinds)
"""


def test_the_supervisor_adopts_only_its_own_children() -> None:
    # Outside the sandbox, in a fresh interpreter: no submission code, a child that only sleeps.
    out = subprocess.run(
        [sys.executable, "-c", ADOPTION, str(DRIVER_LIB)], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    # Two refusals reported as violations; the adopted clone's collection reaches the host.
    assert out.strip() == "['violation', 'integrity', 'collected', 'violation']"
