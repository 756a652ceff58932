"""Many submissions through one batch session (issue 43): do the session's descriptors, processes and
memory stay flat, and is every verdict the one the submission gets in a session of its own?

    .venv/bin/python benchmarks/bench_long_session.py [--samples 10000] [--every 250] [--nofile 1024]

A tiny challenge (``add``: two visible tests, three hidden ones re-run under a fresh seed) and five
kinds of submission in turn: right, wrong, one whose test process crashes (``os._exit``), one that
leaves a daemon behind, one that litters ``/tmp`` and ``HOME``. Each kind is first graded alone (a
session of its own), then ``--samples`` submissions are graded in one batch session
(``MAX_SAMPLES`` raised to the run's size, so one session takes them all) with this process'
descriptor limit at ``--nofile`` (the sandbox inherits it; the leak issue 43 found ended a session
at the 125th submission under 1,024). Every ``--every`` submissions it prints the session's
descriptors, processes and resident memory (all its processes, from ``/proc``) and this process'
descriptors; at the end, how many verdicts differ from the kind's verdict alone, and how many
sessions were started (1 when no session died). Results: docs/benchmarks.md ("Long batch sessions").
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "runner"))

from test_runner_batch_long import session_usage  # noqa: E402

from bouts.models.challenge import Challenge, ChallengeSpec, Limits  # noqa: E402
from bouts.runner import _batch, grade  # noqa: E402
from bouts.sandbox import get_sandbox  # noqa: E402

TESTS = {
    "visible": {
        "test_v.py": "from calc import add\n"
        "def test_adds():\n    assert add(1, 2) == 3\n"
        "def test_more():\n    assert add(2, 2) == 4\n"
    },
    "hidden": {
        "test_h.py": "import pytest\nfrom calc import add\n"
        "def test_seeded(bouts_seed):\n    assert add(bouts_seed, 1) == bouts_seed + 1\n"
        "def test_many(bouts_seed):\n"
        "    assert [add(i, bouts_seed) for i in range(5)] == [i + bouts_seed for i in range(5)]\n"
        "def test_rejects_text():\n    with pytest.raises(TypeError):\n        add('a', 1)\n"
    },
}
RIGHT = "def add(a, b):\n    return a + b\n"
KINDS = {
    "right": RIGHT,
    "wrong": "def add(a, b):\n    return a - b\n",
    "crash": "import os\ndef add(a, b):\n    if a == 2:\n        os._exit(3)\n    return a + b\n",
    "daemon": (
        "import os, subprocess, sys\n"
        "def add(a, b):\n"
        "    if a == 1 and os.fork() == 0:\n"
        "        os.setsid()\n"
        "        subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        "        os._exit(0)\n"
        "    return a + b\n"
    ),
    "litter": (
        "import os\n"
        "def add(a, b):\n"
        "    for d in ('/tmp', os.environ['HOME'], '.'):\n"
        "        with open(os.path.join(d, f'left-{a}-{b}'), 'w') as fh:\n"
        "            fh.write('x' * 4096)\n"
        "    return a + b\n"
    ),
}


def challenge(root: Path) -> Challenge:
    files: dict[str, list[str]] = {}
    for suite, tests in TESTS.items():
        (root / "tests" / suite).mkdir(parents=True)
        for name, text in tests.items():
            (root / "tests" / suite / name).write_text(text)
        files[suite] = [f"tests/{suite}/{name}" for name in tests]
    (root / "reference").mkdir()
    (root / "reference" / "calc.py").write_text(RIGHT)
    limits = Limits(test_timeout_s=5, suite_timeout_s=30, memory_mb=512, max_processes=64, max_file_mb=8,
                    max_output_kb=64)  # fmt: skip
    spec = ChallengeSpec(id="tiny", title="Tiny", limits=limits, tests={"seed": 1234})
    return Challenge(root=root, spec=spec, content_hash="bench", suite_hashes={s: "bench" for s in TESTS},
                     test_files=files, severities={})  # type: ignore[arg-type]  # fmt: skip


def verdict(report) -> tuple[tuple[str, str], ...]:  # noqa: ANN001
    return tuple(sorted((r.id, r.outcome.value) for r in report.results))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=10_000)
    ap.add_argument("--every", type=int, default=250)
    ap.add_argument("--nofile", type=int, default=1024)
    args = ap.parse_args()
    resource.setrlimit(resource.RLIMIT_NOFILE, (args.nofile, args.nofile))
    sandbox = get_sandbox("bubblewrap")
    _batch.MAX_SAMPLES = args.samples
    _batch.SESSION_S = 10 * 24 * 3600.0
    with tempfile.TemporaryDirectory(prefix="bouts-bench-long-") as tmp:
        ch = challenge(Path(tmp) / "challenge")
        codes = {}
        for kind, text in KINDS.items():
            codes[kind] = Path(tmp) / kind
            codes[kind].mkdir()
            (codes[kind] / "calc.py").write_text(text)
        alone = {kind: verdict(grade(ch, code, sandbox=sandbox, fresh_seed=99)) for kind, code in codes.items()}
        names = list(KINDS)
        sessions: dict[int, object] = {}
        differ = 0
        started = time.monotonic()
        print("| submissions | session descriptors | session processes | session RSS (MB) | host descriptors |")
        print("|---:|---:|---:|---:|---:|")
        with _batch.batches():
            for n in range(1, args.samples + 1):
                kind = names[n % len(names)]
                got = verdict(grade(ch, codes[kind], sandbox=sandbox, fresh_seed=99))
                differ += got != alone[kind]
                session = next(iter((_batch._ACTIVE or {}).values()), None)
                if session is not None:
                    sessions[id(session)] = session  # kept: an id is never reused
                if session is not None and (n % args.every == 0 or n in (1, 10)):
                    fds, procs, rss = session_usage(session)
                    host = len(os.listdir("/proc/self/fd"))
                    print(f"| {n} | {fds} | {procs} | {rss / 1024:.1f} | {host} |", flush=True)
        wall = time.monotonic() - started
    print(f"\n{args.samples} submissions, {wall:.0f} s wall ({wall / args.samples:.3f} s each); "
          f"verdicts differing from alone: {differ}; sessions started: {len(sessions)}")  # fmt: skip


if __name__ == "__main__":
    main()
