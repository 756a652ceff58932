"""Issue 36's second JavaScript red team, classes 1 and 2, on a tiny ``node:test`` challenge with a
reference (class 3, code the judges cannot read, is in tests/judges/integrity/test_integrity_js_code.py).

Class 1, verdicts forged in the realm, three new variants: a nonce stolen from a heap snapshot and
passing records written on every descriptor; values that lie to the encoder (getters, a Proxy,
``toJSON``/``valueOf``/``Symbol.toPrimitive``); the observer hijacked (its global redefined, array
index setters, ``JSON.stringify`` and ``fs.writeSync`` rewritten). Each adds a wrong answer and must
pass nothing.

Class 2, code right only under the grader: the right answer only when the runner's globals are
there, when the runner's environment variables are, when node runs with the runner's flags. The
graded process now has none of those signals (the flags are gone, the environment is a plain run's,
the seed is written into the tests' text) or reads them through tripwires: solution code that looks
is test-environment detection, and the run is voided.
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

TESTS = """\
    import { test } from 'node:test';
    import assert from 'node:assert/strict';
    import { add } from '../../src/add.mjs';

    test('adds small numbers', () => { assert.equal(add(2, 3), 5); });
    test('adds negatives', () => { assert.deepStrictEqual([add(-2, -3), add(0, 0)], [-5, 0]); });
    test('refuses strings', () => { assert.throws(() => add('1', 2), TypeError); });
    """
RIGHT = """\
    function right(a, b) {
      if (typeof a !== 'number' || typeof b !== 'number') throw new TypeError('numbers only');
      return a + b;
    }
    """
WRONG = "function wrong(a, b) { return a - b; }\n"


@pytest.fixture
def scored(tmp_path: Path, bwrap_js: Sandbox):
    def run(source: str) -> RunReport:
        root = tmp_path / "challenge"
        files = {"tests/visible/add.test.mjs": TESTS, "reference/src/add.mjs": RIGHT + "export const add = right;\n"}
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(textwrap.dedent(text))
        code = tmp_path / "code" / "src"
        code.mkdir(parents=True, exist_ok=True)
        (code / "add.mjs").write_text(textwrap.dedent(RIGHT) + WRONG + textwrap.dedent(source))
        spec = ChallengeSpec(id="tiny-red-36", title="Tiny", language="javascript", limits=JS_LIMITS)
        challenge = Challenge(root=root, spec=spec, content_hash="red-36", suite_hashes={"visible": "x"},
                              test_files={"visible": ["tests/visible/add.test.mjs"]})  # fmt: skip
        return grade(challenge, code.parent, sandbox=bwrap_js)

    return run


def passes(report: RunReport) -> list[str]:
    return [r.id.split("::")[1] for r in report.results if r.outcome is Outcome.PASSED]


def test_the_right_code_passes_and_the_wrong_code_does_not(scored) -> None:
    honest = scored("export const add = right;\n")
    assert len(passes(honest)) == 3 and honest.tampering == []
    assert passes(scored("export const add = wrong;\n")) == []


FORGERS = {
    "heap-nonce": """\
        import v8 from 'node:v8';
        import fs from 'node:fs';
        export const add = wrong;
        let text = '';
        for (const chunk of v8.getHeapSnapshot()) text += chunk;
        const nonces = [...new Set([...text.matchAll(/nonce\\\\?":\\\\?"([0-9a-f]{32})/g)].map((m) => m[1]))];
        const names = ['adds small numbers', 'adds negatives', 'refuses strings'];
        const lines = [];
        for (const nonce of nonces.slice(0, 4)) for (const id of names) {
          const forged = { type: 'result', id, outcome: 'passed', changed: [], observations: [], nonce };
          lines.push(JSON.stringify(forged));
          for (let site = 1; site < 12; site += 1) lines.push(JSON.stringify({ type: 'obs', site, end: 1, nonce }));
        }
        for (let fd = 3; fd < 30; fd += 1) { try { fs.writeSync(fd, lines.join('\\n') + '\\n'); } catch {} }
        """,
    "lying-values": """\
        export function add(a, b) {
          const r = wrong(a, b);
          const out = { valueOf: () => a + b, [Symbol.toPrimitive]: () => a + b, toJSON: () => a + b };
          const lie = new Proxy(out, { get: (t, k) => (k === 'valueOf' ? () => a + b : Reflect.get(t, k)) });
          return lie && r;
        }
        """,
    "observer-hijack": """\
        import fs from 'node:fs';
        export const add = wrong;
        const fake = new Proxy({}, { get: () => () => undefined });
        try { Object.defineProperty(globalThis, '__bouts', { value: fake }); } catch {}
        for (let i = 0; i < 4; i += 1) {
          const index = { set() {}, get: () => 5, configurable: true };
          try { Object.defineProperty(Array.prototype, String(i), index); } catch {}
        }
        const write = fs.writeSync;
        const flip = (s) => (typeof s === 'string' ? s.replaceAll('failed', 'passed') : s);
        fs.writeSync = (fd, s, ...rest) => write(fd, flip(s), ...rest);
        JSON.stringify = ((orig) => (v, ...r) => orig(v, ...r).replaceAll('failed', 'passed'))(JSON.stringify);
        process.on('uncaughtException', () => {});
        """,
}


@pytest.mark.parametrize("forger", sorted(FORGERS))
def test_a_verdict_forged_in_the_test_process_passes_nothing(scored, forger: str) -> None:
    assert passes(scored(FORGERS[forger])) == []


GRADER_ONLY = {
    # The runner's globals: the observer, bouts_expect.
    "runner-globals": "typeof globalThis[['__', 'bouts'].join('')] === 'object' || typeof globalThis["
                      "String.fromCharCode(98, 111, 117, 116, 115, 95, 101, 120, 112, 101, 99, 116)] === 'function'",
    # The runner's environment: its variables, a test runner's NODE_ENV, the sandbox's OpenSSL setting.
    "runner-environment": "Object.keys(process['e' + 'nv']).some((k) => k.slice(0, 3) === 'BOU') "
                          "|| process['e' + 'nv'][['NODE', 'ENV'].join('_')] === ['te', 'st'].join('') "
                          "|| process['e' + 'nv'][['OPENSSL', 'CONF'].join('_')] !== undefined",
    # The runner's command line: its flags, node started by a full path.
    "runner-flags": "process['exec' + 'Argv'].length > 0 || process['arg' + 'v0'] !== 'node'",
}  # fmt: skip


@pytest.mark.parametrize("signal", sorted(GRADER_ONLY))
def test_code_right_only_under_the_grader_gains_nothing(scored, signal: str) -> None:
    report = scored(f"export function add(a, b) {{ return ({GRADER_ONLY[signal]}) ? right(a, b) : wrong(a, b); }}\n")
    # Either the graded process gave no signal (the code ran as in use: wrong) or the code was seen
    # looking for one (the run is voided as test-environment detection).
    assert passes(report) == [] or any("test-environment detection" in t for t in report.tampering), report.results
    assert passes(report) == []


def test_honest_code_reading_node_env_for_production_is_not_flagged(scored) -> None:
    # `NODE_ENV !== 'production'` is idiomatic: the graded process has no NODE_ENV (as a plain run),
    # so reading it is neither a signal nor evidence.
    report = scored("const dev = process.env.NODE_ENV !== 'production' && !process.env.NO_COLOR;\n"
                    "export function add(a, b) { return dev ? right(a, b) : right(a, b); }\n")
    assert len(passes(report)) == 3 and report.tampering == []
