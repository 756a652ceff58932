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
    assert [(p.level, p.field) for p in problems] == [("error", "b")]
    assert "behaviour 'reset'" in problems[0].message


def test_bouts_check_lints_the_bundled_javascript_challenge():
    root = Path(__file__).resolve().parents[2] / "examples" / "rate-limiter-js"
    report = check_challenge(root, CheckConfig(runs=0, anchors=False))
    assert report.lint is not None and report.lint.hidden_total == 10
    assert len(report.lint.coverage[0].visible) == 5  # 10 hidden for 5 visible: 1:2 holds
    assert not [p for p in report.problems if p.check == "lint" and p.level == "error"]
    assert not any(s.startswith("lint") for s in report.skipped)
