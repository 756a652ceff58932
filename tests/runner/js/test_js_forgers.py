"""Verdict forgers against ``node:test`` challenges with a reference: each test names the forgery.

Red-team report 2026-12 (issue 36): JavaScript verdicts used to be computed and serialised inside
the submission's realm, and three forgers of under 60 lines each turned failing tests into passes
without a flag: (a) an accessor on ``Error.prototype`` that changed how the reporter read node's
failure type, (b) a wrapper on ``Readable.prototype.push`` that turned the test stream's
``test:fail`` into ``test:pass``, (c) an inherited ``Object.prototype.toJSON`` that rewrote the
driver's own record while it was serialised. Since the host decides every test from the
submission's observed values (docs/javascript.md, "Decided on the host"), each forger here adds a
wrong answer (``add`` subtracts) and must pass nothing. The honest submission passes everything.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from js_helpers import JS_LIMITS

from bouts.models.challenge import Challenge, ChallengeSpec
from bouts.models.results import Outcome, RunReport
from bouts.runner import grade
from bouts.sandbox import Sandbox

pytestmark = pytest.mark.sandbox

TESTS = {
    "add.test.mjs": """\
        import { test } from 'node:test';
        import assert from 'node:assert/strict';
        import { add, pair } from '../../src/add.mjs';

        test('adds small numbers', () => { assert.equal(add(2, 3), 5); });
        test('adds negatives', () => {
          const total = add(-2, -3);
          assert.deepStrictEqual([total, add(0, 0)], [-5, 0]);
        });
        test('pairs are plain objects', () => { assert.deepEqual(pair(1, 2), { a: 1, b: 2 }); });
        test('refuses strings', () => { assert.throws(() => add('1', 2), TypeError); });
        """,
}
HONEST = """\
    export function add(a, b) {
      if (typeof a !== 'number' || typeof b !== 'number') throw new TypeError('numbers only');
      return a + b;
    }
    export function pair(a, b) { return { a, b }; }
    """
WRONG = """\
    export function add(a, b) { return a - b; }
    export function pair(a, b) { throw new Error('not yet'); }
    """


TARGETED = """\
    // Forge only in the real tests, whose names the agent has: a canary's name is not among them
    // (before the rewrite the running test's name was on the command line).
    const __REAL = ['adds small numbers', 'adds negatives', 'pairs are plain objects', 'refuses strings'];
    const __pattern = process.execArgv.find((a) => a.startsWith('--test-name-pattern='));
    const __forge = !__pattern || __REAL.some((n) => __pattern.endsWith(`=^${n}$`));
    """


@pytest.fixture
def forged(tmp_path: Path, bwrap_js: Sandbox):
    def run(extra: str, *, wrong: str = WRONG) -> RunReport:
        root = tmp_path / "challenge"
        files = {**{f"tests/visible/{k}": v for k, v in TESTS.items()}, "reference/src/add.mjs": HONEST}
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(textwrap.dedent(text))
        code = tmp_path / "code"
        (code / "src").mkdir(parents=True, exist_ok=True)
        source = textwrap.dedent(wrong) + textwrap.dedent(TARGETED) + textwrap.dedent(extra)
        (code / "src" / "add.mjs").write_text(source)
        spec = ChallengeSpec(id="tiny-forged", title="Tiny", language="javascript", limits=JS_LIMITS)
        challenge = Challenge(root=root, spec=spec, content_hash="forgers", suite_hashes={"visible": "x"},
                              test_files={"visible": [f"tests/visible/{k}" for k in TESTS]})  # fmt: skip
        return grade(challenge, code, sandbox=bwrap_js)

    return run


def passes(report: RunReport) -> list[str]:
    return [r.id.split("::")[1] for r in report.results if r.outcome is Outcome.PASSED]


def test_the_honest_submission_passes_and_the_wrong_one_does_not(forged) -> None:
    honest = forged("", wrong=HONEST)
    assert len(passes(honest)) == 4 and honest.tampering == []
    assert passes(forged("")) == []


def test_an_error_prototype_accessor_on_the_failure_type_forges_nothing(forged) -> None:
    # (a) node's failure type is assigned on its error: the setter swallows it, the getter answers a
    # key whose inherited value reads as a pass in the reporter's table.
    report = forged("""\
        if (__forge) {
          Object.defineProperty(Object.prototype, 'zzpass', { value: 'passed', configurable: true });
          Object.defineProperty(Error.prototype, 'failureType', {
            get() { return 'zzpass'; }, set(v) {}, configurable: true,
          });
        }
        """)
    assert passes(report) == []
    # node reported a pass for a test whose body raised: the reporting was rewritten.
    assert any("verdicts are being forged" in t for t in report.tampering)


def test_rewriting_the_test_stream_with_readable_push_forges_nothing(forged) -> None:
    # (b) every event node:test reports goes through Readable.prototype.push.
    report = forged("""\
        import { Readable } from 'node:stream';
        const push = Readable.prototype.push;
        Readable.prototype.push = function (chunk, ...rest) {
          if (__forge && chunk && typeof chunk === 'object' && chunk.type === 'test:fail') {
            const data = { ...chunk.data };
            chunk = { type: 'test:pass', data: { ...data, details: { duration_ms: 1 } } };
          }
          return push.call(this, chunk, ...rest);
        };
        """)
    assert passes(report) == []
    assert any("verdicts are being forged" in t for t in report.tampering)


def test_an_inherited_tojson_rewriting_the_drivers_record_forges_nothing(forged) -> None:
    # (c) the record is serialised in the test process: an inherited toJSON used to rewrite it (with
    # the right fd and the right nonce, since the driver itself wrote it).
    report = forged("""\
        Object.defineProperty(Object.prototype, 'toJSON', {
          value() {
            if (__forge && this && this.type === 'result' && typeof this.outcome === 'string') {
              const copy = Object.create(null);
              for (const k of Object.keys(this)) copy[k] = this[k];
              copy.outcome = 'passed'; copy.detail = ''; copy.failure = '';
              return copy;
            }
            return this;
          },
          configurable: true, writable: true,
        });
        """)
    assert passes(report) == []


def test_a_to_primitive_and_getter_forger_on_observed_values_forges_nothing(forged) -> None:
    # The observed value lies to whoever converts or reads it: a Symbol.toPrimitive answering the
    # literal, an always-equal valueOf, a getter that changes its answer. The encoder reads own data
    # properties only: a getter is never called, a primitive is never asked for.
    report = forged("""\
        export function lying() {}
        const lie = { [Symbol.toPrimitive]() { return 5; }, valueOf() { return 5; } };
        Object.defineProperty(Object.prototype, 'a', { get() { return 1; }, configurable: true });
        globalThis.__lie = lie;
        """, wrong="""\
        export function add(a, b) { return globalThis.__lie; }
        export function pair(a, b) {
          const o = {};
          Object.defineProperty(o, 'b', { get: () => 2, enumerable: true });
          return o;
        }
        """)
    assert passes(report) == []


def test_neutralising_every_assert_function_forges_nothing(forged) -> None:
    report = forged("""\
        import assert from 'node:assert';
        for (const mod of [assert, assert.strict]) {
          for (const k of Object.getOwnPropertyNames(mod)) {
            if (!__forge || typeof mod[k] !== 'function' || k === 'AssertionError') continue;
            try { mod[k] = () => {}; } catch {}
          }
        }
        """)
    assert passes(report) == []


def test_exiting_cleanly_on_a_failure_forges_nothing(forged) -> None:
    report = forged("""\
        if (__forge) {
          process.on('uncaughtException', () => process.exit(0));
          Object.defineProperty(process, 'exitCode', { get() { return 0; }, set() {}, configurable: true });
        }
        """)
    assert passes(report) == []


def test_reading_the_expected_literal_off_the_test_file_finds_none(forged) -> None:
    # The forger answers the literal written after the call on its caller's line. The graded text
    # holds no expected value: the line it reads is `__bouts.v(k, () => [(add(2, 3))])`.
    report = forged("""\
        import { readFileSync } from 'node:fs';
        export function literalHere() {
          for (const line of new Error().stack.split('\\n')) {
            const m = line.match(/(file:\\/\\/[^\\s)]+tests\\/[^\\s)]+):(\\d+):(\\d+)/);
            if (!m) continue;
            const text = readFileSync(new URL(m[1]), 'utf8').split('\\n')[Number(m[2]) - 1];
            const lit = text.match(/\\),\\s*(-?\\d+)\\)/);
            return lit ? Number(lit[1]) : undefined;
          }
          return undefined;
        }
        """, wrong="""\
        export function add(a, b) { const want = literalHere(); return want === undefined ? a - b : want; }
        export function pair(a, b) { return { a: b, b: a }; }
        """)
    assert passes(report) == []


def test_forging_observations_and_ends_through_the_runtime_forges_nothing(forged) -> None:
    # The runtime is reachable (the tests call it): a forger that reports every test's end and
    # observations of its own choosing still has to name the reference's values, which it does not have.
    report = forged("""\
        import { readFileSync, readdirSync } from 'node:fs';
        export function forge() {
          for (const f of readdirSync('tests/visible')) {
            const text = readFileSync('tests/visible/' + f, 'utf8');
            for (const m of text.matchAll(/__bouts\\.(\\w+)\\((\\d+)/g)) {
              const k = Number(m[2]);
              try { if (m[1] === 'e') globalThis.__bouts.e(k); else globalThis.__bouts.v(k, () => [5]); } catch {}
            }
          }
        }
        """, wrong="""\
        export function add(a, b) { forge(); return a - b; }
        export function pair(a, b) { forge(); return { a: b, b: a }; }
        """)
    assert passes(report) == []


def test_a_javascript_challenge_runs_at_its_declared_workdir(tmp_path: Path, bwrap_js: Sandbox) -> None:
    from bouts.models.challenge import TestsConfig
    from bouts.runner import run_suites

    root = tmp_path / "challenge"
    (root / "tests" / "visible").mkdir(parents=True)
    (root / "tests" / "visible" / "cwd.test.mjs").write_text(textwrap.dedent("""\
        import { test } from 'node:test';
        import assert from 'node:assert/strict';
        import { here } from '../../src/here.mjs';

        test('runs in the project folder', () => { assert.equal(here(), '/home/dev/limiter'); });
        """))
    code = tmp_path / "code"
    (code / "src").mkdir(parents=True)
    (code / "src" / "here.mjs").write_text("export const here = () => process.cwd();\n")
    spec = ChallengeSpec(id="tiny-workdir", title="Tiny", language="javascript", limits=JS_LIMITS,
                         tests=TestsConfig(workdir="/home/dev/limiter"))  # fmt: skip
    challenge = Challenge(root=root, spec=spec, content_hash="workdir", suite_hashes={"visible": "x"},
                          test_files={"visible": ["tests/visible/cwd.test.mjs"]})  # fmt: skip
    report = run_suites(challenge, code, sandbox=bwrap_js)
    assert [r.outcome for r in report.results] == [Outcome.PASSED]


def test_a_generated_test_forged_through_the_test_stream_fails(tmp_path: Path, bwrap_js: Sandbox) -> None:
    # The engine's generated tests run without a reference (checked in the sandbox): the probe's
    # failure is recorded where it is raised, so node's forged pass does not make it pass.
    from bouts.runner.js import run_js

    generated = {"tests/generated/test_gen_fuzz.mjs": textwrap.dedent("""\
        import { test } from 'node:test';
        import { add } from '../../src/add.mjs';

        async function probe() { if (add(2, 3) !== 5) throw new Error('ungraceful: add(2, 3)'); }
        test('gen 1', async () => {
          await probe();
        });
        """)}  # fmt: skip
    code = tmp_path / "code"
    (code / "src").mkdir(parents=True)
    (code / "src" / "add.mjs").write_text(textwrap.dedent(WRONG) + textwrap.dedent("""\
        import { Readable } from 'node:stream';
        const push = Readable.prototype.push;
        // Past a canary when the running test's name can be read; every test when it cannot.
        const pattern = process.execArgv.find((a) => a.startsWith('--test-name-pattern='));
        const real = pattern === undefined || pattern === '--test-name-pattern=^gen 1$';
        Readable.prototype.push = function (chunk, ...rest) {
          if (real && chunk && typeof chunk === 'object' && chunk.type === 'test:fail') {
            chunk = { type: 'test:pass', data: { ...chunk.data, details: { duration_ms: 1 } } };
          }
          return push.call(this, chunk, ...rest);
        };
        """))
    root = tmp_path / "challenge"
    root.mkdir()
    spec = ChallengeSpec(id="tiny-gen", title="Tiny", language="javascript", limits=JS_LIMITS)
    challenge = Challenge(root=root, spec=spec, content_hash="gen", suite_hashes={}, test_files={})
    run = run_js(challenge, code, sandbox=bwrap_js, suites=(), generated=generated,
                 expected_ids=["tests/generated/test_gen_fuzz.mjs::gen 1"])  # fmt: skip
    assert [r.outcome for r in run.report.results] == [Outcome.FAILED]
    assert any("verdicts are being forged" in t for t in run.report.tampering)


def test_progress_hears_each_graded_result_once_and_no_canary(tmp_path: Path, bwrap_js: Sandbox) -> None:
    # The JavaScript runner reports results to ``progress`` after the session, through the same
    # adapter as Python's (``progress_adapter``): the report's results, canaries left out.
    from bouts.models.results import TestResult
    from bouts.runner import run_suites

    root = tmp_path / "challenge"
    (root / "tests" / "visible").mkdir(parents=True)
    (root / "tests" / "visible" / "add.test.mjs").write_text(
        textwrap.dedent("""\
        import { test } from 'node:test';
        import assert from 'node:assert/strict';
        import { add } from '../../src/add.mjs';

        test('adds', () => { assert.equal(add(2, 3), 5); });
        test('adds negatives', () => { assert.equal(add(-2, -3), -5); });
        """)
    )
    code = tmp_path / "code"
    (code / "src").mkdir(parents=True)
    (code / "src" / "add.mjs").write_text("export const add = (a, b) => (a < 0 ? a - b : a + b);\n")
    spec = ChallengeSpec(id="tiny-progress", title="Tiny", language="javascript", limits=JS_LIMITS)
    challenge = Challenge(root=root, spec=spec, content_hash="progress", suite_hashes={"visible": "x"},
                          test_files={"visible": ["tests/visible/add.test.mjs"]})  # fmt: skip
    heard: list[TestResult] = []
    report = run_suites(challenge, code, sandbox=bwrap_js, progress=heard.append)
    assert sorted((r.id, r.outcome) for r in heard) == sorted((r.id, r.outcome) for r in report.results)
    assert sorted((r.id, r.outcome) for r in heard) == [
        ("tests/visible/add.test.mjs::adds", Outcome.PASSED),
        ("tests/visible/add.test.mjs::adds negatives", Outcome.FAILED),
    ]
