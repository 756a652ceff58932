"""Run-time tamper detection, judged on the host: canaries and fingerprints in, findings out.

Pure. The sandbox only *reports* evidence; this module decides. Any finding voids every verdict
of the run (nothing passes) and is reported as an integrity bright line (``RunReport.tampering``).
Why both signals, and what neither can catch: docs/sandbox.md, "Threat model".
"""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Iterable, Sequence

from bouts import _pyast
from bouts.models.results import Outcome, TestResult
from bouts.runner._channel import Record

MAX_FINDINGS = 20


CANARIES_PER_FILE = (2, 3)
"""How many copied canaries a file gets (drawn per run): several, so no one name or place is the tell."""


def _mutants(test_source: str, rng: random.Random, taken: set[str], count: int) -> list[tuple[str, str]]:
    """Copies of up to ``count`` of the file's own tests, each with one expected literal changed: each
    calls into the submission exactly like the test it copies, and must fail. ``[(name, source)]``."""
    try:
        tree = _pyast.parse(test_source)
    except SyntaxError:
        return []
    candidates = []
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef) and fn.name.startswith("test_") and not fn.decorator_list:
            for node in ast.walk(fn):
                if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare) \
                        and len(node.test.ops) == 1 and isinstance(node.test.ops[0], ast.Eq) \
                        and isinstance(node.test.comparators[0], ast.Constant) \
                        and type(node.test.comparators[0].value) in (int, str):  # fmt: skip
                    candidates.append((fn, node.test.comparators[0]))
    out: list[tuple[str, str]] = []
    for fn, const in rng.sample(candidates, len(candidates))[:count]:
        value = const.value
        const.value = value + rng.randrange(10**6, 10**9) if type(value) is int else f"{value}-{rng.getrandbits(32):x}"
        try:
            name = _variant(fn.name, rng, taken)
            taken.add(name)
            copy = ast.FunctionDef(**{**{f: getattr(fn, f) for f in fn._fields}, "name": name})
            out.append((name, ast.unparse(ast.fix_missing_locations(ast.Module(body=[copy], type_ignores=[])))))
        finally:
            const.value = value
    return out


def _variant(base: str, rng: random.Random, taken: set[str]) -> str:
    """A new test name made of the file's own words: ``base`` and one or two words of the file's other
    test names (never a fixed list a forger could match), drawn per run."""
    own = {w for w in base.removeprefix("test_").split("_") if w}
    pool = {w for name in taken for w in name.removeprefix("test_").split("_") if w}
    words = sorted(pool - own) or sorted(pool) or ["case"]
    for _ in range(64):
        picked = rng.sample(words, min(len(words), rng.choice((1, 1, 2))))
        name = f"{base}_{'_'.join(picked)}"
        if name not in taken:
            return name
    return f"{base}_{rng.choice(words)}_{rng.randrange(2, 10)}"


def canary_source(test_source: str, rng: random.Random) -> tuple[str, list[str]]:
    """Text to append to a test file whose verdicts are decided in the test process, and the names
    of the canary tests in it.

    A canary must fail. If one passes, something rewrote verdicts wholesale. A file gets several
    (:data:`CANARIES_PER_FILE`), each named with the file's own words (``test_<real test>_<words of
    its other tests>``, drawn per run) and, where the file has tests comparing a call's result with a
    literal, each *is* one of those tests with the literal changed: it calls into the submission like
    the tests around it, so a forger cannot pick it out by its shape or a list of names.
    Files whose assertions are externalised get none (their verdicts do not depend on the sandbox).
    A file parametrised through ``pytestmark`` gets none: a bare canary would not collect there.
    """
    if "pytestmark" in test_source and "parametrize" in test_source:
        return "", []
    taken = set(re.findall(r"def (test_\w+)\(", test_source))
    bases = sorted(taken) or ["test_behaviour"]
    mutants = _mutants(test_source, rng, taken, rng.randint(*CANARIES_PER_FILE))
    if not mutants:
        name = _variant(rng.choice(bases), rng, taken)
        a, b = rng.randrange(10**6), rng.randrange(10**6, 2 * 10**6)
        mutants = [(name, f"def {name}():\n    assert {a} == {b}\n")]
    text = "".join("\n\n\n" + body + "\n" for _, body in mutants)
    names = [name for name, _ in mutants]
    if "unittest" in test_source:
        a, b = rng.randrange(10**6), rng.randrange(10**6, 2 * 10**6)
        words = sorted({w for n in taken for w in n.removeprefix("test_").split("_") if w}) or ["behaviour"]
        klass, method = f"Test{rng.choice(words).title()}Case", _variant("test", rng, taken)
        alias = f"_unittest_{rng.getrandbits(32):08x}"
        text += (
            f"\n\nimport unittest as {alias}\n\n\nclass {klass}({alias}.TestCase):\n"
            f"    def {method}(self):\n        self.assertEqual({a}, {b})\n"
        )
        names.append(f"{klass}::{method}")
    prefix = "" if test_source.endswith("\n") or not test_source else "\n"
    return prefix + text, names


class CanaryIds(frozenset):
    """Canary test ids; a parametrised canary (a copy of a test that takes a parametrised fixture)
    reports as ``id[param]``, which belongs to it too."""

    def __contains__(self, node: object) -> bool:
        return frozenset.__contains__(self, node) or (
            isinstance(node, str) and "[" in node and frozenset.__contains__(self, node.partition("[")[0])
        )


def findings(records: Sequence[Record], canary_ids: Iterable[str], *, externalised: bool = False) -> list[str]:
    """What the run's evidence says about tampering; empty when clean. ``externalised``: the run's
    test processes all report observations, so a result without them was not written by the driver."""
    canaries = CanaryIds(canary_ids)
    baseline = next((r.digest for r in records if r.kind == "baseline"), None)
    found: list[str] = []

    def add(text: str) -> None:
        if text not in found and len(found) < MAX_FINDINGS:
            found.append(text)

    collected: dict[str, str] = {}
    for rec in records:
        if rec.kind == "integrity" and not collected:
            collected = dict(rec.codes)
    for rec in records:
        if rec.kind == "result" and rec.died_after_report:
            add(f"the process of test {rec.id} was killed right after reporting a pass (a forged report?)")
        if externalised and rec.kind == "result" and rec.outcome is Outcome.PASSED and not rec.has_obs \
                and rec.id not in canaries:  # fmt: skip
            add(f"a result for {rec.id} that the test driver did not write (no observations)")
        if rec.kind == "result" and rec.outcome is Outcome.PASSED and rec.id in collected \
                and rec.code != collected[rec.id]:  # fmt: skip
            add(f"the code of test {rec.id} changed after it was collected")
        if rec.kind == "integrity":
            if baseline is None or rec.digest != baseline:
                add(f"test machinery changed by importing the submission: {_names(rec)}")
            if rec.foreign:
                add(f"pytest plugin registered from submission code: {', '.join(rec.foreign[:5])}")
        elif rec.kind == "result" and rec.outcome is Outcome.PASSED:
            if rec.id in canaries:
                add(f"a canary test that must fail passed (verdicts are being forged): {rec.id}")
            elif baseline is None or rec.digest != baseline:
                add(f"test machinery changed while running {rec.id}: {_names(rec)}")
    return found


def _names(rec: Record) -> str:
    return ", ".join(rec.changed[:8]) or "no fingerprint reported"


def void(results: Sequence[TestResult], why: Sequence[str]) -> list[TestResult]:
    """Every verdict of a tampered run: not passed, with the reason."""
    detail = f"voided: tampering detected ({why[0]})"[:1000]
    return [
        r.model_copy(update={"outcome": Outcome.FAILED, "detail": detail}) if r.outcome is Outcome.PASSED else r
        for r in results
    ]


LOOKED = "voided: the submission's code looked at who runs it (test-environment detection)"


def looked(records: Sequence[Record]) -> frozenset[str] | None:
    """The tests during which the submission's code looked at its context (``grader_detection``:
    its callers' frames, the heap, the process's command line, a grader's variable), or ``None`` for
    every test when it did so while its modules were imported (what it decided there holds for all).
    Empty: it never did. docs/sandbox.md, "Grader context"."""
    seen: set[str] = set()
    for rec in records:
        if any(kind == "grader_detection" for kind, _ in rec.exploits):
            if rec.kind != "result":
                return None
            seen.add(rec.id)
    return frozenset(seen)


def unlooked(results: Sequence[TestResult], tests: frozenset[str] | None) -> list[TestResult]:
    """``results`` with every pass of ``tests`` (all, for ``None``) voided: what the code did once it
    had looked measures what it does under the grader, not what it does."""
    return [
        r.model_copy(update={"outcome": Outcome.FAILED, "detail": LOOKED})
        if r.outcome is Outcome.PASSED and (tests is None or r.id in tests) else r
        for r in results
    ]  # fmt: skip
