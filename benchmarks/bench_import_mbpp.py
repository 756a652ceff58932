"""Issue 10: import every MBPP task and score each reference solution through the real runner.

    .venv/bin/python benchmarks/bench_import_mbpp.py [FILE] [--sample N] [--jobs 2] [--mode run|grade]

1. Parse the dataset (pure) and write every challenge (staging + rename, each one loaded).
2. For each task, run the reference solution's visible + hidden tests through the bubblewrap
   sandbox: ``--mode run`` (default) is one ``run_suites`` per task (a fresh sandbox, supervisor,
   canaries, a forked process per test); ``--mode grade`` is what ``bouts score`` does (reference
   run, published-seed run, fresh-seed hidden run), about three times the work.
A task passes when every one of its tests passed. Prints import time, scoring time (wall, and
per task), the pass rate and every task whose reference fails its own tests, with the outcome of
each failing test. ``--sample N`` scores an evenly spread sample of N tasks and extrapolates.
Results are recorded in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bouts.importers import parse_mbpp, write_challenges
from bouts.loading import load_challenge
from bouts.models.results import Outcome
from bouts.runner import RunOptions, grade, run_suites
from bouts.sandbox import get_sandbox

DEFAULT_FILE = Path(__file__).resolve().parents[2] / "shared" / "data" / "datasets" / "mbpp" / "mbpp.jsonl"


def score_reference(path: Path, expected_tests: int, mode: str, workers: int) -> tuple[str, bool, list[str]]:
    """(challenge id, all tests passed, descriptions of the failures) for one imported challenge."""
    challenge = load_challenge(path)
    sandbox = get_sandbox("bubblewrap")
    options = RunOptions(workers=workers)
    if mode == "grade":
        report = grade(challenge, challenge.reference, sandbox=sandbox, options=options)
    else:
        report = run_suites(
            challenge, challenge.reference, sandbox=sandbox, suites=("visible", "hidden"), options=options
        )
    failures = [
        f"{r.id.split('::')[-1]}: {r.outcome.value}" + (f" ({r.detail.splitlines()[0][:80]})" if r.detail else "")
        for r in report.results
        if r.outcome is not Outcome.PASSED
    ]
    if len(report.results) < expected_tests:
        failures.append(f"only {len(report.results)} of {expected_tests} tests reported")
    return challenge.spec.id, not failures, failures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE)
    ap.add_argument("--sample", type=int, default=0, help="score an evenly spread sample of N tasks (0: all)")
    ap.add_argument("--jobs", type=int, default=2, help="tasks scored at once")
    ap.add_argument("--workers", type=int, default=1, help="test workers per run")
    ap.add_argument("--mode", choices=("run", "grade"), default="run")
    args = ap.parse_args()

    text = args.file.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="bench-mbpp-") as tmp:
        t0 = time.perf_counter()
        challenges = parse_mbpp(text, source=str(args.file))
        t_parse = time.perf_counter() - t0
        paths = write_challenges(challenges, Path(tmp))
        t_import = time.perf_counter() - t0
        print(f"imported {len(challenges)} tasks: parse {t_parse:.2f} s, parse + write + load {t_import:.2f} s")

        picked = list(zip(challenges, paths, strict=True))
        if args.sample and args.sample < len(picked):
            step = len(picked) / args.sample
            picked = [picked[int(i * step)] for i in range(args.sample)]
        t1 = time.perf_counter()
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results = list(
                pool.map(
                    lambda cp: score_reference(
                        cp[1], cp[0].visible_tests + cp[0].hidden_tests, args.mode, args.workers
                    ),
                    picked,
                )
            )
        wall = time.perf_counter() - t1

    passed = sum(ok for _, ok, _ in results)
    n = len(results)
    print(
        f"scored {n} reference solutions (mode {args.mode}, {args.jobs} at once, {args.workers} worker(s) each): "
        f"{wall:.1f} s wall, {wall / n:.3f} s per task"
    )
    if n < len(challenges):
        print(f"extrapolated to all {len(challenges)}: {wall / n * len(challenges):.0f} s")
    print(f"pass rate: {passed}/{n} = {100 * passed / n:.1f}%")
    for cid, ok, failures in results:
        if not ok:
            print(f"  FAIL {cid}: " + "; ".join(failures))


if __name__ == "__main__":
    main()
