"""The I/O edge of adversarial generation: read the submission's sources, analyse, generate, run
the generated tests in the sandbox through the ordinary runner, and score them.

SAFETY: generated tests call the submission's code, so they run only through
``bouts.runner.run_suites`` in the challenge's sandbox — never in the engine's process.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bouts.adversarial._examples import Call, example_calls
from bouts.adversarial._generate import GeneratedSuite, GeneratedTest, generate
from bouts.adversarial._js_examples import js_example_calls
from bouts.adversarial._js_generate import generate_js
from bouts.adversarial._model import Target
from bouts.adversarial.analysers import analysers
from bouts.errors import InputError, SandboxError
from bouts.judges.base import Finding, Verdict
from bouts.models.challenge import Challenge
from bouts.models.results import Outcome, RunReport, TestResult
from bouts.runner import RunOptions, run_suites
from bouts.sandbox import Sandbox
from bouts.scoring import components as c
from bouts.scoring.explain import Explained, NotScored

JUDGE = "adversarial-gen"
MAX_SOURCE_BYTES = 2_000_000
"""Sources read for analysis, in total (a larger tree is analysed up to this)."""
DEFAULT_RUN = RunOptions()
GENERATED_SUITE_TESTS = 4
"""The generated suite's time budget is at least this many per-test timeouts."""
SUFFIXES = {"python": (".py",), "javascript": (".js", ".mjs", ".cjs"), "typescript": (".ts", ".mts", ".cts")}
JS_TEST_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts")


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


def visible_examples(challenge: Challenge) -> dict[str, list[Call]]:
    """The literal calls of the challenge's visible tests (``_examples``): real arguments for the
    parameters a generated test does not probe."""
    python = challenge.spec.language == "python"
    sources = {}
    for rel in challenge.test_files.get("visible", []):
        path = challenge.root / rel
        wanted = path.suffix == ".py" if python else path.name.endswith(JS_TEST_SUFFIXES)
        if wanted and path.is_file() and path.stat().st_size <= MAX_SOURCE_BYTES:
            sources[rel] = path.read_text(encoding="utf-8", errors="replace")
    return example_calls(sources) if python else js_example_calls(sources)


def run_generated(
    challenge: Challenge, code_dir: Path, *, sandbox: Sandbox, seed: int, options: RunOptions = DEFAULT_RUN
) -> GeneratedRun:
    """Analyse ``code_dir``, generate tests from ``seed``, run them in ``sandbox``, score them."""
    language = challenge.spec.language
    try:
        analyser = analysers.create(language)
    except InputError:
        why = f"no adversarial test generator for {language} yet"
        return GeneratedRun(None, None, None, Verdict(JUDGE, "adversarial_generated", NotScored(why)))
    analysis = analyser.analyse(read_sources(code_dir, SUFFIXES.get(language, ())))
    if language == "python":
        suite = generate(analysis, seed, visible_examples(challenge))
    else:
        suite = generate_js(analysis, seed, visible_examples(challenge))
    versions = {"adversarial-analyser": analysis.analyser}
    if not suite.tests:
        why = "the analysis found nothing the generator could probe"
        verdict = Verdict(JUDGE, "adversarial_generated", NotScored(why), versions=versions)
        return GeneratedRun(analysis.analyser, suite, None, verdict, analysis.notes)
    try:  # JavaScript: node:test files, whatever the challenge's framework (docs/adversarial.md)
        report = run_suites(
            generated_limits(challenge), code_dir, sandbox=sandbox, suites=(), seed=seed, options=options,
            expected_ids=[t.id for t in suite.tests], generated=suite.files,
        )  # fmt: skip
    except SandboxError as exc:
        why = f"infrastructure failure, not the agent's: {exc.describe()}"
        verdict = Verdict(JUDGE, "adversarial_generated", NotScored(why), versions=versions)
        return GeneratedRun(analysis.analyser, suite, None, verdict, analysis.notes)
    run = GeneratedRun(analysis.analyser, suite, report, _placeholder(), analysis.notes)
    verdict = score_generated(run.outcomes(), challenge.spec.adversarial.severity_weights, tampering=report.tampering)
    return GeneratedRun(analysis.analyser, suite, report, Verdict(**{**verdict.__dict__, "versions": versions}),
                        analysis.notes)  # fmt: skip


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
