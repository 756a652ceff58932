"""Issue 13 item 5: the scrubber's false positives on the bundled examples, per K.

    .venv/bin/python benchmarks/bench_scrub.py [--reports DIR]

Runs each bundled example's starter and low/mid/high anchors through the bubblewrap sandbox
exactly as scoring does (``grade`` and ``run_generated``), keeps the raw reports in ``--reports``
(reused when present), then scrubs every text an honest run produced (details of every suite but
the hidden one, warnings, crash lines) at several K, with and without the public exemption (visible
tests, starter, test ids), and prints how many texts changed. Then prints how much of each hidden
file survives when printed whole. Results are recorded in docs/sandbox.md, "What leaves the sandbox".
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bouts.adversarial import run_generated
from bouts.loading import load_challenge
from bouts.runner import RunOptions, grade
from bouts.runner._scrub import MARK, MAX_TEXT, SecretIndex, normalise, public_id
from bouts.runner._secrets import read_challenge_texts, read_texts
from bouts.sandbox import get_sandbox

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
KS = (8, 10, 12, 14, 16, 20, 24)


def capture(out: Path) -> None:
    sandbox = get_sandbox("bubblewrap")
    for ex in sorted(EXAMPLES.iterdir()):
        challenge = load_challenge(ex)
        subs = {"starter": challenge.starter, **{lvl: ex / "anchors" / lvl / "code" for lvl in ("low", "mid", "high")}}
        for name, code in subs.items():
            dest = out / f"{ex.name}-{name}.json"
            if dest.exists():
                continue
            options = RunOptions(workers=1)
            run = grade(challenge, code, sandbox=sandbox, cache_dir=out / "cache", options=options)
            gen = run_generated(challenge, code, sandbox=sandbox, seed=challenge.spec.tests.seed, options=options)
            reports = [json.loads(r.model_dump_json()) for r in (run, gen.report) if r is not None]
            dest.write_text(json.dumps(reports))


def measure(out: Path) -> None:
    for k in KS:
        for exempt in (True, False):
            total = changed = 0
            for ex in sorted(EXAMPLES.iterdir()):
                secret, public = read_challenge_texts(load_challenge(ex))
                index = SecretIndex.build(secret, public if exempt else (), k=k)
                for path in sorted(out.glob(f"{ex.name}-*.json")):
                    reports = json.loads(path.read_text())
                    results = [r for rep in reports for r in rep["results"]]
                    ids = [public_id(r["id"]) if r["suite"] == "hidden" else r["id"] for r in results]
                    keep = index.grams_of(ids) if exempt else frozenset()
                    texts = [r["detail"] for r in results if r["suite"] != "hidden" and r["detail"]]
                    texts += [t for rep in reports for t in rep["stability"]["warnings"] + rep["stability"]["crashes"]]
                    total += len(texts)
                    changed += sum(MARK in index.scrub(t, public=keep) and MARK not in t for t in texts)
            print(f"K={k:2} {'with' if exempt else 'without'} the public exemption: {changed}/{total} texts changed")
    for ex in sorted(EXAMPLES.iterdir()):
        secret, public = read_challenge_texts(load_challenge(ex))
        index = SecretIndex.build(secret, public)
        before = after = 0
        for text in read_texts(ex / "tests" / "hidden"):
            chunks = [text[i : i + MAX_TEXT] for i in range(0, len(text), MAX_TEXT)]
            before += len(normalise(text))
            after += sum(len(normalise(index.scrub(c)).replace(MARK, "")) for c in chunks)
        print(f"{ex.name}: a hidden file printed whole keeps {100 * after / before:.1f}% of its non-blank characters")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reports", type=Path, default=Path("/tmp/bouts-scrub-reports"))
    args = parser.parse_args()
    args.reports.mkdir(parents=True, exist_ok=True)
    capture(args.reports)
    measure(args.reports)


if __name__ == "__main__":
    main()
