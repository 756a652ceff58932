"""The I/O edge of adversarial generation: read the submission's sources, analyse, generate, run
the generated tests in the sandbox through the ordinary runner, and score them.

SAFETY: generated tests call the submission's code, so they run only through
``bouts.runner.run_suites`` in the challenge's sandbox — never in the engine's process.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from bouts.adversarial._examples import Call
from bouts.adversarial._generate import GeneratedSuite, GeneratedTest
from bouts.adversarial._model import Analysis, Target
from bouts.adversarial._oracle import (
    ORACLE_FILE,
    OracleTest,
    class_names,
    counted,
    decide,
    labels,
    merged_examples,
    oracle_file,
    oracle_suite,
    starter_doctests,
)  # fmt: skip
from bouts.adversarial._oracle_run import ReferenceAnswers, reference_answers
from bouts.adversarial._probe import CONTRACT_FILE, PROBE_FILE, ProbeTest
from bouts.adversarial._probe_suite import counted_probe, decide_probe, probe_file, probe_suite, unstable
from bouts.adversarial.analysers import Generation
from bouts.errors import SandboxError
from bouts.judges.base import Finding, Verdict
from bouts.languages import LanguageSupport, language_of
from bouts.models.challenge import Challenge
from bouts.models.results import Outcome, RunReport, TestResult
from bouts.models.view import FileTree
from bouts.runner import DetailedRun, GeneratedPart, RunOptions, run_detailed
from bouts.sandbox import Sandbox
from bouts.scoring import components as c
from bouts.scoring.explain import Explained, NotScored

JUDGE = "adversarial-gen"
MAX_SOURCE_BYTES = 2_000_000
"""Sources read for analysis, in total (a larger tree is analysed up to this)."""
DEFAULT_RUN = RunOptions()
GENERATED_SUITE_TESTS = 4
"""The generated suite's time budget is at least this many per-test timeouts."""


@dataclass(frozen=True)
class GeneratedRun:
    """What one submission's generated adversarial tests did."""

    analyser: str | None
    suite: GeneratedSuite | None
    report: RunReport | None
    verdict: Verdict
    notes: tuple[str, ...] = ()

    def outcomes(self) -> list[tuple[GeneratedTest, TestResult | None]]:
        by_id = {r.id: r for r in self.report.results} if self.report else {}
        return [(t, by_id.get(t.id)) for t in (self.suite.tests if self.suite else ())]


def read_sources(code_dir: Path, suffixes: tuple[str, ...]) -> dict[str, str]:
    """Source files under ``code_dir`` (relative ``/`` paths → text); symlinks and tests skipped."""
    out: dict[str, str] = {}
    total = 0
    for dirpath, dirnames, filenames in os.walk(code_dir):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in ("tests", "node_modules"))
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if not name.endswith(suffixes) or path.is_symlink() or not path.is_file():
                continue
            data = path.read_bytes()
            total += len(data)
            if total > MAX_SOURCE_BYTES:
                return out
            out[path.relative_to(code_dir).as_posix()] = data.decode("utf-8", errors="replace")
    return out


def view_sources(tree: FileTree, suffixes: tuple[str, ...]) -> dict[str, str]:
    """``read_sources`` from a file tree read once (the submission view's judged code: protected paths
    such as ``tests/`` and vendored code already left out, as for every judge)."""
    out: dict[str, str] = {}
    total = 0
    for f in tree.with_suffix(suffixes):
        if f.text is None:
            continue
        total += f.size
        if total > MAX_SOURCE_BYTES:
            break
        out[f.rel] = f.text
    return out


def visible_examples(challenge: Challenge) -> dict[str, list[Call]]:
    """The literal calls of the challenge's visible tests (``_examples``): real arguments for the
    parameters a generated test does not probe (read by the language's ``adversarial`` part)."""
    support = language_of(challenge)
    sources = {}
    for rel in challenge.test_files.get("visible", []):
        path = challenge.root / rel
        wanted = path.suffix[1:] in support.test_extensions
        if wanted and path.is_file() and path.stat().st_size <= MAX_SOURCE_BYTES:
            sources[rel] = path.read_text(encoding="utf-8", errors="replace")
    return _generation(support).examples(sources)


def _generation(support: LanguageSupport) -> Generation:
    return support.part("adversarial")  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Prepared:
    """Generated tests ready to run (:func:`prepare_generated`): what :func:`finish_generated` needs
    to score their run, wherever it ran (a session of their own, or the graded session's first
    phase: ``bouts.runner._run.GeneratedPart``)."""

    challenge: Challenge
    limited: Challenge
    """``challenge`` under the generated tests' own limits (:func:`generated_limits`)."""
    analyser: str | None
    suite: GeneratedSuite
    tests: tuple[GeneratedTest, ...]
    files: dict[str, str]
    oracle: list[OracleTest]
    reference: Mapping[str, Sequence[str]]
    names: Mapping[str, str]
    notes: tuple[str, ...]
    versions: dict[str, str]
    probes: tuple[ProbeTest, ...] = ()
    """The tests from the submitted code (``_probe``): differential and contract."""
    probe_reference: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """The reference's digests for the differential ones."""
    stable: frozenset[str] = frozenset()
    """Modules of the submission whose answers may be compared between two runs (``unstable``)."""

    def part(self) -> GeneratedPart:
        """These tests as a part of another session: their files, limits and expected ids."""
        limits = self.limited.spec.limits
        return GeneratedPart(dict(self.files), limits.test_timeout_s, limits.suite_timeout_s,
                             [t.id for t in self.tests])  # fmt: skip

    def draws(self) -> bool:
        """Whether a file imports hypothesis at collection (its tests draw values): ~0.2 core-s a worker."""
        return any(_HYPOTHESIS.search(text) for text in self.files.values())


_HYPOTHESIS = re.compile(r"^\s*(?:from|import)\s+(?:hypothesis|schemathesis)\b", re.M)


def run_generated(
    challenge: Challenge,
    code_dir: Path,
    *,
    sandbox: Sandbox,
    seed: int,
    options: RunOptions = DEFAULT_RUN,
    cache_dir: Path | None = None,
    code: FileTree | None = None,
) -> GeneratedRun:
    """Analyse ``code_dir`` (or ``code``, the submission view's judged files, when given: what the
    judges read), generate tests from ``seed``, run them in ``sandbox`` in a session of their own,
    score them (:func:`prepare_generated`, then :func:`finish_generated`)."""
    prepared = prepare_generated(challenge, code_dir, sandbox=sandbox, seed=seed, options=options,
                                 cache_dir=cache_dir, code=code)  # fmt: skip
    if isinstance(prepared, GeneratedRun):
        return prepared
    return run_prepared(prepared, code_dir, sandbox=sandbox, seed=seed, options=options)


def run_prepared(
    prepared: Prepared, code_dir: Path, *, sandbox: Sandbox, seed: int, options: RunOptions = DEFAULT_RUN
) -> GeneratedRun:
    """Run prepared generated tests in a session of their own, and score them."""
    try:
        run = run_detailed(
            prepared.limited, code_dir, sandbox=sandbox, suites=(), seed=seed, options=options,
            expected_ids=[t.id for t in prepared.tests], generated=prepared.files,
        )  # fmt: skip
    except SandboxError as exc:
        return finish_generated(prepared, exc)
    return finish_generated(prepared, run)


def prepare_generated(
    challenge: Challenge,
    code_dir: Path,
    *,
    sandbox: Sandbox,
    seed: int,
    options: RunOptions = DEFAULT_RUN,
    cache_dir: Path | None = None,
    code: FileTree | None = None,
) -> Prepared | GeneratedRun:
    """Analyse and generate (everything before the generated tests' own run): the tests, or the
    :class:`GeneratedRun` that says why none will run.

    What is generated is the language's (``bouts.languages``, role ``adversarial``). With the
    reference oracle (Python): the reference-oracle tests (``_oracle``; the reference's answers
    cached in ``cache_dir``) plus the race and HTTP tests of the submission's analysis. Without it
    (JavaScript, TypeScript): the crash-oracle tests of its analysis, only where the challenge
    requires invalid input to be rejected (docs/adversarial.md)."""
    support = language_of(challenge)
    language = support.name
    if not support.has("adversarial"):
        why = f"no adversarial test generator for {language} yet"
        return GeneratedRun(None, None, None, Verdict(JUDGE, "adversarial_generated", NotScored(why)))
    generation = _generation(support)
    analyser = generation.analyser(language)
    versions = {"adversarial-analyser": analyser.version}
    rejected = challenge.spec.adversarial.invalid_input == "rejected"
    if not generation.reference_oracle and not rejected:
        why = (f"no reference oracle for {language} yet, and the challenge does not require invalid input to be "
               "rejected ([adversarial] invalid_input), so nothing generated can be judged")  # fmt: skip
        return GeneratedRun(analyser.version, None, None,
                            Verdict(JUDGE, "adversarial_generated", NotScored(why), versions=versions))  # fmt: skip
    suffixes = support.importable
    sources = view_sources(code, suffixes) if code is not None else read_sources(code_dir, suffixes)
    analysis = analyser.analyse(sources)
    examples = visible_examples(challenge)
    oracle: list[OracleTest] = []
    probes: list[ProbeTest] = []
    probe_skipped: list[tuple[Target, str]] = []
    notes = analysis.notes
    opaque = frozenset(challenge.spec.adversarial.opaque_returns)
    ref_sources: dict[str, str] = {}
    if generation.reference_oracle:
        suite = generation.generate(without_crash_oracle(analysis), seed, examples)
        starter = read_sources(challenge.root / "starter", suffixes)
        ref_sources = read_sources(challenge.root / "reference", suffixes)
        examples = merged_examples(examples, generation.examples(starter_doctests(starter)))
        oracle, oracle_notes = oracle_suite(ref_sources, examples, seed, invalid=rejected,
                                            first_index=len(suite.tests))  # fmt: skip
        probes, probe_skipped = probe_suite(analysis, sources, ref_sources, examples, seed, rejected=rejected,
                                            first_index=len(suite.tests) + len(oracle), opaque=opaque)  # fmt: skip
        missing = () if oracle else (f"no reference oracle: {_no_oracle(ref_sources, language)}",)
        notes += tuple(oracle_notes) + missing
    else:
        suite = generation.generate(analysis, seed, examples)
    suite = replace(suite, skipped=suite.skipped + tuple(probe_skipped))
    if not suite.tests and not oracle and not probes:
        why = "the analysis found nothing the generator could probe" + (
            "; " + notes[-1] if generation.reference_oracle and notes else "")  # fmt: skip
        verdict = Verdict(JUDGE, "adversarial_generated", NotScored(why), versions=versions)
        return GeneratedRun(analysis.analyser, suite, None, verdict, notes)
    limited = generated_limits(challenge)
    names: dict[str, str] = labels(class_names(ref_sources) | class_names(sources))
    reference: Mapping[str, Sequence[str]] = {}
    probe_reference: Mapping[str, Sequence[str]] = {}
    files = dict(suite.files)
    try:
        if oracle:
            text = oracle_file(oracle, seed)
            answers = reference_answers(limited, text, [t.test.id for t in oracle], sandbox=sandbox, seed=seed,
                                        options=options, cache_dir=cache_dir)  # fmt: skip
            oracle, dropped = _answered(oracle, answers, names)
            suite = replace(suite, skipped=suite.skipped + tuple(dropped))
            if oracle:
                files[ORACLE_FILE] = text
                reference = answers.digests
        differential = [t for t in probes if t.judge == "differential"]
        if differential:
            text = probe_file(differential, seed, PROBE_FILE)
            answers = reference_answers(limited, text, [t.test.id for t in differential], sandbox=sandbox,
                                        seed=seed, options=options, cache_dir=cache_dir, path=PROBE_FILE)  # fmt: skip
            kept, dropped = _probes_answered(differential, answers, names, rejected=rejected)
            suite = replace(suite, skipped=suite.skipped + tuple(dropped))
            if kept:
                files[PROBE_FILE] = probe_file(kept, seed, PROBE_FILE)
                probe_reference = {t.test.id: answers.digests[t.test.id] for t in kept}
            probes = [*kept, *(t for t in probes if t.judge == "contract")]
    except SandboxError as exc:
        why = f"infrastructure failure, not the agent's: {exc.describe()}"
        verdict = Verdict(JUDGE, "adversarial_generated", NotScored(why), versions=versions)
        return GeneratedRun(analysis.analyser, suite, None, verdict, notes)
    contract = [t for t in probes if t.judge == "contract"]
    if contract:
        files[CONTRACT_FILE] = probe_file(contract, seed, CONTRACT_FILE)
    tests = (*suite.tests, *(t.test for t in oracle), *(t.test for t in probes))
    if not tests:
        why = "the reference answered none of the generated inputs (no oracle, no verdict)"
        verdict = Verdict(JUDGE, "adversarial_generated", NotScored(why), versions=versions)
        return GeneratedRun(analysis.analyser, suite, None, verdict, notes)
    stable = frozenset(t.test.entry.split(":")[0] for t in contract
                       if not unstable(sources, t.test.entry.split(":")[0]))  # fmt: skip
    return Prepared(challenge, limited, analysis.analyser, suite, tests, files, oracle, reference, names, notes,
                    versions, tuple(probes), probe_reference, stable)  # fmt: skip


def finish_generated(prepared: Prepared, run: DetailedRun | SandboxError) -> GeneratedRun:
    """Score the generated tests' run (``run``: their own session's, or their part of the graded
    session's; a :class:`SandboxError` if it failed)."""
    p = prepared
    if isinstance(run, SandboxError):
        why = f"infrastructure failure, not the agent's: {run.describe()}"
        verdict = Verdict(JUDGE, "adversarial_generated", NotScored(why), versions=p.versions)
        return GeneratedRun(p.analyser, p.suite, None, verdict, p.notes)
    report = _decided(run.report, p.oracle, p.reference, run.observations, p.names,
                      frozenset(p.challenge.spec.adversarial.opaque_returns))
    report = _probes_decided(report, p, run.observations)
    tests, notes = _penalty_only(p.tests, report, p.notes)
    suite = replace(p.suite, tests=tests, files=p.files)
    outcomes = GeneratedRun(p.analyser, suite, report, _placeholder(), notes).outcomes()
    verdict = score_generated(outcomes, p.challenge.spec.adversarial.severity_weights, tampering=report.tampering)
    return GeneratedRun(p.analyser, suite, report, replace(verdict, versions=p.versions), notes)


def _penalty_only(
    tests: tuple[GeneratedTest, ...], report: RunReport, notes: tuple[str, ...]
) -> tuple[tuple[GeneratedTest, ...], tuple[str, ...]]:
    """The generated tests that are scored: a contract test (an entry the reference does not have,
    so no reference vouches that it belongs to the task) counts only when it fails. Counted when it
    passes, forty decoy functions the submission adds would each earn a passed test, diluting its
    real failures (red team, decoy functions)."""
    passed = {r.id for r in report.results if r.outcome is Outcome.PASSED}
    dropped = [t for t in tests if t.strategy == "contract" and t.id in passed and not report.tampering]
    if not dropped:
        return tests, notes
    note = (f"{len(dropped)} contract test(s) of the submission's own entries passed: not counted (a contract "
            "test counts only when it fails)")  # fmt: skip
    return tuple(t for t in tests if t not in dropped), (*notes, note)


def without_crash_oracle(analysis: Analysis) -> Analysis:
    """``analysis`` without the probes whose only oracle was "must not crash" on values of our
    choosing (fuzz and metamorphic): those targets are probed by the tests from the submitted code
    instead (``_probe``: judged against the reference, or by contract). Race and HTTP probes keep
    their own oracles (a lost update, a 5xx), which hold for any correct code."""
    kept = tuple(p for p in analysis.probes if p.http is not None or p.target.kind == "non_atomic_update")
    return replace(analysis, probes=kept)


def _no_oracle(ref_sources: Mapping[str, str], language: str) -> str:
    if not ref_sources:
        return f"reference/ holds no {language.capitalize()} code to compare with"
    return "no public callable of the reference is shown by a visible test, a doctest or plain type hints"


def _answered(
    oracle: list[OracleTest], answers: ReferenceAnswers, names: Mapping[str, str]
) -> tuple[list[OracleTest], list[tuple[Target, str]]]:
    """The oracle tests the reference answered at least one call of; the others, with why."""
    kept, dropped = [], []
    for t in oracle:
        outcome = answers.outcomes.get(t.test.id, "missing")
        if outcome != "passed":
            dropped.append((t.test.target, f"{t.test.id.split('::')[-1]}: the reference did not complete it "
                                            f"({outcome}): no oracle"))  # fmt: skip
        elif not counted(t, answers.digests.get(t.test.id, ()), names):
            what = "returned from none of its calls" if t.mode == "valid" else "rejected none of its values"
            dropped.append((t.test.target, f"{t.test.id.split('::')[-1]}: the reference {what}: no oracle"))
        else:
            kept.append(t)
    return kept, dropped


def _probes_answered(
    tests: list[ProbeTest], answers: ReferenceAnswers, names: Mapping[str, str], *, rejected: bool
) -> tuple[list[ProbeTest], list[tuple[Target, str]]]:
    """The differential tests from the submitted code that the reference's answers judge."""
    kept, dropped = [], []
    for t in tests:
        outcome = answers.outcomes.get(t.test.id, "missing")
        name = t.test.id.split("::")[-1]
        if outcome != "passed":
            dropped.append((t.test.target, f"{name}: the reference did not complete it ({outcome}): no oracle"))
        elif not counted_probe(t, answers.digests.get(t.test.id, ()), names, rejected=rejected):
            dropped.append((t.test.target, f"{name}: the reference answered none of its calls: no oracle"))
        else:
            kept.append(t)
    return kept, dropped


def _probes_decided(report: RunReport, p: Prepared, observed: Mapping[str, Sequence[str]]) -> RunReport:
    """``report`` with each test from the submitted code decided on the host (``decide_probe``)."""
    if not p.probes or report.tampering:
        return report
    by_id = {t.test.id: t for t in p.probes}
    rejected = p.challenge.spec.adversarial.invalid_input == "rejected"
    opaque = frozenset(p.challenge.spec.adversarial.opaque_returns)
    results = []
    for r in report.results:
        t = by_id.get(r.id)
        if t is not None:
            outcome, detail = decide_probe(t, p.probe_reference.get(r.id) if t.judge == "differential" else None, r,
                                           observed.get(r.id, ()), p.names, rejected=rejected, opaque=opaque,
                                           stable=t.test.entry.split(":")[0] in p.stable)  # fmt: skip
            r = r.model_copy(update={"outcome": outcome, "detail": detail[:1000]})
        results.append(r)
    return report.model_copy(update={"results": results})


def _decided(
    report: RunReport,
    oracle: Sequence[OracleTest],
    reference: Mapping[str, Sequence[str]],
    observed: Mapping[str, Sequence[str]],
    names: Mapping[str, str],
    opaque: frozenset[str] = frozenset(),
) -> RunReport:
    """``report`` with each oracle test's outcome decided against the reference's answers (``opaque``:
    entries whose return values are not compared)."""
    by_id = {t.test.id: t for t in oracle}
    results = []
    for r in report.results:
        t = by_id.get(r.id)
        if t is not None and not report.tampering:
            outcome, detail = decide(t, reference[r.id], r, observed.get(r.id, ()), names, opaque)
            r = r.model_copy(update={"outcome": outcome, "detail": detail[:1000]})
        results.append(r)
    return report.model_copy(update={"results": results})


def generated_limits(challenge: Challenge) -> Challenge:
    """``challenge`` with the generated tests' own time budget in place of its ``[limits]``.

    A generated test is bounded by its example count, not by the challenge's per-test timeout
    (sized for the challenge's own tests, sometimes 2 s): it gets ``[adversarial] test_timeout_s``
    (default 30 s, more than ten times the slowest honest generated test measured on a loaded
    2-core machine; a hanging submission still times out). The generated suite's budget is the
    challenge's, but never less than ``GENERATED_SUITE_TESTS`` timeouts, so a small suite budget
    cannot time out an honest run either (``docs/adversarial.md``, "Time budget").
    """
    limits = challenge.spec.limits
    per_test = challenge.spec.adversarial.test_timeout_s
    suite = min(7200.0, max(limits.suite_timeout_s, GENERATED_SUITE_TESTS * per_test))
    own = limits.model_copy(update={"test_timeout_s": per_test, "suite_timeout_s": suite})
    return challenge.model_copy(update={"spec": challenge.spec.model_copy(update={"limits": own})})


def _placeholder() -> Verdict:
    return Verdict(JUDGE, "adversarial_generated", NotScored("not scored yet"))


def score_generated(
    outcomes: list[tuple[GeneratedTest, TestResult | None]],
    weights: Mapping[str, float],
    *,
    tampering: list[str] | tuple[str, ...] = (),
) -> Verdict:
    """``Σ weight(passed) / Σ weight(all) × 100`` over the generated tests (SPEC §1). Pure."""
    tests = [c.WeightedTest(t.severity, r is not None and r.outcome is Outcome.PASSED) for t, r in outcomes]
    result = c.adversarial(tests, weights)
    findings = tuple(_finding(t, r, weights) for t, r in outcomes if r is None or r.outcome is not Outcome.PASSED)
    if isinstance(result, Explained):
        math = (f"generated adversarial tests: {sum(x.passed for x in tests)}/{len(tests)} passed",) + result.math
        if tampering:
            math += ("the run showed tampering: every generated verdict was voided",)
        result = Explained(result.value, math)
    return Verdict(JUDGE, "adversarial_generated", result, findings)


def _finding(t: GeneratedTest, r: TestResult | None, weights: Mapping[str, float]) -> Finding:
    target: Target = t.target
    what = r.outcome.value if r else "missing"
    detail = f": {r.detail[:300]}" if r and r.detail else ""
    return Finding(
        rule=f"adversarial.{target.kind}", message=f"{t.id.split('::')[-1]} {what}{detail}", file=target.file,
        line=target.line, severity=target.severity, points=0.0,
    )  # fmt: skip
