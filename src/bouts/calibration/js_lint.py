"""The 1:2 visible:hidden check of SPEC §3 for JavaScript/TypeScript tests. Pure: texts in, a report
and problems out; the test code is never run.

A test is a ``test(...)``/``it(...)`` call (``.only``/``.skip``/``.todo`` variants too) whose first
argument is a string. Its behaviour is declared by a ``// @behaviour <name>`` comment on a line just
above it (the same comment style as ``// @severity``); with every visible test declared, each
behaviour needs at least two hidden tests declaring it; otherwise the suites as a whole need at least
two hidden tests per visible test, and the report says that behaviours were not declared.

The functionality / edge / integration mix is reported and warned about as for Python (``lint.py``):
a ``// @category edge`` comment above a test declares its category, else its name's words decide
(the Python lint's vocabulary: "rejects a negative limit" is an edge case).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from bouts.calibration._tests_ast import CATEGORIES, EDGE_WORDS, INTEGRATION_WORDS
from bouts.calibration.lint import MIN_HIDDEN_PER_VISIBLE, TARGET_MIX, SuiteFiles, mix_problems
from bouts.calibration.report import BehaviourCoverage, Category, LintReport, Mix, Problem

_TEST = re.compile(r"""(?<![\w.$])(?:test|it)(?:\.(?:only|skip|todo))?\s*\(\s*(['"`])((?:\\.|(?!\1).)*)\1""")
_BEHAVIOUR = re.compile(r"^\s*//\s*@behaviour\s+([\w.-]+)\s*$")
_CATEGORY = re.compile(r"^\s*//\s*@category\s+(\w+)\s*$")
_SEED = re.compile(r"\bBOUTS_SEED\b")
ALL = "(all visible tests)"


def _problem(level: str, message: str, file: str | None = None, field: str | None = None) -> Problem:
    return Problem(check="lint", level=level, message=message, file=file, field=field)  # type: ignore[arg-type]


def parse_js_tests(source: str) -> list[tuple[str, str | None, int]]:
    """(test name, declared behaviour or None, line) of every test call in ``source``."""
    lines = source.splitlines()
    out = []
    for m in _TEST.finditer(source):
        line = source.count("\n", 0, m.start()) + 1
        behaviour = None
        k = line - 2
        while k >= 0 and (lines[k].strip().startswith("//") or not lines[k].strip()):
            if b := _BEHAVIOUR.match(lines[k]):
                behaviour = b.group(1)
                break
            k -= 1
        out.append((m.group(2), behaviour, line))
    return out


def js_category(name: str, source: str, line: int) -> tuple[Category, bool]:
    """A test's category: declared by ``// @category <c>`` in the comments just above it (True), else
    from its name's words (False). An unknown declared category counts as undeclared."""
    lines = source.splitlines()
    k = line - 2
    while k >= 0 and (lines[k].strip().startswith("//") or not lines[k].strip()):
        if (m := _CATEGORY.match(lines[k])) and m.group(1) in CATEGORIES:
            return m.group(1), True  # type: ignore[return-value]
        k -= 1
    words = set(re.split(r"[^a-z0-9]+", name.lower()))
    if words & EDGE_WORDS:
        return "edge", False
    if words & INTEGRATION_WORDS or "end to end" in name.lower():
        return "integration", False
    return "functionality", False


def _js_mix(files: SuiteFiles, target: Mapping[Category, float]) -> Mix | None:
    counts: dict[Category, int] = {c: 0 for c in CATEGORIES}
    declared = 0
    for _, (suite, source) in sorted(files.items()):
        if suite not in ("visible", "hidden"):
            continue
        for name, _, line in parse_js_tests(source):
            category, said = js_category(name, source, line)
            counts[category] += 1
            declared += said
    total = sum(counts.values())
    if not total:
        return None
    shares = {c: round(100.0 * n / total, 1) for c, n in counts.items()}
    return Mix(counts=counts, shares=shares, target={c: float(target[c]) for c in CATEGORIES}, declared=declared)


def lint_js_suites(files: SuiteFiles, *, target: Mapping[str, float] | None = None) -> tuple[LintReport, list[Problem]]:
    """The visible:hidden coverage and the category mix of a JavaScript challenge's test files.
    ``target``: the challenge's own mix (``[tests] mix``), default :data:`TARGET_MIX`."""
    goal: Mapping[Category, float] = target or TARGET_MIX  # type: ignore[assignment]
    tests: dict[str, list[tuple[str, str, str | None, int]]] = {"visible": [], "hidden": []}
    seeded: list[str] = []
    for rel, (suite, source) in sorted(files.items()):
        if suite not in tests:
            continue
        found = parse_js_tests(source)
        tests[suite] += [(rel, name, behaviour, line) for name, behaviour, line in found]
        if suite == "hidden" and _SEED.search(source):
            seeded += [f"{rel}::{name}" for name, _, _ in found]
    visible, hidden = tests["visible"], tests["hidden"]
    problems: list[Problem] = []
    if not visible:
        problems.append(_problem("error", "no visible tests", "tests/visible"))
    if not hidden:
        problems.append(_problem("error", "no hidden tests", "tests/hidden"))
    declared = bool(visible) and all(b for _, _, b, _ in visible)
    coverage = _by_behaviour(visible, hidden) if declared else [
        BehaviourCoverage(behaviour=ALL, visible=[n for _, n, _, _ in visible], hidden=[n for _, n, _, _ in hidden])
    ]  # fmt: skip
    for cov in coverage:
        need = MIN_HIDDEN_PER_VISIBLE * (len(cov.visible) if cov.behaviour == ALL else 1)
        if visible and len(cov.hidden) < need:
            what = (f"{len(cov.hidden)} hidden test(s) for {len(cov.visible)} visible test(s); SPEC §3 needs at least "
                    f"{MIN_HIDDEN_PER_VISIBLE} per visible test (declare `// @behaviour <name>` above each test "
                    "to check it per behaviour)") if cov.behaviour == ALL else (
                    f"{len(cov.hidden)} hidden test(s) vary the visible behaviour '{cov.behaviour}'; SPEC §3 "
                    f"needs at least {MIN_HIDDEN_PER_VISIBLE} (mark them `// @behaviour {cov.behaviour}`)")  # fmt: skip
            rel = next(r for r, n, _, _ in visible if n == cov.visible[0])
            problems.append(_problem("error", what, rel, cov.visible[0]))
    if visible and not declared:
        problems.append(_problem("warning", "behaviours not declared (`// @behaviour <name>` above each visible "
                                 "test): the 1:2 rule was checked over the whole suites", "tests/visible"))
    if hidden and not seeded:
        problems.append(_problem("warning", "no hidden test reads the seed (BOUTS_SEED): the fresh-seed phase "
                                 "re-runs the same data", "tests/hidden"))
    mix = _js_mix(files, goal)
    problems += mix_problems(mix, goal, declare=" (or declare one with `// @category <name>` above a test)")
    report = LintReport(coverage=coverage, mix=mix, seeded_hidden=seeded, hidden_total=len(hidden))
    return report, problems


def _by_behaviour(visible: list[tuple[str, str, str | None, int]], hidden: list[tuple[str, str, str | None, int]]
                  ) -> list[BehaviourCoverage]:  # fmt: skip
    shown: dict[str, list[str]] = {}
    for _, name, behaviour, _ in visible:
        shown.setdefault(behaviour or "", []).append(name)
    varied: Mapping[str, list[str]] = {b: [n for _, n, hb, _ in hidden if hb == b] for b in shown}
    return [BehaviourCoverage(behaviour=b, visible=v, hidden=varied[b]) for b, v in shown.items()]
