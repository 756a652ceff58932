"""vitest and jest suites through the trusted channel; TypeScript and bouts_expect under each framework.

Real runs in the bubblewrap sandbox against the environment of ``fixtures/frameworks`` (prepared
once, cached by its hash). Hostile submissions are in ``test_js_framework_attacks.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from js_helpers import FW_IDS, JS_LIMITS, MakeFwChallenge

from bouts.models.results import Outcome, RunReport
from bouts.runner import grade, run_suites
from bouts.sandbox import Sandbox

pytestmark = pytest.mark.sandbox

BABEL_TS = {"babel.config.json": '{"presets": ["@babel/preset-typescript"], '
                                 '"plugins": ["@babel/plugin-transform-modules-commonjs"]}\n'}  # fmt: skip
TS_CODE = {"src/mul.ts": "export function mul(a: number, b: number): number { return a * b; }\n"}
TS_TESTS = {
    "vitest": "import { test, expect } from 'vitest';\n",
    "jest": "",
    "node:test": "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n",
}
CHECK = {"vitest": "expect(x).toBe(6)", "jest": "expect(x).toBe(6)", "node:test": "assert.equal(x, 6)"}


def outcomes(report: RunReport) -> dict[str, Outcome]:
    return {r.id.split("::", 1)[-1]: r.outcome for r in report.results}


@pytest.mark.parametrize("framework", ["vitest", "jest"])
def test_an_honest_submission_passes_every_test(
    framework: str, make_fw_challenge: MakeFwChallenge, bwrap_js: Sandbox, fw_deps_cache: Path
) -> None:
    challenge, code = make_fw_challenge(framework)
    report = run_suites(challenge, code, sandbox=bwrap_js)
    assert outcomes(report) == dict.fromkeys(FW_IDS, Outcome.PASSED), [(r.id, r.detail) for r in report.results]
    assert report.tampering == [] and report.stability.crashes == []


@pytest.mark.parametrize("framework", ["vitest", "jest", "node:test"])
def test_typescript_tests_and_sources_run_under_each_framework(
    framework: str, make_fw_challenge: MakeFwChallenge, bwrap_js: Sandbox, fw_deps_cache: Path
) -> None:
    # vitest compiles TypeScript itself; jest with the challenge's Babel config; node:test with tsx.
    test = (f"{TS_TESTS[framework]}import {{ mul }} from '../../src/mul';\n\n"
            f"test('multiplies', () => {{ const x: number = mul(2, 3); {CHECK[framework]}; }});\n")  # fmt: skip
    extra = BABEL_TS if framework == "jest" else {}
    # tsx's loader runs in a second V8 isolate under node 20: node:test + TypeScript needs 2048 MB.
    limits = JS_LIMITS.model_copy(update={"memory_mb": 2048 if framework == "node:test" else 1024})
    challenge, code = make_fw_challenge(framework, {"visible": {"mul.test.ts": test}}, TS_CODE, extra=extra,
                                        language="typescript", limits=limits)  # fmt: skip
    report = run_suites(challenge, code, sandbox=bwrap_js)
    assert outcomes(report) == {"multiplies": Outcome.PASSED}, report.results
    assert report.tampering == []


@pytest.mark.parametrize("framework", ["vitest", "jest"])
def test_a_test_that_hangs_is_killed_at_the_timeout_and_the_file_goes_on(
    framework: str, make_fw_challenge: MakeFwChallenge, bwrap_js: Sandbox, fw_deps_cache: Path
) -> None:
    # A synchronous loop blocks the framework's own timer: the supervisor's watchdog kills the
    # process and starts the file again without the tests already reported.
    challenge, code = make_fw_challenge(framework, code={
        "src/add.mjs": "export function add(a, b) { if (a === 2) for (;;) {} return a + b; }\n",
        "src/add.cjs": "exports.add = (a, b) => { if (a === 2) for (;;) {} return a + b; };\n",
    })  # fmt: skip
    report = run_suites(challenge, code, sandbox=bwrap_js)
    assert outcomes(report) == {"adds small numbers": Outcome.TIMEOUT, "grp > adds negatives": Outcome.PASSED}
    assert any("timeout" in c for c in report.stability.crashes)


@pytest.mark.parametrize("framework", ["vitest", "jest"])
def test_process_exit_inside_a_test_crashes_that_test_only(
    framework: str, make_fw_challenge: MakeFwChallenge, bwrap_js: Sandbox, fw_deps_cache: Path
) -> None:
    challenge, code = make_fw_challenge(framework, code={
        "src/add.mjs": "export function add(a, b) { if (a === 2) process.exit(0); return a + b; }\n",
        "src/add.cjs": "exports.add = (a, b) => { if (a === 2) process.exit(0); return a + b; };\n",
    })  # fmt: skip
    report = run_suites(challenge, code, sandbox=bwrap_js)
    assert outcomes(report)["grp > adds negatives"] is Outcome.PASSED
    assert outcomes(report)["adds small numbers"] in (Outcome.CRASHED, Outcome.FAILED)


EXPECT_TESTS = {
    "vitest": "import { test } from 'vitest';\nimport { add } from '../../src/add.mjs';\n",
    "jest": "const { add } = require('../../src/add.cjs');\n",
    "node:test": "import { test } from 'node:test';\nimport { add } from '../../src/add.mjs';\n",
}


@pytest.mark.parametrize("framework", ["vitest", "jest", "node:test"])
def test_bouts_expect_passes_only_the_reference_values(
    framework: str, make_fw_challenge: MakeFwChallenge, bwrap_js: Sandbox, fw_deps_cache: Path, tmp_path: Path
) -> None:
    # `bouts_expect(value)` records a digest; the host compares it with the reference's.
    name = "add.test.cjs" if framework == "jest" else "add.test.mjs"
    test = EXPECT_TESTS[framework] + (
        "test('digest only', () => {\n"
        "  bouts_expect(add(2, 3)); bouts_expect({ sum: add(1, 1), list: [add(0, 0)] });\n"
        "});\n"
        "test('with expected', () => { bouts_expect(add(-2, -3), -5); });\n"
    )
    honest = {"src/add.mjs": "export function add(a, b) { return a + b; }\n",
              "src/add.cjs": "exports.add = (a, b) => a + b;\n"}  # fmt: skip
    challenge, code = make_fw_challenge(framework, {"visible": {name: test}}, honest, reference=honest)
    report = grade(challenge, code, sandbox=bwrap_js)
    assert outcomes(report) == {"digest only": Outcome.PASSED, "with expected": Outcome.PASSED}
    # Off by one on (2, 3) only: no assertion in the test fails, the digest differs from the reference's.
    wrong = {"src/add.mjs": "export function add(a, b) { return a === 2 ? 6 : a + b; }\n",
             "src/add.cjs": "exports.add = (a, b) => (a === 2 ? 6 : a + b);\n"}  # fmt: skip
    sub = tmp_path / "wrong"
    for rel, text in wrong.items():
        (sub / rel).parent.mkdir(parents=True, exist_ok=True)
        (sub / rel).write_text(text)
    report = grade(challenge, sub, sandbox=bwrap_js)
    assert outcomes(report) == {"digest only": Outcome.FAILED, "with expected": Outcome.PASSED}
    # vitest/jest: the digest check; node:test: decided on the host against the reference's value.
    detail = report.results[0].detail
    assert "differs from the reference" in detail or "the reference's value is 5" in detail


@pytest.mark.parametrize("framework", ["vitest", "jest"])
def test_an_unhandled_rejection_is_a_stability_warning(
    framework: str, make_fw_challenge: MakeFwChallenge, bwrap_js: Sandbox, fw_deps_cache: Path
) -> None:
    challenge, code = make_fw_challenge(framework, code={
        "src/add.mjs": "export function add(a, b) { Promise.reject(new Error('lost')); return a + b; }\n",
        "src/add.cjs": "exports.add = (a, b) => { Promise.reject(new Error('lost')); return a + b; };\n",
    })  # fmt: skip
    report = run_suites(challenge, code, sandbox=bwrap_js)
    assert "UnhandledPromiseRejection: Error: lost" in report.stability.warnings
    assert report.stability.crashes == []


MATCHERS = """\
test('matchers', async () => {
  expect(add(2, 3)).toBe(5);
  expect({ sum: add(2, 3) }).toEqual({ sum: 5 });
  expect(add(1, 1)).not.toBe(3);
  expect(add(0, 0)).toBeFalsy();
  expect(add(2, 2)).toBeGreaterThan(3);
  expect([add(1, 2)]).toHaveLength(1);
  expect(add(0.1, 0.2)).toBeCloseTo(0.3);
  expect(() => add(1, 2)).not.toThrow();
  await expect(Promise.resolve(add(4, 4))).resolves.toBe(8);
  expect.assertions(9);
});
test('throws', () => { expect(() => add('a', 1)).toThrow(TypeError); });
"""
MATCHER_CODE = "{ if (typeof a !== 'number') throw new TypeError('numbers only'); return a + b; }"


@pytest.mark.parametrize("framework", ["vitest", "jest"])
def test_expect_matchers_are_decided_on_the_host_against_the_reference(
    framework: str, make_fw_challenge: MakeFwChallenge, bwrap_js: Sandbox, fw_deps_cache: Path, tmp_path: Path
) -> None:
    # Graded text: `expect(add(2, 3)).toBe(5)` → an observation of add(2, 3), no 5, no matcher. The
    # values leave the test process through the runner's encoder; the host compares them with the
    # reference's and decides. A submission wrong on one value fails the test whatever the matchers
    # or the framework's results say in the process.
    name = "add.test.cjs" if framework == "jest" else "add.test.mjs"
    head = ("import { test, expect } from 'vitest';\nimport { add } from '../../src/add.mjs';\n"
            if framework == "vitest" else "const { add } = require('../../src/add.cjs');\n")  # fmt: skip
    honest = {"src/add.mjs": f"export function add(a, b) {MATCHER_CODE}\n",
              "src/add.cjs": f"exports.add = (a, b) => {MATCHER_CODE};\n"}  # fmt: skip
    challenge, code = make_fw_challenge(framework, {"visible": {name: head + MATCHERS}}, honest, reference=honest)
    report = grade(challenge, code, sandbox=bwrap_js)
    assert outcomes(report) == {"matchers": Outcome.PASSED, "throws": Outcome.PASSED}, report.results
    assert [(c.externalised, c.total) for c in report.assertions] == [(10, 10)]
    # Wrong on add(0, 0) only, and every matcher neutralised in the process (a Proxy answers every
    # matcher call): the host still sees 1 where the reference's value is 0.
    forge = ("globalThis.expect = new Proxy(() => {}, { apply: () => new Proxy({}, { get: (t, k) => "
             "k === 'then' ? undefined : new Proxy(() => {}, { apply: () => undefined, get: () => () => {} }) }) });\n")
    wrong = {"src/add.mjs": f"{forge}export function add(a, b) {{ if (a === 0) return 1; return a + b; }}\n",
             "src/add.cjs": f"{forge}exports.add = (a, b) => (a === 0 ? 1 : a + b);\n"}  # fmt: skip
    sub = tmp_path / "wrong"
    for rel, text in wrong.items():
        (sub / rel).parent.mkdir(parents=True, exist_ok=True)
        (sub / rel).write_text(text)
    report = grade(challenge, sub, sandbox=bwrap_js)
    got = {r.id.split("::", 1)[-1]: r for r in report.results}
    assert got["matchers"].outcome is not Outcome.PASSED and got["throws"].outcome is not Outcome.PASSED
    assert "decided on the host" in got["matchers"].detail or report.tampering, got["matchers"].detail
