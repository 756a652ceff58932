"""Issue 13: what externalised assertions cost per assertion (target: at most 0.2 ms).

    .venv/bin/python benchmarks/bench_externalise.py [--tests 20] [--asserts 200] [--repeat 3] [--plain]

Like with like, in one run, on the same suite and the same sandbox:
(a) ``inline``: the test files as written, run by ``run_suites`` through bubblewrap (pytest's
    assertion rewriting decides in the test process);
(b) ``external``: the same files rewritten by ``_externalise`` (each assertion sends an observation;
    the host decodes and checks it against the literal and the golden run).
The suite is ``--tests`` tests each executing ``--asserts`` assertions of the usual shapes (an int,
a 10-item list, a 20-key dict, a string, a raised exception); with ``--plain``, ``--asserts`` plain
calls of the submission each, returning a small frozen dataclass (the shape of the inventory-ledger
hidden suite's ``scale_10000`` tests: ``led.receive(sku, qty)``), which the external text observes
and the inline one does not. Prints the median wall time of each phase and (b − a) per observation
in ms. It also times the two halves of the protocol alone, in this process: the test side
(observe + encode + JSON) and the host side (record parse + decode + check). Results are recorded
in docs/benchmarks.md.
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
from bouts.runner._channel import RS, parse_record
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


PLAIN_CODE = '''
from dataclasses import dataclass

@dataclass(frozen=True)
class Movement:
    seq: int
    sku: str
    kind: str
    qty: int
    ref: str | None = None

class Ledger:
    def __init__(self):
        self.log = []

    def receive(self, sku, qty):
        movement = Movement(len(self.log) + 1, sku, "receive", qty)
        self.log.append(movement)
        return movement
'''

PLAIN_TEST = '''
from calc import Ledger

def test_{n}():
    led = Ledger()
    for i in range({loops}):
        led.receive(f"SKU-{{i % 100:03d}}", i % 9 + 1)
    assert len(led.log) == {loops}
'''


def make(root: Path, tests: int, asserts: int, plain: bool = False) -> tuple[Challenge, Path]:
    visible = root / "tests" / "visible"
    visible.mkdir(parents=True)
    files = []
    for n in range(tests):
        rel = f"tests/visible/test_b{n}.py"
        text = PLAIN_TEST.format(n=n, loops=asserts) if plain else TEST.format(n=n, loops=max(1, asserts // 5))
        (root / rel).write_text(text)
        files.append(rel)
    code = root / "code"
    code.mkdir()
    (code / "calc.py").write_text(PLAIN_CODE if plain else CODE)
    spec = ChallengeSpec(id="bench-externalise", title="bench", limits={"suite_timeout_s": 600})
    challenge = Challenge(root=root, spec=spec, content_hash="bench", suite_hashes={}, test_files={"visible": files})
    return challenge, code


def _load_observe():  # noqa: ANN202
    """The observation module of the engine this run imports (``PYTHONPATH`` may name another)."""
    import bouts.runner

    path = Path(bouts.runner.__file__).parent / "sandboxed/_bouts_driver/observe.py"
    spec = importlib.util.spec_from_file_location("bench_observe", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def halves(n: int, plain: bool = False) -> tuple[float, float]:
    """Microseconds per observation: the test side (observe, encode, JSON) and the host side."""
    observe = _load_observe()
    if plain:
        calc: dict = {}
        exec(PLAIN_CODE, calc)  # noqa: S102 (the benchmark's own code)
        plan = plan_file(PLAIN_TEST.format(n=0, loops=1), "tests/visible/test_b0.py")
        ids = [min(k for k, s in plan.sites.items() if s.form == "plain" and s.line == 7)]
        led = calc["Ledger"]()
        thunks = [lambda: led.receive("SKU-001", 3)]
    else:
        plan = plan_file(TEST.format(n=0, loops=1), "tests/visible/test_b0.py")
        ids = sorted(plan.sites)[:4]
        thunks = [lambda: 4, lambda: list(range(10)), lambda: 9, lambda: "item-00003"]
    rounds = n // len(ids)
    observe.reset()
    for _ in range(rounds):  # the golden run's observations, as the host holds them
        for k, thunk in zip(ids, thunks, strict=True):
            if plain:
                observe.gobs(k, thunk)
            else:  # ``assert f(i) == i * 2``: the observed side and the computed expected one
                observe.open(k)
                observe.atom(1, observe.atom(0, thunk()))
    golden = json.loads(json.dumps(observe.occurrences))
    start = time.perf_counter()
    observe.reset()
    for _ in range(rounds):
        for k, thunk in zip(ids, thunks, strict=True):
            observe.obs(k, thunk)
    record = {"type": "result", "id": "t", "outcome": "passed", "obs_overflow": observe.overflow}
    # as the test process writes it: the header, then the observations as the record's body (proto.BODY)
    line = json.dumps(record, separators=(",", ":")).encode() + RS + observe.text()
    test_side = (time.perf_counter() - start) / n * 1e6
    sites = {k: plan.sites[k] for k in ids}
    start = time.perf_counter()
    rec = parse_record(line)
    why = check_test(sites, rec.occurrences, golden, overflow=rec.obs_overflow)
    host_side = (time.perf_counter() - start) / n * 1e6
    executed = sum(entry[2] if len(entry) == 3 else 1 for entry in rec.occurrences)  # counted entries
    assert why is None and executed == rounds * len(ids), why or f"{executed} executions reported"
    return test_side, host_side


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=20)
    parser.add_argument("--asserts", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--plain", action="store_true", help="plain calls returning a dataclass, not assertions")
    args = parser.parse_args()
    sandbox = get_sandbox("bubblewrap")
    with tempfile.TemporaryDirectory(prefix="bouts-bench-ext-") as tmp:
        challenge, code = make(Path(tmp), args.tests, args.asserts, args.plain)
        golden = run_detailed(challenge, code, sandbox=sandbox, assertions="golden").occurrences
        total = sum(e[2] if len(e) == 3 else 1 for v in golden.values() for e in v)  # counted entries
        times: dict[str, list[float]] = {"inline": [], "external": []}
        for _ in range(args.repeat):
            for mode in ("inline", "external"):
                start = time.perf_counter()
                run = run_detailed(challenge, code, sandbox=sandbox, assertions=mode, golden_occurrences=golden)  # type: ignore[arg-type]
                times[mode].append(time.perf_counter() - start)
                assert all(r.outcome.value == "passed" for r in run.report.results), mode
    a, b = (statistics.median(times[m]) for m in ("inline", "external"))
    test_us, host_us = halves(10_000 if args.plain else 40_000, args.plain)  # plain: a scale_10000 test
    what = "observations (plain calls)" if args.plain else "assertions"
    print(f"python {sys.version.split()[0]}, {args.tests} tests, {total} {what} executed, median of {args.repeat}")
    print(f"inline    {a:7.3f} s")
    print(f"external  {b:7.3f} s   ratio {b / a:.2f}   (b - a) / observation = {(b - a) / total * 1000:.4f} ms")
    print(f"alone: test side {test_us:.1f} us, host side {host_us:.1f} us per observation")


if __name__ == "__main__":
    main()
