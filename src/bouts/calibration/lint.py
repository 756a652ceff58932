"""Lint a challenge's test suites (SPEC §3), statically. Pure: file texts in, report and problems out.

- at least :data:`MIN_HIDDEN_PER_VISIBLE` hidden test cases per visible behaviour (error);
- the functionality / edge / integration mix against :data:`TARGET_MIX`, reported, and a warning
  when a share is more than :data:`MIX_TOLERANCE` points off;
- hidden tests that read the seed, reported; none at all, or randomness that does not come from
  the seed, is a warning (the reference runs catch the flakiness it causes);
- SPEC §3's hidden-test kinds, checked by kind and not by count: each of value swap, order
  sensitivity, 10,000-record scale and invalid input shown by some hidden test, and each visible
  behaviour varied by at least one of them (warnings naming the kind or the behaviour; the kinds
  found are listed in the report);
- test files that do not parse, or ``behaviour`` markers that are malformed (error).

How many assertions are decided outside the sandbox is counted beside it (``assertions.py``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from bouts.calibration._tests_ast import CATEGORIES, KINDS, MarkerError, TestInfo, parse_tests
from bouts.calibration.report import BehaviourCoverage, Category, LintReport, Mix, Problem
from bouts.models.challenge import Suite

MIN_HIDDEN_PER_VISIBLE = 2
TARGET_MIX: Mapping[Category, float] = {"functionality": 50.0, "edge": 30.0, "integration": 20.0}
MIX_TOLERANCE = 15.0
MIN_MIX_CASES = 20
"""Below this many visible + hidden cases the mix is reported, never warned about: one test moves a
share by more than 5 points, and a small challenge (one pure function, say) has nothing to
integrate."""

SuiteFiles = Mapping[str, tuple[Suite, str]]
"""Test file path relative to the challenge root → (suite, source text)."""


def _problem(level: str, message: str, file: str | None = None, field: str | None = None) -> Problem:
    return Problem(check="lint", level=level, message=message, file=file, field=field)  # type: ignore[arg-type]


def parse_suites(files: SuiteFiles) -> tuple[dict[str, list[TestInfo]], dict[str, Suite], list[Problem]]:
    """Parse every test file; a file that cannot be read statically becomes an error problem."""
    parsed: dict[str, list[TestInfo]] = {}
    suites: dict[str, Suite] = {}
    problems: list[Problem] = []
    for rel, (suite, source) in sorted(files.items()):
        try:
            parsed[rel] = parse_tests(source, filename=rel)
            suites[rel] = suite
        except SyntaxError as e:
            problems.append(_problem("error", f"line {e.lineno}: not valid Python: {e.msg}", rel))
        except MarkerError as e:
            problems.append(_problem("error", f"line {e.line}: {e}", rel))
    return parsed, suites, problems


def lint_suites(files: SuiteFiles, *, target: Mapping[str, float] | None = None) -> tuple[LintReport, list[Problem]]:
    """The lint report of a challenge's visible, hidden and adversarial test files. ``target``: the
    challenge's own mix (``[tests] mix``), default :data:`TARGET_MIX`."""
    goal: Mapping[Category, float] = target or TARGET_MIX  # type: ignore[assignment]
    parsed, suites, problems = parse_suites(files)
    by_suite: dict[Suite, list[tuple[str, TestInfo]]] = defaultdict(list)
    for rel, tests in parsed.items():
        by_suite[suites[rel]] += [(rel, t) for t in tests]
    visible, hidden = by_suite["visible"], by_suite["hidden"]
    if not visible:
        problems.append(_problem("error", "no visible tests", "tests/visible"))
    if not hidden:
        problems.append(_problem("error", "no hidden tests", "tests/hidden"))

    coverage = _coverage(visible, hidden)
    for cov in coverage:
        n = len(cov.hidden)
        if n < MIN_HIDDEN_PER_VISIBLE:
            file = next(rel for rel, t in visible if t.behaviour == cov.behaviour)
            problems.append(_problem(
                "error",
                f"{n} hidden test case(s) vary the visible behaviour '{cov.behaviour}'; SPEC §3 needs at least "
                f"{MIN_HIDDEN_PER_VISIBLE} (name them test_{cov.behaviour}__<variant> or mark them "
                f"@pytest.mark.behaviour(\"{cov.behaviour}\"))",
                file, cov.visible[0],
            ))  # fmt: skip
    shown = {c.behaviour for c in coverage}
    for rel, t in hidden:
        if t.behaviour not in shown:
            problems.append(_problem(
                "warning", f"checks behaviour '{t.behaviour}', which no visible test shows", rel, t.name
            ))

    seeded = [f"{rel}::{t.name}" for rel, t in hidden if t.seeded]
    if hidden and not seeded:
        problems.append(_problem(
            "warning",
            "no hidden test reads the seed (bouts_seed or BOUTS_SEED): the fresh-seed phase re-runs the same data",
            "tests/hidden",
        ))
    users: dict[tuple[str, str], list[str]] = defaultdict(list)
    for rel, t in (*visible, *hidden):
        for use in t.unseeded:
            users[(rel, use)].append(t.name)
    for (rel, use), names in users.items():
        more = f" (and {len(names) - 1} more tests)" if len(names) > 1 else ""
        problems.append(_problem("warning", f"randomness not drawn from the seed ({use}){more}", rel, names[0]))

    kinds = _hidden_kinds(visible, hidden)
    problems += _kind_problems(kinds, visible, hidden)

    mix = _mix([t for _, t in (*visible, *hidden)], goal)
    problems += mix_problems(mix, goal, declare="")
    report = LintReport(
        coverage=coverage, mix=mix, seeded_hidden=seeded, hidden_total=sum(t.cases for _, t in hidden),
        hidden_kinds={k: sorted(f"{rel}::{t.name}" for rel, t in hidden if k in kinds[(rel, t.name)]) for k in KINDS},
    )  # fmt: skip
    return report, problems


def mix_problems(mix: Mix | None, goal: Mapping[Category, float], *, declare: str) -> list[Problem]:
    """Warnings for a category share more than ``MIX_TOLERANCE`` from the challenge's target mix, once
    the suites have ``MIN_MIX_CASES`` cases (Python's and JavaScript's lint alike). ``declare``: how
    the language declares a test's category, said in the message."""
    if mix is None or sum(mix.counts.values()) < MIN_MIX_CASES:
        return []
    return [
        _problem(
            "warning",
            f"{cat} tests are {mix.shares[cat]:.0f}% of visible + hidden cases; the target mix is "
            f"{'/'.join(f'{goal[c]:.0f}' for c in CATEGORIES)} (functionality/edge/integration): add "
            f"{cat} tests{declare}, or, when the task has none to offer (a pure function has nothing to "
            "integrate), set the challenge's own target in [tests] mix; never relabel a test",
            "tests", cat,
        )
        for cat in CATEGORIES
        if abs(mix.shares[cat] - goal[cat]) > MIX_TOLERANCE
    ]  # fmt: skip


def _coverage(visible: list[tuple[str, TestInfo]], hidden: list[tuple[str, TestInfo]]) -> list[BehaviourCoverage]:
    shown: dict[str, list[str]] = {}
    for _, t in visible:
        shown.setdefault(t.behaviour, []).append(t.name)
    varied: dict[str, list[str]] = defaultdict(list)
    for _, t in hidden:
        cases = [t.name] if t.cases == 1 else [f"{t.name}[{i}]" for i in range(t.cases)]
        varied[t.behaviour] += cases
    return [BehaviourCoverage(behaviour=b, visible=v, hidden=varied.get(b, [])) for b, v in shown.items()]


def _mix(tests: list[TestInfo], target: Mapping[Category, float] = TARGET_MIX) -> Mix | None:
    total = sum(t.cases for t in tests)
    if not total:
        return None
    counts: dict[Category, int] = {c: 0 for c in CATEGORIES}
    for t in tests:
        counts[t.category] += t.cases
    return Mix(
        counts=counts,
        shares={c: round(100.0 * n / total, 1) for c, n in counts.items()},
        target={c: float(target[c]) for c in CATEGORIES},
        declared=sum(t.cases for t in tests if t.category_declared),
    )


KIND_WORDS = {
    "value_swap": "swaps the visible test's values (other literals, or values drawn from the seed)",
    "order": "changes the order of its input (reversed, sorted, shuffled)",
    "scale": "runs at 10,000 records or more",
    "invalid": "feeds invalid input (pytest.raises, an expected 4xx answer)",
}


def _hidden_kinds(visible: list[tuple[str, TestInfo]], hidden: list[tuple[str, TestInfo]]
                  ) -> dict[tuple[str, str], frozenset[str]]:  # fmt: skip
    """(file, test) → the SPEC §3 kinds a hidden test shows. A value swap: named so, drawing from the
    seed, or using a value no visible test of its behaviour uses."""
    shown: dict[str, set[str]] = defaultdict(set)
    for _, t in visible:
        shown[t.behaviour] |= t.literals
    out = {}
    for rel, t in hidden:
        swapped = t.seeded or bool(t.literals - shown.get(t.behaviour, set()))
        out[(rel, t.name)] = t.kinds | ({"value_swap"} if swapped else set())
    return out


def _kind_problems(kinds: Mapping[tuple[str, str], frozenset[str]], visible: list[tuple[str, TestInfo]],
                   hidden: list[tuple[str, TestInfo]]) -> list[Problem]:  # fmt: skip
    if not hidden:
        return []
    problems = []
    seen = set().union(*kinds.values())
    for kind in KINDS:
        if kind not in seen:
            problems.append(_problem(
                "warning", f"no hidden test {KIND_WORDS[kind]}: SPEC §3 asks hidden tests to vary the visible "
                "behaviours by value swap, order, 10,000-record scale and invalid input", "tests/hidden", kind,
            ))  # fmt: skip
    behaviours = {t.behaviour for _, t in visible}
    for behaviour in sorted(behaviours):
        mine = [(rel, t) for rel, t in hidden if t.behaviour == behaviour]
        if mine and not any(kinds[(rel, t.name)] for rel, t in mine):
            problems.append(_problem(
                "warning", f"the {len(mine)} hidden test(s) of behaviour '{behaviour}' vary it by none of SPEC §3's "
                "kinds (value swap, order, 10,000-record scale, invalid input): more of the same values",
                mine[0][0], mine[0][1].name,
            ))  # fmt: skip
    return problems
