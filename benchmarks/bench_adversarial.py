"""Issue 7: how long the generated adversarial tests take, idle and under CPU load.

    .venv/bin/python benchmarks/bench_adversarial.py [--repeat 3] [--load 0,4]

For each bundled example's reference and anchors (and the planted fixtures of
``tests/adversarial``), analyse, generate with seed 1234 and run the generated tests through
the bubblewrap sandbox exactly as scoring does (``run_generated``). Prints, per submission, the
number of generated tests, the wall time of the run (median over ``--repeat``) and the mean and
maximum duration of one test. ``--load N`` runs the same with N busy-looping processes of its own
on the machine (started here, ended here). Results are recorded in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bouts.adversarial import run_generated
from bouts.loading import load_challenge
from bouts.models.challenge import Challenge, ChallengeSpec
from bouts.sandbox import get_sandbox

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SUBMISSIONS = [
    ("inventory-ledger", "reference"), ("inventory-ledger", "anchors/low/code"),
    ("room-bookings", "reference"), ("room-bookings", "anchors/low/code"),
    ("planted", "weak"), ("planted", "fixed"),
]  # fmt: skip


def _challenge(name: str) -> tuple[Challenge, Path]:
    if name == "planted":
        spec = ChallengeSpec(id="planted", title="Planted")
        fixtures = ROOT / "tests" / "adversarial_gen" / "fixtures"
        return Challenge(root=Path("/nonexistent"), spec=spec, content_hash="c" * 64, suite_hashes={},
                         test_files={}), fixtures  # fmt: skip
    return load_challenge(EXAMPLES / name), EXAMPLES / name


def measure(repeat: int) -> None:
    sandbox = get_sandbox("bubblewrap")
    for name, sub in SUBMISSIONS:
        challenge, root = _challenge(name)
        walls, durations, n = [], [], 0
        for _ in range(repeat):
            start = time.monotonic()
            run = run_generated(challenge, root / sub, sandbox=sandbox, seed=1234)
            walls.append(time.monotonic() - start)
            got = [r.duration_s for _, r in run.outcomes() if r is not None]
            durations += got
            n = len(got)
        print(f"  {name}/{sub}: {n} tests, wall {statistics.median(walls):.1f} s, per test mean "
              f"{statistics.mean(durations or [0]):.2f} s, max {max(durations or [0]):.2f} s")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--load", default="0,4", help="comma-separated numbers of busy-looping processes")
    args = parser.parse_args()
    for load in (int(x) for x in args.load.split(",")):
        hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(load)]
        try:
            print(f"load: {load} busy process(es) on the machine")
            measure(args.repeat)
        finally:
            for hog in hogs:
                hog.kill()
                hog.wait()


if __name__ == "__main__":
    main()
