"""The 1:2 visible:hidden check of SPEC §3 for JavaScript/TypeScript tests. Pure: texts in, a report
and problems out; the test code is never run.

A test is a ``test(...)``/``it(...)`` call (``.only``/``.skip``/``.todo`` variants too) whose first
argument is a string. Its behaviour is declared by a ``// @behaviour <name>`` comment on a line just
above it (the same comment style as ``// @severity``); with every visible test declared, each
behaviour needs at least two hidden tests declaring it; otherwise the suites as a whole need at least
two hidden tests per visible test, and the report says that behaviours were not declared.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from bouts.calibration.lint import MIN_HIDDEN_PER_VISIBLE, SuiteFiles
from bouts.calibration.report import BehaviourCoverage, LintReport, Problem

_TEST = re.compile(r"""(?<![\w.$])(?:test|it)(?:\.(?:only|skip|todo))?\s*\(\s*(['"`])((?:\\.|(?!\1).)*)\1""")
_BEHAVIOUR = re.compile(r"^\s*//\s*@behaviour\s+([\w.-]+)\s*$")
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


def lint_js_suites(files: SuiteFiles, *, target: Mapping[str, float] | None = None) -> tuple[LintReport, list[Problem]]:
    """The visible:hidden coverage of a JavaScript challenge's test files. ``target`` (the
    challenge's ``[tests] mix``) is not used: the category mix is Python-only."""
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
    return LintReport(coverage=coverage, seeded_hidden=seeded, hidden_total=len(hidden)), problems


def _by_behaviour(visible: list[tuple[str, str, str | None, int]], hidden: list[tuple[str, str, str | None, int]]
                  ) -> list[BehaviourCoverage]:  # fmt: skip
    shown: dict[str, list[str]] = {}
    for _, name, behaviour, _ in visible:
        shown.setdefault(behaviour or "", []).append(name)
    varied: Mapping[str, list[str]] = {b: [n for _, n, hb, _ in hidden if hb == b] for b in shown}
    return [BehaviourCoverage(behaviour=b, visible=v, hidden=varied[b]) for b, v in shown.items()]
