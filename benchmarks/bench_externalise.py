"""Issue 13: what externalised assertions cost per assertion (target: at most 0.2 ms).

    .venv/bin/python benchmarks/bench_externalise.py [--tests 20] [--asserts 200] [--repeat 3]

Like with like, in one run, on the same suite and the same sandbox:
(a) ``inline``: the test files as written, run by ``run_suites`` through bubblewrap (pytest's
    assertion rewriting decides in the test process);
(b) ``external``: the same files rewritten by ``_externalise`` (each assertion sends an observation;
    the host decodes and checks it against the literal and the golden run).
The suite is ``--tests`` tests each executing ``--asserts`` assertions of the usual shapes (an int,
a 10-item list, a 20-key dict, a string, a raised exception). Prints the median wall time of each
phase and (b − a) / assertions in ms. It also times the two halves of the protocol alone, in this
process: the test side (observe + encode + JSON) and the host side (decode + check). Results are
recorded in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bouts.models.challenge import Challenge, ChallengeSpec
from bouts.runner import run_detailed
from bouts.runner._decide import check_test
from bouts.runner._externalise import plan_file
from bouts.sandbox import get_sandbox

CODE = '''
def f(i):
    return i * 2

def items(i):
    return list(range(i, i + 10))

def table(i):
    return {f"k{j}": j * i for j in range(20)}

def name(i):
    return f"item-{i:05d}"

def strict(i):
    if i >= 0:
        raise ValueError(i)
'''

TEST = '''
import pytest
from calc import f, items, name, strict, table

def test_{n}():
    for i in range({loops}):
        assert f(i) == i * 2
        assert items(i) == list(range(i, i + 10))
        assert table(i)["k3"] == 3 * i
        assert name(i) == f"item-{{i:05d}}"
        with pytest.raises(ValueError):
            strict(i)
'''


def make(root: Path, tests: int, asserts: int) -> tuple[Challenge, Path]:
    visible = root / "tests" / "visible"
    visible.mkdir(parents=True)
    files = []
    for n in range(tests):
        rel = f"tests/visible/test_b{n}.py"
        (root / rel).write_text(TEST.format(n=n, loops=max(1, asserts // 5)))
        files.append(rel)
    code = root / "code"
    code.mkdir()
    (code / "calc.py").write_text(CODE)
    spec = ChallengeSpec(id="bench-externalise", title="bench", limits={"suite_timeout_s": 600})
    challenge = Challenge(root=root, spec=spec, content_hash="bench", suite_hashes={}, test_files={"visible": files})
    return challenge, code


def _load_observe():  # noqa: ANN202
    path = Path(__file__).parents[1] / "src/bouts/runner/sandboxed/_bouts_driver/observe.py"
    spec = importlib.util.spec_from_file_location("bench_observe", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def halves(n: int) -> tuple[float, float]:
    """Microseconds per assertion: the test side (observe, encode, JSON) and the host side."""
    observe = _load_observe()
    plan = plan_file(TEST.format(n=0, loops=1), "tests/visible/test_b0.py")
    ids = sorted(plan.sites)[:4]
    thunks = [lambda: 4, lambda: list(range(10)), lambda: 9, lambda: "item-00003"]
    start = time.perf_counter()
    observe.reset()
    for _ in range(n // 4):
        for k, thunk in zip(ids, thunks, strict=True):
            observe.obs(k, thunk)
    wire = json.dumps(observe.occurrences)
    test_side = (time.perf_counter() - start) / n * 1e6
    occ = json.loads(wire)
    sites = {k: plan.sites[k] for k in ids}
    values = (4, list(range(10)), 9, "item-00003")
    golden = [[k, {"0": v}] for k, v in zip(ids, values, strict=True)] * (n // 4)
    start = time.perf_counter()
    check_test(sites, occ, golden)
    host_side = (time.perf_counter() - start) / n * 1e6
    return test_side, host_side


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=20)
    parser.add_argument("--asserts", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sandbox = get_sandbox("bubblewrap")
    with tempfile.TemporaryDirectory(prefix="bouts-bench-ext-") as tmp:
        challenge, code = make(Path(tmp), args.tests, args.asserts)
        golden = run_detailed(challenge, code, sandbox=sandbox, assertions="golden").occurrences
        total = sum(len(v) for v in golden.values())
        times: dict[str, list[float]] = {"inline": [], "external": []}
        for _ in range(args.repeat):
            for mode in ("inline", "external"):
                start = time.perf_counter()
                run = run_detailed(challenge, code, sandbox=sandbox, assertions=mode, golden_occurrences=golden)  # type: ignore[arg-type]
                times[mode].append(time.perf_counter() - start)
                assert all(r.outcome.value == "passed" for r in run.report.results), mode
    a, b = (statistics.median(times[m]) for m in ("inline", "external"))
    test_us, host_us = halves(40_000)
    print(f"python {sys.version.split()[0]}, {args.tests} tests, {total} assertions executed, median of {args.repeat}")
    print(f"inline    {a:7.3f} s")
    print(f"external  {b:7.3f} s   ratio {b / a:.2f}   (b - a) / assertions = {(b - a) / total * 1000:.4f} ms")
    print(f"alone: test side {test_us:.1f} us, host side {host_us:.1f} us per assertion")


if __name__ == "__main__":
    main()
