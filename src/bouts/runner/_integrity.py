"""Run-time tamper detection, judged on the host: canaries and fingerprints in, findings out.

Pure. The sandbox only *reports* evidence; this module decides. Any finding voids every verdict
of the run (nothing passes) and is reported as an integrity bright line (``RunReport.tampering``).
Why both signals, and what neither can catch: docs/sandbox.md, "Threat model".
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from bouts.models.results import Outcome, TestResult
from bouts.runner._channel import Record

MAX_FINDINGS = 20


def canary_source(test_source: str, rng: random.Random) -> tuple[str, list[str]]:
    """Text to append to a pristine test file, and the names of the canary tests in it.

    A canary must fail. If one passes, something rewrote verdicts wholesale. Appending keeps the
    file's line numbers; random names and values mean a forger cannot know them in advance.
    A file parametrised through ``pytestmark`` gets none: a bare canary would not collect there.
    """
    if "pytestmark" in test_source and "parametrize" in test_source:
        return "", []
    name = f"test_{rng.getrandbits(40):010x}"
    a, b = rng.randrange(10**6), rng.randrange(10**6, 2 * 10**6)
    text = f"\n\n\ndef {name}():\n    assert {a} == {b}\n"
    names = [name]
    if "unittest" in test_source:
        klass, method = f"Test{rng.getrandbits(40):010x}", f"test_{rng.getrandbits(40):010x}"
        alias = f"_unittest_{rng.getrandbits(32):08x}"
        text += (
            f"\n\nimport unittest as {alias}\n\n\nclass {klass}({alias}.TestCase):\n"
            f"    def {method}(self):\n        self.assertEqual({a}, {b})\n"
        )
        names.append(f"{klass}::{method}")
    prefix = "" if test_source.endswith("\n") or not test_source else "\n"
    return prefix + text, names


def findings(records: Sequence[Record], canary_ids: Iterable[str]) -> list[str]:
    """What the run's evidence says about tampering; empty when clean."""
    canaries = set(canary_ids)
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
