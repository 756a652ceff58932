"""How many of a challenge's assertions the runner decides outside the sandbox (``bouts check``).

Reads the same rewrite the runner uses (``bouts.runner._externalise``, pure), so the count is the
one a scorecard's ``reproducibility.assertions`` shows. Why it matters: docs/sandbox.md, "Decided
outside".
"""

from __future__ import annotations

from bouts.calibration.lint import SuiteFiles
from bouts.calibration.report import Problem
from bouts.models.challenge import Suite
from bouts.models.results import AssertionCount
from bouts.runner import REWRITTEN_SUITES, plan_file
from bouts.runner.js import rewrite_js_assertions as js_rewrite

_JS = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx")


def assertion_counts(files: SuiteFiles) -> tuple[list[AssertionCount], list[Problem]]:
    """Per suite, the assertions decided outside the sandbox; a warning for each hidden assertion
    that is not (its expected value or comparison would be evaluated in the test process)."""
    totals: dict[Suite, list[int]] = {}
    problems: list[Problem] = []
    for rel, (suite, source) in sorted(files.items()):
        if suite not in REWRITTEN_SUITES:
            continue
        if rel.endswith(_JS):
            # JavaScript/TypeScript: the node:test runner's rewrite (bouts.runner.js._externalise);
            # expect(...) matchers (vitest, jest) count as decided in the test process.
            js = js_rewrite(source, rel)
            done, total = (js.externalised, js.total) if js is not None else (0, 0)
            acc = totals.setdefault(suite, [0, 0])
            acc[0] += done
            acc[1] += total
            if suite == "hidden" and js is not None:
                problems += [Problem(check="lint", level="warning", file=rel, field=f"line {line}",
                                     message=f"line {line}: assertion not externalised: {why}")
                             for line, why in js.skipped]  # fmt: skip
            continue
        plan = plan_file(source, rel)
        done, total = plan.counts
        acc = totals.setdefault(suite, [0, 0])
        acc[0] += done
        acc[1] += total
        if suite == "hidden":
            problems += [
                Problem(check="lint", level="warning", file=rel, field=f"line {site.line}",
                        message=f"line {site.line}: assertion not externalised: {site.why}")
                for site in plan.sites.values() if not site.externalised
            ]  # fmt: skip
    return [AssertionCount(suite=s, externalised=d, total=t) for s, (d, t) in sorted(totals.items())], problems
