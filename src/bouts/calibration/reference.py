"""Repeated runs of the reference solution: flaky-test quarantine and time budgets (SPEC §3).

The reference solution runs ``runs`` times through the real runner, each time in both seed phases:
every suite with the published seed, then the hidden suite with a fresh seed. A test that fails,
errors, times out, crashes or goes missing in any phase, or whose ``bouts_expect`` values or
externalised assertions' observed values differ between runs with the same seed, is *quarantined*:
the launch is refused until it is fixed.
:func:`analyse` is pure; :func:`run_reference` is the I/O edge.
"""

from __future__ import annotations

import json
import math
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from bouts.adversarial import GeneratedRun, run_generated
from bouts.calibration.report import Problem, QuarantinedTest, ReferenceReport, TestBudget
from bouts.languages import language_of
from bouts.models.challenge import Challenge, Limits
from bouts.models.results import Outcome, RunReport
from bouts.runner import RunOptions, run_detailed
from bouts.sandbox import Sandbox

BUDGET_FACTOR = 10.0
"""A test's budget: this many times its slowest reference time (machines and load vary)."""
MIN_TEST_BUDGET_S = 1.0
SUITE_FACTOR = 5.0
MIN_SUITE_BUDGET_S = 30.0
DEFAULT_RUN_OPTIONS = RunOptions()
TIGHT_FACTOR = 3.0
"""A configured ``test_timeout_s`` under this many times the slowest reference test is too tight."""


@dataclass(frozen=True)
class PhaseRun:
    """One phase of one reference run."""

    run: int
    phase: Literal["published", "fresh"]
    seed: int
    report: RunReport
    observations: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    occurrences: Mapping[str, tuple[object, ...]] = field(default_factory=dict)
    """Golden observations of the externalised assertions (what graded runs are held to)."""


def _p(level: str, message: str, file: str | None = None, field: str | None = None) -> Problem:
    return Problem(check="reference", level=level, message=message, file=file, field=field)  # type: ignore[arg-type]


def _ceil_half(x: float) -> float:
    return math.ceil(x * 2) / 2


def analyse(phases: Sequence[PhaseRun], limits: Limits) -> tuple[ReferenceReport, list[Problem]]:
    """Quarantine list, budgets and problems from the reference's phase runs. Pure."""
    problems: list[Problem] = []
    ids: dict[str, str] = {}  # id → suite, over every phase
    for ph in phases:
        for r in ph.report.results:
            if "::" in r.id:
                ids.setdefault(r.id, r.suite)
        if ph.report.infra_error:
            problems.append(_p("error", f"run {ph.run} ({ph.phase} seed {ph.seed}): the sandbox failed: "
                                        f"{ph.report.infra_error}"))
        for t in ph.report.tampering:
            problems.append(_p("error", f"run {ph.run} ({ph.phase} seed {ph.seed}): the reference tripped the "
                                        f"tamper checks, every verdict was voided: {t}"))
    failures: dict[str, list[str]] = {}
    for ph in phases:
        got = {r.id: r for r in ph.report.results}
        for test_id, suite in ids.items():
            if ph.phase == "fresh" and suite != "hidden":
                continue
            r = got.get(test_id)
            if r is None or r.outcome is not Outcome.PASSED:
                what = "not reported" if r is None else r.outcome.value + (f": {r.detail}" if r.detail else "")
                failures.setdefault(test_id, []).append(f"run {ph.run}, {ph.phase} seed {ph.seed}: {what[:200]}")
    published = [ph for ph in phases if ph.phase == "published"]
    for test_id in ids:
        seen = {ph.observations[test_id] for ph in published if test_id in ph.observations}
        if len(seen) > 1:
            failures.setdefault(test_id, []).append(
                f"bouts_expect values differ between {len(published)} runs with the same seed")
        golden = {json.dumps(ph.occurrences[test_id], sort_keys=True) for ph in published if test_id in ph.occurrences}
        if len(golden) > 1:
            # Graded runs are held to one golden run's values: values that change between runs of
            # the reference with the same seed (time, hash order) would fail a correct submission.
            failures.setdefault(test_id, []).append(
                f"its assertions observed different values in {len(published)} runs with the same seed "
                "(nondeterministic: a correct submission could not match the reference's values)")
    quarantined = [QuarantinedTest(id=i, failures=f) for i, f in sorted(failures.items())]
    for q in quarantined:
        problems.append(_p("error", f"quarantined: {q.failures[0]}" + (
            f" (and {len(q.failures) - 1} more)" if len(q.failures) > 1 else ""), q.id.split("::", 1)[0], q.id))

    slowest: dict[str, float] = {}
    for ph in phases:
        for r in ph.report.results:
            if "::" in r.id:
                slowest[r.id] = max(slowest.get(r.id, 0.0), r.duration_s)
    budgets = sorted(
        (TestBudget(id=i, slowest_s=round(s, 4), budget_s=max(MIN_TEST_BUDGET_S, _ceil_half(BUDGET_FACTOR * s)))
         for i, s in slowest.items()),
        key=lambda b: (-b.slowest_s, b.id),
    )  # fmt: skip
    test_timeout = budgets[0].budget_s if budgets else None
    longest = max((ph.report.duration_s for ph in phases), default=0.0)
    suite_timeout = max(MIN_SUITE_BUDGET_S, float(math.ceil(SUITE_FACTOR * longest))) if phases else None
    if budgets and limits.test_timeout_s < TIGHT_FACTOR * budgets[0].slowest_s:
        problems.append(_p("warning", f"{limits.test_timeout_s:g} s is under {TIGHT_FACTOR:g}× the slowest "
                                      f"reference test ({budgets[0].slowest_s:g} s, {budgets[0].id}); "
                                      f"suggested {test_timeout:g} s", "challenge.toml", "limits.test_timeout_s"))
    if phases and limits.suite_timeout_s < 2 * longest:
        problems.append(_p("warning", f"{limits.suite_timeout_s:g} s is under twice the longest reference phase "
                                      f"({longest:.1f} s); suggested {suite_timeout:g} s",
                           "challenge.toml", "limits.suite_timeout_s"))
    seeds = sorted({ph.seed for ph in published}) + [ph.seed for ph in phases if ph.phase == "fresh"]
    report = ReferenceReport(
        runs=len(published), seeds=seeds, tests=len(ids), quarantined=quarantined, slowest=budgets[:10],
        suggested_test_timeout_s=test_timeout, suggested_suite_timeout_s=suite_timeout,
    )  # fmt: skip
    return report, problems


def run_reference(
    challenge: Challenge,
    sandbox: Sandbox,
    *,
    runs: int,
    fresh_seeds: Sequence[int] | None = None,
    options: RunOptions = DEFAULT_RUN_OPTIONS,
) -> list[PhaseRun]:
    """Run ``reference/`` ``runs`` times, both seed phases each time. The I/O edge.

    ``fresh_seeds`` (one per run) reproduces a check; by default each run draws a new one.
    Raises ``SandboxError`` when the sandbox cannot start at all.
    """
    published = challenge.spec.tests.seed
    seeds = list(fresh_seeds or [])
    phases: list[PhaseRun] = []
    mode = language_of(challenge).assertions  # as graded runs' reference runs
    for i in range(1, runs + 1):
        d = run_detailed(challenge, challenge.reference, sandbox=sandbox, seed=published, options=options,
                         assertions=mode)  # fmt: skip
        phases.append(PhaseRun(i, "published", published, d.report, dict(d.observations), dict(d.occurrences)))
        if not challenge.test_files.get("hidden"):
            continue
        fresh = seeds[i - 1] if i <= len(seeds) else _fresh(published)
        d = run_detailed(challenge, challenge.reference, sandbox=sandbox, seed=fresh, suites=("hidden",),
                         options=options, assertions=mode)  # fmt: skip
        phases.append(PhaseRun(i, "fresh", fresh, d.report, dict(d.observations), dict(d.occurrences)))
    return phases


def run_generated_on_reference(
    challenge: Challenge, sandbox: Sandbox, *, seeds: Sequence[int], options: RunOptions = DEFAULT_RUN_OPTIONS
) -> list[tuple[int, GeneratedRun]]:
    """The adversarial tests generated from ``reference/``, once per seed, as a submission gets
    them. The I/O edge (each run goes through the sandbox)."""
    return [
        (seed, run_generated(challenge, challenge.reference, sandbox=sandbox, seed=seed, options=options))
        for seed in seeds
    ]


def generated_problems(runs: Sequence[tuple[int, GeneratedRun]]) -> tuple[list[Problem], str | None]:
    """An **error** per generated test the reference does not pass under some seed, and why the
    generated tests were not scored, if they were not. Pure.

    A generated test the reference fails is a false positive of the generator or a defect of the
    challenge; either way every submission that behaves like the reference loses it, so the launch
    is refused until the reference passes or the challenge sets ``[adversarial] generate = false``
    (docs/calibration.md, docs/adversarial.md).
    """
    failures: dict[str, list[str]] = {}
    where: dict[str, tuple[str, str]] = {}
    not_scored: str | None = None
    for seed, run in runs:
        if run.suite is None or not run.suite.tests or run.report is None:
            not_scored = getattr(run.verdict.score, "reason", None) or "not scored"
            continue
        for test, result in run.outcomes():
            if result is not None and result.outcome is Outcome.PASSED:
                continue
            what = "not reported" if result is None else result.outcome.value + (
                f": {result.detail}" if result.detail else "")
            failures.setdefault(test.id, []).append(f"seed {seed}: {what[:300]}")
            t = test.target
            where[test.id] = (f"reference/{t.file}", f"{t.kind} ({t.severity}) at {t.where} in {t.function}, "
                              f"called as {test.entry}" + (f"({test.param}=...)" if test.param else ""))  # fmt: skip
    problems = [
        Problem(check="reference", level="error", file=where[test_id][0], field=test_id,
                message=(f"generated adversarial test fails on the reference ({where[test_id][1]}): {fails[0]}"
                         + (f" (and {len(fails) - 1} more)" if len(fails) > 1 else "")
                         + "; a generator false positive or a defect of the challenge: make the reference handle "
                           "it, or set [adversarial] generate = false"))
        for test_id, fails in sorted(failures.items())
    ]  # fmt: skip
    return problems, not_scored


def generated_summary(runs: Sequence[tuple[int, GeneratedRun]]) -> str:
    """One line saying whether the generated adversarial tests ran on the reference and how they
    ended, per seed (a check that passes says they ran, not only that nothing failed). Pure."""
    parts = []
    for seed, run in runs:
        if run.suite is None or not run.suite.tests or run.report is None:
            parts.append(f"seed {seed}: not run ({getattr(run.verdict.score, 'reason', None) or 'not scored'})")
            continue
        outcomes = list(run.outcomes())
        passed = sum(r is not None and r.outcome is Outcome.PASSED for _, r in outcomes)
        parts.append(f"seed {seed}: {passed}/{len(outcomes)} passed")
    return "; ".join(parts) or "none"


def _fresh(published: int) -> int:
    while (seed := secrets.randbelow(2**31 - 1) + 1) == published:
        pass
    return seed


def quarantine_toml(report: ReferenceReport) -> str:
    """The quarantine list as TOML (``quarantine.toml`` in the challenge). Pure."""
    lines = [
        "# Written by `bouts check`: tests that failed on the reference solution in repeated runs",
        "# (SPEC §3). The launch is refused while this list is not empty: fix each test or the reference.",
        'schema = "bouts.quarantine/1"',
        f"runs = {report.runs}",
        f"seeds = [{', '.join(str(s) for s in report.seeds)}]",
    ]
    for q in report.quarantined:
        lines += ["", "[[test]]", f"id = {_toml_str(q.id)}",
                  "failures = [" + ", ".join(_toml_str(f) for f in q.failures) + "]"]
    return "\n".join(lines) + "\n"


def _toml_str(s: str) -> str:
    out = s.replace("\\", "\\\\").replace('"', '\\"')
    out = "".join(c if c >= " " and c != "\x7f" else f"\\u{ord(c):04x}" for c in out)
    return f'"{out}"'


def write_quarantine(path: Path, report: ReferenceReport) -> None:
    """Write :func:`quarantine_toml` atomically."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(quarantine_toml(report), encoding="utf-8")
    tmp.replace(path)
