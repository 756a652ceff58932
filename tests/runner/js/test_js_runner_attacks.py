"""The JavaScript runner against hostile submissions: each test names the attack it stops.

Every attack is measured against the honest submission of the same tiny challenge, which passes
both tests; an attack must never score more than that, and must not pass a test it did not earn.
"""

from __future__ import annotations

import pytest
from js_helpers import HONEST_CODE, MakeJsChallenge

from bouts.models.results import Outcome, RunReport
from bouts.runner import run_suites
from bouts.sandbox import Sandbox

pytestmark = pytest.mark.sandbox

EXPECTED = ["tests/visible/add.test.mjs::adds small numbers", "tests/visible/add.test.mjs::adds negatives"]


def run(make: MakeJsChallenge, sandbox: Sandbox, body: str, *, expected: bool = True) -> RunReport:
    challenge, code = make(code={"src/add.mjs": body})
    return run_suites(challenge, code, sandbox=sandbox, expected_ids=EXPECTED if expected else None)


def outcomes(report: RunReport) -> dict[str, Outcome]:
    return {r.id.split("::")[1]: r.outcome for r in report.results}


def passed(report: RunReport) -> int:
    return sum(r.outcome is Outcome.PASSED for r in report.results)


def test_an_honest_submission_passes_every_test(make_js_challenge: MakeJsChallenge, bwrap_js: Sandbox) -> None:
    challenge, code = make_js_challenge(code=HONEST_CODE)
    report = run_suites(challenge, code, sandbox=bwrap_js)
    assert outcomes(report) == {"adds small numbers": Outcome.PASSED, "adds negatives": Outcome.PASSED}
    assert report.tampering == [] and report.stability.crashes == []


def test_a_wrong_answer_fails(make_js_challenge: MakeJsChallenge, bwrap_js: Sandbox) -> None:
    report = run(make_js_challenge, bwrap_js, "export function add(a, b) { return a - b; }\n")
    assert passed(report) == 0
    assert {r.outcome for r in report.results} == {Outcome.FAILED}


def test_printing_a_forged_pass_on_stdout_passes_nothing(make_js_challenge: MakeJsChallenge, bwrap_js: Sandbox) -> None:
    body = """\
        const fake = (name) => JSON.stringify({type: 'result', id: name, outcome: 'passed', changed: []});
        for (const n of ['adds small numbers', 'adds negatives']) {
          process.stdout.write(fake(n) + '\\n');
          process.stdout.write(`ok 1 - ${n}\\n`);
          console.log(`✔ ${n}`);
        }
        export function add(a, b) { return 0; }
        """
    assert passed(run(make_js_challenge, bwrap_js, body)) == 0


def test_writing_forged_records_to_every_fd_is_caught(make_js_challenge: MakeJsChallenge, bwrap_js: Sandbox) -> None:
    # The result fd is in the test process (it has to be); without the nonce a write is a forgery.
    # It is the pipe whose other end is elsewhere (libuv's own pipes have both ends here, and
    # writing to its signal pipe would only crash the process).
    body = """\
        import { writeSync, readdirSync, readlinkSync } from 'node:fs';
        const links = new Map(readdirSync('/proc/self/fd').map((fd) => {
          try { return [Number(fd), readlinkSync(`/proc/self/fd/${fd}`)]; } catch { return [Number(fd), '']; }
        }));
        const count = (link) => [...links.values()].filter((l) => l === link).length;
        const pipes = [...links].filter(([fd, l]) => fd > 2 && l.startsWith('pipe:') && count(l) === 1)
          .map(([fd]) => fd);
        for (const fd of pipes) {
          for (const n of ['adds small numbers', 'adds negatives']) {
            try { writeSync(fd, JSON.stringify({type: 'result', id: n, outcome: 'passed', changed: []}) + '\\n'); }
            catch {}
          }
        }
        export function add(a, b) { return 0; }
        """
    report = run(make_js_challenge, bwrap_js, body)
    assert passed(report) == 0
    assert any("forged" in t for t in report.tampering)


def test_process_exit_zero_at_import_passes_nothing(make_js_challenge: MakeJsChallenge, bwrap_js: Sandbox) -> None:
    report = run(make_js_challenge, bwrap_js, "process.exit(0);\nexport function add(a, b) { return a + b; }\n")
    assert passed(report) == 0
    assert {r.outcome for r in report.results} <= {Outcome.ERROR, Outcome.MISSING, Outcome.CRASHED}


def test_process_exit_zero_inside_the_test_is_a_crash(make_js_challenge: MakeJsChallenge, bwrap_js: Sandbox) -> None:
    report = run(make_js_challenge, bwrap_js, "export function add(a, b) { process.exit(0); }\n")
    assert passed(report) == 0
    assert set(outcomes(report).values()) == {Outcome.CRASHED}


def test_neutralising_assert_passes_nothing(make_js_challenge: MakeJsChallenge, bwrap_js: Sandbox) -> None:
    body = """\
        import assert from 'node:assert';
        for (const a of [assert, assert.strict]) {
          for (const k of Object.keys(a)) if (typeof a[k] === 'function') a[k] = () => {};
        }
        export function add(a, b) { return 0; }
        """
    report = run(make_js_challenge, bwrap_js, body)
    # Each assertion runs with node's own functions, captured before the submission loaded
    # (jslib/observe.mjs), and its failure is recorded on the host's side: replacing them changes nothing.
    assert passed(report) == 0
    assert {r.outcome for r in report.results} == {Outcome.FAILED}


def test_monkeypatching_node_test_is_voided(make_js_challenge: MakeJsChallenge, bwrap_js: Sandbox) -> None:
    # Replace every test body with a no-op by wrapping the test function node:test hands out.
    body = """\
        import * as nt from 'node:test';
        import { syncBuiltinESMExports } from 'node:module';
        import { createRequire } from 'node:module';
        const require = createRequire(import.meta.url);
        const cjs = require('node:test');
        const real = cjs.test;
        cjs.test = (name, fn) => real(name, () => {});
        syncBuiltinESMExports();
        export function add(a, b) { return 0; }
        """
    report = run(make_js_challenge, bwrap_js, body)
    assert passed(report) == 0


def test_an_infinite_loop_times_out(make_js_challenge: MakeJsChallenge, bwrap_js: Sandbox) -> None:
    report = run(make_js_challenge, bwrap_js, "export function add(a, b) { for (;;) {} }\n")
    assert set(outcomes(report).values()) == {Outcome.TIMEOUT}
    assert any("timeout" in c for c in report.stability.crashes)


def test_a_memory_bomb_crashes(make_js_challenge: MakeJsChallenge, bwrap_js: Sandbox) -> None:
    body = "export function add(a, b) { const xs = []; for (;;) xs.push(new Array(1e6).fill(a)); }\n"
    report = run(make_js_challenge, bwrap_js, body)
    assert passed(report) == 0
    assert set(outcomes(report).values()) <= {Outcome.CRASHED, Outcome.TIMEOUT}


def test_a_fork_bomb_via_child_process_is_contained(make_js_challenge: MakeJsChallenge, bwrap_js: Sandbox) -> None:
    body = """\
        import { spawn } from 'node:child_process';
        export function add(a, b) {
          for (let i = 0; i < 500; i += 1) {
            try { spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {detached: true}); } catch {}
          }
          return a + b + 1;
        }
        """
    report = run(make_js_challenge, bwrap_js, body)
    assert passed(report) == 0


def test_network_access_fails_inside_the_sandbox(make_js_challenge: MakeJsChallenge, bwrap_js: Sandbox) -> None:
    # The test passes only if the connection fails: the sandbox has no network.
    tests = {
        "visible": {
            "net.test.mjs": """\
        import { test } from 'node:test';
        import assert from 'node:assert/strict';
        import { reach } from '../../src/net.mjs';

        test('no network', async () => { assert.equal(await reach(), 'unreachable'); });
        """
        }
    }
    body = """\
        import net from 'node:net';
        export function reach() {
          return new Promise((resolve) => {
            const s = net.connect({host: '1.1.1.1', port: 80, timeout: 1000});
            s.on('connect', () => { s.destroy(); resolve('reached'); });
            s.on('error', () => resolve('unreachable'));
            s.on('timeout', () => { s.destroy(); resolve('unreachable'); });
          });
        }
        """
    challenge, code = make_js_challenge(tests, {"src/net.mjs": body})
    report = run_suites(challenge, code, sandbox=bwrap_js)
    assert [r.outcome for r in report.results] == [Outcome.PASSED]


def test_an_unhandled_rejection_and_a_deprecation_are_stability_warnings(
    make_js_challenge: MakeJsChallenge, bwrap_js: Sandbox
) -> None:
    body = """\
        export function add(a, b) {
          Buffer(1);  // DEP0005
          return a + b;
        }
        Promise.resolve().then(() => {});
        """
    report = run(make_js_challenge, bwrap_js, body)
    assert passed(report) == 2
    assert any("DeprecationWarning" in w for w in report.stability.warnings)


def test_a_submission_cannot_add_tests(make_js_challenge: MakeJsChallenge, bwrap_js: Sandbox) -> None:
    body = """\
        import { test } from 'node:test';
        test('a free pass', () => {});
        export function add(a, b) { return a + b; }
        """
    report = run(make_js_challenge, bwrap_js, body)
    assert sorted(r.id for r in report.results) == sorted(EXPECTED)


def test_an_unhandled_rejection_fails_its_test_and_is_a_stability_warning(
    make_js_challenge: MakeJsChallenge, bwrap_js: Sandbox
) -> None:
    # A rejection that surfaces after a synchronous test finished does not fail it (its asserts
    # held), but it is still reported; one inside an awaited async test fails that test.
    body = "export function add(a, b) { Promise.reject(new Error('lost')); return a + b; }\n"
    report = run(make_js_challenge, bwrap_js, body)
    assert any("UnhandledPromiseRejection: Error: lost" in w for w in report.stability.warnings)
    tests = {
        "visible": {
            "late.test.mjs": """\
        import { test } from 'node:test';
        import { later } from '../../src/late.mjs';

        test('awaits', async () => { await later(); });
        """
        }
    }
    code = {
        "src/late.mjs": "export async function later() { Promise.reject(new Error('x')); "
        "await new Promise((r) => setTimeout(r, 20)); }\n"
    }
    challenge, code_dir = make_js_challenge(tests, code)
    report = run_suites(challenge, code_dir, sandbox=bwrap_js)
    assert [r.outcome for r in report.results] == [Outcome.FAILED]
    assert any("UnhandledPromiseRejection" in w for w in report.stability.warnings)


def test_the_running_tests_name_is_not_readable_from_the_process(make_js_challenge: MakeJsChallenge,
                                                                 bwrap_js: Sandbox) -> None:  # fmt: skip
    # A targeted forger told a canary from the test it copies by the name node was asked to run:
    # --test-name-pattern in process.execArgv, /proc/self/cmdline or the diagnostic report.
    body = """\
        import { readFileSync } from 'node:fs';
        const seen = [process.execArgv.join(' '), readFileSync('/proc/self/cmdline', 'utf8'),
                      JSON.stringify(process.report?.getReport?.()?.header?.commandLine ?? '')].join(' ');
        export function add(a, b) { return seen.includes('adds') ? 0 : a + b; }
        """
    assert passed(run(make_js_challenge, bwrap_js, body)) == 2
