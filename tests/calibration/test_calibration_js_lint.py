"""The 1:2 visible:hidden rule of SPEC §3 for JavaScript tests (calibration/js_lint.py)."""

from __future__ import annotations

from pathlib import Path

from bouts.calibration.check import CheckConfig, check_challenge
from bouts.calibration.js_lint import ALL, lint_js_suites, parse_js_tests

VISIBLE = "import { test } from 'node:test';\n\ntest('allows up to the limit', () => {});\nit(\"blocks\", () => {});\n"


def _hidden(n: int, behaviour: str | None = None) -> str:
    mark = f"// @behaviour {behaviour}\n" if behaviour else ""
    return "const seed = Number(process.env.BOUTS_SEED);\n" + "".join(
        f"{mark}test('case {i}', () => {{}});\n" for i in range(n)
    )


def test_test_calls_are_found_with_their_declared_behaviour():
    src = "// @behaviour limit\n\ntest('a', () => {});\ntest.skip(`b`, () => {});\nfoo.test('c');\n"
    assert parse_js_tests(src) == [("a", "limit", 3), ("b", None, 4)]


def test_without_declared_behaviours_the_suites_need_two_hidden_per_visible():
    files = {"tests/visible/v.test.mjs": ("visible", VISIBLE), "tests/hidden/h.test.mjs": ("hidden", _hidden(3))}
    report, problems = lint_js_suites(files)  # type: ignore[arg-type]
    assert report.coverage[0].behaviour == ALL and len(report.coverage[0].hidden) == 3
    errors = [p for p in problems if p.level == "error"]
    assert len(errors) == 1 and "3 hidden test(s) for 2 visible test(s)" in errors[0].message
    files["tests/hidden/h.test.mjs"] = ("hidden", _hidden(4))
    assert not [p for p in lint_js_suites(files)[1] if p.level == "error"]  # type: ignore[arg-type]


def test_declared_behaviours_are_checked_one_by_one():
    visible = "// @behaviour limit\ntest('a', () => {});\n// @behaviour reset\ntest('b', () => {});\n"
    hidden = _hidden(3, "limit") + _hidden(1, "reset")
    files = {"tests/visible/v.test.mjs": ("visible", visible), "tests/hidden/h.test.mjs": ("hidden", hidden)}
    report, problems = lint_js_suites(files)  # type: ignore[arg-type]
    assert {c.behaviour: len(c.hidden) for c in report.coverage} == {"limit": 3, "reset": 1}
    problems = [p for p in problems if "target mix" not in p.message]  # the toy suite's mix: another test
    assert [(p.level, p.field) for p in problems] == [("error", "b")]
    assert "behaviour 'reset'" in problems[0].message


def test_bouts_check_lints_the_bundled_javascript_challenge():
    root = Path(__file__).resolve().parents[2] / "examples" / "rate-limiter-js"
    report = check_challenge(root, CheckConfig(runs=0, anchors=False))
    assert report.lint is not None and report.lint.hidden_total == 10
    assert len(report.lint.coverage[0].visible) == 5  # 10 hidden for 5 visible: 1:2 holds
    assert not [p for p in report.problems if p.check == "lint" and p.level == "error"]
    assert not any(s.startswith("lint") for s in report.skipped)


def test_the_functionality_edge_integration_mix_is_reported_and_warned_as_for_python() -> None:
    """Before: a JavaScript challenge's mix was neither reported nor checked (Python's only)."""
    from bouts.calibration.js_lint import lint_js_suites

    visible = 'test("adds two numbers", () => {});\ntest("counts a hit", () => {});\n'
    hidden = "".join(f'test("adds case {i}", () => {{}});\n' for i in range(4))
    files = {"tests/visible/a.test.mjs": ("visible", visible), "tests/hidden/b.test.mjs": ("hidden", hidden)}
    report, problems = lint_js_suites(files)
    assert report.mix is not None and report.mix.counts == {"functionality": 6, "edge": 0, "integration": 0}
    # below MIN_MIX_CASES cases the mix is reported, never warned about (as for Python)
    assert not [p for p in problems if "target mix" in (p.message or "")]
    many = "".join(f'test("adds case {i}", () => {{}});\n' for i in range(20))
    report, problems = lint_js_suites({**files, "tests/hidden/b.test.mjs": ("hidden", many)})
    assert report.mix is not None and report.mix.counts == {"functionality": 22, "edge": 0, "integration": 0}
    assert {p.field for p in problems if "target mix" in (p.message or "")} == {"functionality", "edge", "integration"}
    # the challenge's own target ([tests] mix) is the one checked
    report, problems = lint_js_suites({**files, "tests/hidden/b.test.mjs": ("hidden", many)},
                                      target={"functionality": 100, "edge": 0, "integration": 0})  # fmt: skip
    assert not [p for p in problems if "target mix" in (p.message or "")]

    mixed = hidden.replace('test("adds case 0"', '// @category integration\ntest("adds case 0"')
    mixed = mixed.replace('"adds case 1"', '"rejects a negative amount"').replace('"adds case 2"', '"rejects zero"')
    report, problems = lint_js_suites({**files, "tests/hidden/b.test.mjs": ("hidden", mixed)})
    assert report.mix is not None and report.mix.counts == {"functionality": 3, "edge": 2, "integration": 1}
    assert report.mix.declared == 1
