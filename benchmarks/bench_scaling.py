"""How the cost of one score grows with the size of the work (issue 43).

    .venv/bin/python benchmarks/bench_scaling.py [--out docs/img/scaling.png] [--tests 10,100,1000,10000]
        [--code-kb 10,100,1000,10000] [--events 10,100,1000,10000] [--repeat 1]

Every point is one ``bouts score`` (the CLI a user runs) in a cgroup of its own (``_cgroup.measure``:
CPU of every process it started, the sandboxed ones included), after one unmeasured run that fills the
engine cache with the reference's runs, so a point costs what scoring a new submission costs:

- **tests per suite**: a generated challenge whose visible suite has N trivial tests over 10 files
  (``assert add(i, 1) == i + 1``), the reference as the submission; ``--tests-only --no-generated``.
- **changed code**: the inventory-ledger high anchor plus N kB of honest-looking Python in modules
  nothing imports (``ledger/_gen_*.py``, 50 kB each); ``--judges integrity-static --no-generated``: the
  integrity review's cost, the tests' run a constant under it.
- **trajectory**: the same anchor with its trajectory padded to N events (its read/run/edit events
  repeated before ``submit``, times rising); ``--judges trajectory-* --no-generated`` (its five judges).
- **generated tests**: the anchor, every judge, with and without ``--no-generated``.

For each dimension the fitted growth: the slope of log(cost − the smallest point's cost) against
log(size) over the points past the first (1 is linear), and the cost per unit of the linear fit.
Prints a table (docs/benchmarks.md, "Scaling") and writes the plot (matplotlib, the ``bench`` extra).
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import tempfile
from pathlib import Path

from _cgroup import Usage, measure

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "inventory-ledger"
HIGH = EXAMPLE / "anchors" / "high"
FILES = 10
TRAJECTORY = "trajectory-efficiency,trajectory-integrity,trajectory-process,trajectory-recovery,trajectory-strategy"


def bouts(*args: str) -> list[str]:
    return [sys.executable, "-m", "bouts", *args]


_PRIMED: set[Path] = set()


def _score(challenge: Path, submission: Path, cache: Path, extra: list[str], repeat: int) -> Usage:
    args = bouts("score", str(challenge), str(submission), "--json", "--cache-dir", str(cache), *extra)
    if challenge not in _PRIMED:
        _PRIMED.add(challenge)
        measure(args)  # the reference's runs into the cache
    runs = [measure([*args, "--no-cache"]) for _ in range(repeat)]
    for run in runs:
        if not run.stdout.strip().startswith(b"{"):
            raise SystemExit(f"bouts score failed: {run.stderr.decode(errors='replace')[-2000:]}")
    return min(runs, key=lambda u: u.cpu_s)


def tests_challenge(root: Path, n: int) -> tuple[Path, Path]:
    ch = root / f"tests-{n}"
    (ch / "tests" / "visible").mkdir(parents=True)
    (ch / "tests" / "hidden").mkdir(parents=True)
    (ch / "starter").mkdir()
    (ch / "reference").mkdir()
    (ch / "challenge.toml").write_text(
        f'id = "scaling-{n}"\ntitle = "Scaling"\nprofile = "engine"\nlanguage = "python"\n'
        'description = "add adds"\n\n[limits]\ntest_timeout_s = 10\nsuite_timeout_s = 3600\n'
        "memory_mb = 512\nmax_processes = 32\nmax_file_mb = 16\nmax_output_kb = 64\n"
    )
    (ch / "starter" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (ch / "reference" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    per = max(1, n // FILES)
    for f in range(min(FILES, n)):
        body = "".join(f"def test_{f}_{i}():\n    assert add({i}, 1) == {i + 1}\n\n" for i in range(per))
        (ch / "tests" / "visible" / f"test_v{f}.py").write_text("from calc import add\n\n\n" + body)
    hidden = "from calc import add\n\n\ndef test_h():\n    assert add(2, 2) == 4\n"
    (ch / "tests" / "hidden" / "test_h.py").write_text(hidden)
    sub = root / f"tests-{n}-sub"
    (sub / "code").mkdir(parents=True)
    (sub / "code" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (sub / "submission.toml").write_text(f'agent = "bench"\nchallenge = "scaling-{n}"\niteration = 1\n')
    return ch, sub


def generated_module(index: int, size: int) -> str:
    """About ``size`` bytes of ordinary Python: small functions with loops, branches, literals."""
    out, n = ['"""Generated helpers (benchmark padding)."""\n\n'], 0
    while sum(map(len, out)) < size:
        out.append(
            f"def helper_{index}_{n}(values, limit={n % 97}):\n"
            f'    """Sum the values under ``limit`` and scale them ({n})."""\n'
            "    total = 0\n"
            "    for k, value in enumerate(values):\n"
            f"        if value < limit and k % {n % 7 + 2} == 0:\n"
            f"            total += value * {n % 13 + 1}\n"
            "        elif value > limit * 2:\n"
            "            total -= 1\n"
            f"    return {{'name': 'helper_{index}_{n}', 'total': total}}\n\n\n"
        )
        n += 1
    return "".join(out)


def anchor_copy(root: Path, name: str) -> Path:
    sub = root / name
    shutil.copytree(HIGH, sub)
    return sub


def code_submission(root: Path, kb: int) -> Path:
    sub = anchor_copy(root, f"code-{kb}")
    left, i = kb * 1024, 0
    while left > 0:
        size = min(left, 50 * 1024)
        (sub / "code" / "ledger" / f"_gen_{i}.py").write_text(generated_module(i, size))
        left -= size
        i += 1
    return sub


def trajectory_submission(root: Path, events: int) -> Path:
    sub = anchor_copy(root, f"trajectory-{events}")
    lines = (HIGH / "trajectory.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    body, submit = records[:-1], records[-1]
    middle = [r for r in body if r.get("kind") in ("read", "run", "edit", "search")] or body
    out = list(body[: events - 1]) if events - 1 < len(body) else list(body)
    t = out[-1]["t"] if out else 0.0
    k = 0
    while len(out) < events - 1:
        t += 1.0
        out.append({**middle[k % len(middle)], "t": round(t, 1)})
        k += 1
    out.append({**submit, "t": round(t + 1.0, 1)})
    (sub / "trajectory.jsonl").write_text("".join(json.dumps(r) + "\n" for r in out))
    toml = (sub / "submission.toml").read_text().splitlines()
    toml = [f"elapsed_s = {round(t + 1.0, 1)}" if line.startswith("elapsed_s") else line for line in toml]
    (sub / "submission.toml").write_text("\n".join(toml) + "\n")
    return sub


def growth(sizes: list[float], costs: list[float]) -> tuple[float, float]:
    """(exponent, cost per unit): the log-log slope of the cost above the smallest point's, and the
    least-squares slope of cost against size."""
    base = costs[0]
    pts = [(math.log(s), math.log(c - base)) for s, c in zip(sizes[1:], costs[1:], strict=True) if c > base]
    exponent = float("nan")
    if len(pts) >= 2:
        mx = sum(x for x, _ in pts) / len(pts)
        my = sum(y for _, y in pts) / len(pts)
        exponent = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
    ms, mc = sum(sizes) / len(sizes), sum(costs) / len(costs)
    if len(sizes) < 2:
        return exponent, float("nan")
    per = sum((s - ms) * (c - mc) for s, c in zip(sizes, costs, strict=True)) / sum((s - ms) ** 2 for s in sizes)
    return exponent, per


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tests", default="10,100,1000,10000")
    ap.add_argument("--code-kb", default="10,100,1000,10000")
    ap.add_argument("--events", default="10,100,1000,10000")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--no-generated-point", dest="generated", action="store_false",
                    help="skip the generated tests on/off pair")  # fmt: skip
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "scaling.png")
    ap.add_argument("--from-log", type=Path, help="re-render the table and plot from a run's printed points")
    args = ap.parse_args()
    if args.from_log is not None:
        _report(*_read_log(args.from_log), args.out)
        return
    series: dict[str, tuple[str, list[int], list[Usage]]] = {}
    with tempfile.TemporaryDirectory(prefix="bouts-bench-scaling-") as tmp:
        root = Path(tmp)
        cache = root / "cache"
        dims = [
            ("tests per suite", "tests", [int(x) for x in args.tests.split(",") if x],
             lambda n: tests_challenge(root, n), ["--tests-only", "--no-generated"]),
            ("changed code (kB)", "kB", [int(x) for x in args.code_kb.split(",") if x],
             lambda n: (EXAMPLE, code_submission(root, n)), ["--judges", "integrity-static", "--no-generated"]),
            ("trajectory (events)", "events", [int(x) for x in args.events.split(",") if x],
             lambda n: (EXAMPLE, trajectory_submission(root, n)), ["--judges", TRAJECTORY, "--no-generated"]),
        ]  # fmt: skip
        for label, unit, sizes, make, extra in dims:
            if not sizes:
                continue
            usages = []
            for n in sizes:
                challenge, submission = make(n)
                usages.append(_score(challenge, submission, cache, extra, args.repeat))
                print(f"{label} {n}: {usages[-1].wall_s:.2f} s wall, {usages[-1].cpu_s:.2f} s CPU", flush=True)
            series[label] = (unit, sizes, usages)
        gen_on = gen_off = None
        if args.generated:
            gen_on = _score(EXAMPLE, HIGH, cache, [], args.repeat)
            print(f"generated tests on: {gen_on.wall_s:.2f} s wall, {gen_on.cpu_s:.2f} s CPU", flush=True)
            gen_off = _score(EXAMPLE, HIGH, cache, ["--no-generated"], args.repeat)
            print(f"generated tests off: {gen_off.wall_s:.2f} s wall, {gen_off.cpu_s:.2f} s CPU", flush=True)
    _report(series, gen_on, gen_off, args.out)


_UNITS = {"tests per suite": "tests", "changed code (kB)": "kB", "trajectory (events)": "events"}


def _read_log(path: Path) -> tuple[dict[str, tuple[str, list[int], list[Usage]]], Usage | None, Usage | None]:
    """The points a run printed (``<dimension> <size>: <wall> s wall, <cpu> s CPU``)."""
    import re

    series: dict[str, tuple[str, list[int], list[Usage]]] = {}
    gen: dict[str, Usage] = {}
    for line in path.read_text().splitlines():
        m = re.fullmatch(r"(.+?) (\w+): ([\d.]+) s wall, ([\d.]+) s CPU", line.strip())
        if m is None:
            continue
        label, size, usage = m.group(1), m.group(2), Usage(float(m.group(3)), float(m.group(4)), 0.0, 0.0)
        if label == "generated tests":
            gen[size] = usage
        else:
            unit, sizes, usages = series.setdefault(label, (_UNITS.get(label, ""), [], []))
            sizes.append(int(size))
            usages.append(usage)
    return series, gen.get("on"), gen.get("off")


def _report(
    series: dict[str, tuple[str, list[int], list[Usage]]], gen_on: Usage | None, gen_off: Usage | None, out: Path
) -> None:
    print("\n| dimension | size | wall (s) | CPU (core-s) |\n|---|---:|---:|---:|")
    for label, (_unit, sizes, usages) in series.items():
        for n, u in zip(sizes, usages, strict=True):
            print(f"| {label} | {n} | {u.wall_s:.2f} | {u.cpu_s:.2f} |")
    for name, usage in (("on", gen_on), ("off", gen_off)):
        if usage is not None:
            print(f"| generated tests | {name} | {usage.wall_s:.2f} | {usage.cpu_s:.2f} |")
    print("\n| dimension | fitted growth exponent (CPU above the smallest point) | CPU per unit (linear fit) |")
    print("|---|---:|---:|")
    for label, (unit, sizes, usages) in series.items():
        exponent, per = growth([float(s) for s in sizes], [u.cpu_s for u in usages])
        print(f"| {label} | {exponent:.2f} | {per * 1000:.3f} ms per {unit[:-1] if unit.endswith('s') else unit} |")
    _plot(series, gen_on, gen_off, out)


def _plot(
    series: dict[str, tuple[str, list[int], list[Usage]]], on: Usage | None, off: Usage | None, out: Path
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(series) + 1, figsize=(4.2 * (len(series) + 1), 3.6))
    for ax, (label, (_unit, sizes, usages)) in zip(axes, series.items(), strict=False):
        ax.loglog(sizes, [u.cpu_s for u in usages], "o-", label="CPU (core-s)")
        ax.loglog(sizes, [u.wall_s for u in usages], "s--", label="wall (s)")
        lo = usages[0].cpu_s
        ax.loglog(sizes, [lo * s / sizes[0] for s in sizes], ":", color="grey", label="linear from the first")
        ax.set_xlabel(label)
        ax.set_ylabel("seconds")
        ax.legend(fontsize=7)
    ax = axes[-1]
    bars = [(name, u.cpu_s) for name, u in (("generated on", on), ("generated off", off)) if u is not None]
    ax.bar([n for n, _ in bars], [c for _, c in bars], label="CPU (core-s)")
    ax.set_ylabel("CPU core-s")
    ax.set_title("one bouts score, the anchor")
    fig.suptitle("bouts score: cost as the work grows (benchmarks/bench_scaling.py)")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    print(f"\nplot: {out}")


if __name__ == "__main__":
    main()
