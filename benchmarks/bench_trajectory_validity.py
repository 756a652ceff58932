"""Issue 38: do the trajectory judges carry signal? Their components against the SWE-bench harness's
verdict on real agent runs.

    .venv/bin/python benchmarks/bench_trajectory_validity.py [--corpus /work/corpus] [--save scores.jsonl]
    .venv/bin/python benchmarks/bench_trajectory_validity.py --from-scores scores.jsonl

Loads the corpus from its manifest (``benchmarks/data/trajectory_corpus.jsonl``; the logs live outside
the repository, see docs/benchmarks.md "Trajectory validity" for where to get them), checks every log
against its sha256, judges each with the five trajectory judges against a generic challenge
(``benchmarks/data/swebench-generic``: no test run, an empty code/, as ``bouts stats --runs`` does),
and prints the validity report (``bouts.calibration.stats_validity``): per component the mean per
label, the AUC with its bootstrap 95% interval, the not-scored rate and the most frequent findings;
then the same for the baselines (the raw token count, the number of events); then per model.

``--looks-recorded`` judges every log as if the engine had recorded it (each look a fact): the corpus has no
workspace to hold an uploaded log's looks to, so by default none counts; the difference is what that gate costs.

One process, one core: the corpus is judged once (``--save`` keeps the per-run scores, ``--from-scores``
reprints the report from them without judging again).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from rich.console import Console

from bouts.calibration.stats_trajectories import judge_file, judge_input
from bouts.calibration.stats_validity import LabelledRun, validity
from bouts.cli.calibration_render import validity as render
from bouts.loading import load_challenge

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "data" / "trajectory_corpus.jsonl"
CHALLENGE = HERE / "data" / "swebench-generic"


def load(manifest: Path, corpus: Path) -> list[dict[str, object]]:
    rows = [json.loads(line) for line in manifest.read_text(encoding="utf-8").splitlines() if line.strip()]
    bad = []
    for row in rows:
        f = corpus / str(row["file"])
        if not f.is_file():
            bad.append(f"missing: {f}")
        elif hashlib.sha256(f.read_bytes()).hexdigest() != row["sha256"]:
            bad.append(f"sha256 differs: {f}")
    if bad:
        sys.exit(f"{len(bad)} of {len(rows)} corpus files are not the manifest's (first: {bad[0]}); "
                 "build the corpus as docs/benchmarks.md 'Trajectory validity' says")  # fmt: skip
    return rows


Judged = list[tuple[dict[str, object], LabelledRun]]


def judge_all(rows: list[dict[str, object]], corpus: Path, challenge: Path, looks_recorded: bool = False) -> Judged:
    out = []
    with tempfile.TemporaryDirectory(prefix="bench-validity-") as empty:
        base = judge_input(load_challenge(challenge), Path(empty))
        if looks_recorded:  # sensitivity: every look the log lists taken as a fact (no workspace to hold it to)
            base = replace(base, recorded=True)
        start = time.perf_counter()
        for i, row in enumerate(rows, 1):
            run = judge_file(base, corpus / str(row["file"]), str(row["run_id"]), bool(row["resolved"]))
            out.append((row, run))
            if i % 100 == 0:
                print(f"  judged {i}/{len(rows)} ({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    return out


def _dump(row: dict[str, object], run: LabelledRun) -> str:
    return json.dumps({"run_id": run.key, "model": row["model"], "split": row["split"], "resolved": run.label,
                       "components": dict(run.components), "findings": {k: list(v) for k, v in run.findings.items()},
                       "baselines": dict(run.baselines)}, sort_keys=True)  # fmt: skip


def _undump(line: str) -> tuple[dict[str, object], LabelledRun]:
    d = json.loads(line)
    run = LabelledRun(d["run_id"], d["resolved"], d["components"], {k: tuple(v) for k, v in d["findings"].items()},
                      d["baselines"])  # fmt: skip
    return {"model": d["model"], "split": d["split"]}, run


def _family(model: object) -> str:
    return str(model).lstrip("@").split("/")[-1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=Path(os.environ.get("BOUTS_TRAJECTORY_CORPUS", "/work/corpus")))
    ap.add_argument("--manifest", type=Path, default=MANIFEST)
    ap.add_argument("--challenge", type=Path, default=CHALLENGE)
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--save", type=Path, help="write the per-run scores here (JSON lines)")
    ap.add_argument("--from-scores", type=Path, help="report from saved per-run scores instead of judging")
    ap.add_argument("--json", type=Path, help="write the reports (all runs, then per model) here")
    ap.add_argument("--looks-recorded", action="store_true",
                    help="sensitivity: judge as if the engine had recorded each log (every look a fact), where "
                    "by default an uploaded log's looks count only where their output shows a workspace line; "
                    "the corpus has no workspace, so by default no look counts")  # fmt: skip
    args = ap.parse_args()
    if args.from_scores:
        judged = [_undump(line) for line in args.from_scores.read_text().splitlines() if line.strip()]
    else:
        rows = load(args.manifest, args.corpus)
        start = time.perf_counter()
        judged = judge_all(rows, args.corpus, args.challenge, args.looks_recorded)
        print(f"judged {len(judged)} runs in {time.perf_counter() - start:.0f} s", file=sys.stderr)
        if args.save:
            args.save.write_text("".join(_dump(r, run) + "\n" for r, run in judged))
    console = Console(width=160)
    groups = {"all runs": [run for _, run in judged]}
    for row, run in judged:
        groups.setdefault(_family(row["model"]), []).append(run)
    reports = {}
    for name, runs in groups.items():
        console.rule(f"{name}: {len(runs)} runs")
        report = validity(runs, bootstrap=args.bootstrap, seed=args.seed)
        reports[name] = json.loads(report.to_json())
        render(console, report)
    if args.json:
        args.json.write_text(json.dumps(reports, indent=2))


if __name__ == "__main__":
    main()
