"""Core-seconds of one ``bouts score``, sandboxed children included (issue 17 item 7).

    .venv/bin/python benchmarks/bench_score.py [--repeat 3] [--challenge examples/inventory-ledger]

Runs the CLI (``bouts score CHALLENGE ANCHOR --json``) on the challenge's high anchor in a cgroup
of its own (``_cgroup.py``: ``rusage`` does not see bubblewrap's children) and reports wall time
and CPU core-seconds, medians, for three situations, in one run:

- ``cold``: empty engine caches (a fresh ``--cache-dir`` and ``HOME``): reference runs, the
  starter's security scan, everything;
- ``new submission``: warm engine caches (the reference run of the published seed, the starter's
  findings) and a submission never seen: the anchor with a comment appended to every Python file,
  new bytes each round, so nothing of it is cached: what a platform pays per submission;
- ``re-score``: the same submission again: the stored scorecard.

``--engine LABEL=SRC`` (repeatable) compares engines in the same rounds, alternating (``_engines.py``);
``--variant LABEL=DIR`` (repeatable) adds another version of the challenge, scored by each engine in
the same rounds (e.g. its ``challenge.toml`` without ``[tests] tests_per_process``).

Results: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import _engines
from _cgroup import Usage, measure

from bouts.result_cache import UNCACHEABLE_FLAGS

ROOT = Path(__file__).resolve().parents[1]


def score(challenge: Path, submission: Path, cache: Path, home: Path, *extra: str, src: Path | None = None) -> Usage:
    env = _engines.env(src, HOME=str(home))
    env.pop("BOUTS_CACHE_DIR", None)
    bouts = Path(sys.executable).with_name("bouts")
    argv = [str(bouts), "score", str(challenge), str(submission), "--json", "--cache-dir", str(cache), *extra]
    return measure(argv, cwd=ROOT, env=env)


def fresh_copy(anchor: Path, dest: Path, stamp: str) -> Path:
    """The anchor with a comment appended to each Python file of its code: new bytes, same behaviour."""
    shutil.copytree(anchor, dest)
    for path in sorted((dest / "code").rglob("*.py")):
        path.write_text(path.read_text() + f"\n# benchmark copy {stamp}\n")
    return dest


def line(name: str, runs: list[Usage]) -> str:
    wall = statistics.median(u.wall_s for u in runs)
    cpu = statistics.median(u.cpu_s for u in runs)
    spread = f"{min(u.cpu_s for u in runs):.2f}–{max(u.cpu_s for u in runs):.2f}"
    return f"{name:24} {wall:8.2f} {cpu:10.2f}   ({spread})"


def _check(where: str, new: Usage, again: Usage) -> None:
    """Say so when a round measured something else than it means to: a new submission's scorecard
    that the cache does not keep (an infrastructure failure, a judge that could not run) makes the
    re-score a full score."""
    try:
        card = json.loads(new.stdout)
    except ValueError:
        card = {}
    flags = [f.get("code") for f in card.get("flags", []) if isinstance(f, dict)]
    if card.get("infra_error") or UNCACHEABLE_FLAGS & set(flags):
        print(f"note ({where}): the new submission's scorecard has {card.get('infra_error') or flags}: "
              f"{json.dumps(card.get('flags'))[:1500]}", file=sys.stderr, flush=True)  # fmt: skip
    if b"cached scorecard" not in again.stderr:
        print(f"note ({where}): the re-score was scored afresh, not read from the cache", file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--challenge", type=Path, default=ROOT / "examples" / "inventory-ledger")
    parser.add_argument(
        "--variant", action="append", default=[], metavar="LABEL=DIR",
        help="also score another version of the challenge (e.g. one line of its challenge.toml changed) "
        "with each engine, in the same rounds (repeatable)",
    )  # fmt: skip
    _engines.add_option(parser)
    args = parser.parse_args()
    engines = _engines.engines(parser, args)
    challenges = [("", args.challenge.resolve())]
    for spec in args.variant:
        label, _, path = spec.partition("=")
        if not label or not (Path(path) / "challenge.toml").is_file():
            raise SystemExit(f"--variant {spec}: give LABEL=DIR, DIR a challenge directory")
        challenges.append((label, Path(path).resolve()))
    modes = [("/".join(x for x in (e, c) if x), src, challenge) for e, src in engines for c, challenge in challenges]
    runs: dict[tuple[str, str], list[Usage]] = {}
    with tempfile.TemporaryDirectory(prefix="bouts-bench-score-") as tmp:
        for r in range(args.repeat):
            for n, (label, src, challenge) in enumerate(modes):  # alternating: load hits every mode alike
                anchor = challenge / "anchors" / "high"
                base = Path(tmp) / f"{r}-{n}"
                cache, home = base / "cache", base / "home"
                home.mkdir(parents=True)
                runs.setdefault((label, "cold"), []).append(score(challenge, anchor, cache, home, src=src))
                copy = fresh_copy(anchor, base / "submission", f"{os.getpid()}-{r}-{n}")
                new = score(challenge, copy, cache, home, src=src)
                again = score(challenge, copy, cache, home, src=src)
                runs.setdefault((label, "new submission"), []).append(new)
                runs.setdefault((label, "re-score"), []).append(again)
                _check(f"{label or 'base'}, round {r + 1}", new, again)
    print(f"{'bouts score':24} {'wall s':>8} {'core-s':>10}   (min–max core-s, {args.repeat} rounds)")
    for label, _, _ in modes:
        for name in ("cold", "new submission", "re-score"):
            print(line(f"{label + ': ' if label else ''}{name}", runs[(label, name)]))


if __name__ == "__main__":
    main()
