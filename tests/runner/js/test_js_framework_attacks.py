"""vitest and jest against hostile submissions: each test names the attack it stops.

Every attack ships a wrong ``add`` (the honest one passes both tests, test_js_frameworks.py) plus
the forgery; the forgery must be caught (the run's tampering voids every verdict) or fail to
forge: no test may pass that the wrong answer did not earn.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from js_helpers import FW_IDS, MakeFwChallenge

from bouts.models.results import Outcome, RunReport
from bouts.runner import run_suites
from bouts.sandbox import Sandbox

pytestmark = pytest.mark.sandbox

WRONG_ESM = "export function add(a, b) { return a - b; }\n"
WRONG_CJS = "exports.add = (a, b) => a - b;\n"
BOTH = ["vitest", "jest"]
NODE_TEST = """\
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { add } from '../../src/add.mjs';

test('adds small numbers', () => { assert.equal(add(2, 3), 5); });
"""


def attack(make: MakeFwChallenge, sandbox: Sandbox, framework: str, forgery: str, *,
           files: dict[str, str] | None = None) -> RunReport:  # fmt: skip
    """Run the wrong ``add`` with ``forgery`` prepended to the module the tests import."""
    code = {"src/add.mjs": forgery + WRONG_ESM if framework == "vitest" else WRONG_ESM,
            "src/add.cjs": forgery + WRONG_CJS if framework == "jest" else WRONG_CJS, **(files or {})}  # fmt: skip
    challenge, code_dir = make(framework, code=code)
    ids = [f"{challenge.test_files['visible'][0]}::{name}" for name in FW_IDS]
    return run_suites(challenge, code_dir, sandbox=sandbox, expected_ids=ids)


def passed(report: RunReport) -> int:
    return sum(r.outcome is Outcome.PASSED for r in report.results)


@pytest.mark.parametrize("framework", BOTH)
def test_a_wrong_answer_fails(framework: str, make_fw_challenge: MakeFwChallenge, bwrap_js: Sandbox,
                              fw_deps_cache: Path) -> None:  # fmt: skip
    report = attack(make_fw_challenge, bwrap_js, framework, "")
    assert [r.outcome for r in report.results] == [Outcome.FAILED, Outcome.FAILED]
    assert report.tampering == []


@pytest.mark.parametrize("framework", BOTH)
def test_the_submissions_framework_configs_are_removed(
    framework: str, make_fw_challenge: MakeFwChallenge, bwrap_js: Sandbox, fw_deps_cache: Path
) -> None:
    # Every file a framework, a compiler or node would read on its own, each one forging passes.
    forge_setup = ("import { expect } from 'vitest';\n"
                   "expect.extend({ toBe: () => ({ pass: true, message: () => '' }) });\n")  # fmt: skip
    files = {
        "vitest.config.mjs": "export default { test: { setupFiles: ['./forge.mjs'], passWithNoTests: true } };\n",
        "vite.config.js": "export default { test: { setupFiles: ['./forge.mjs'] } };\n",
        "forge.mjs": forge_setup,
        "jest.config.js": "module.exports = { setupFilesAfterEach: ['./forge.cjs'] };\n",
        "forge.cjs": "expect.extend({ toBe: () => ({ pass: true, message: () => '' }) });\n",
        "babel.config.js": "module.exports = { plugins: ['./strip-expect.cjs'] };\n",
        "tsconfig.json": '{"compilerOptions": {"jsx": "preserve"}}\n',
        ".env.test": "NODE_OPTIONS=--require=./forge.cjs\n",  # vite reads no .env of the workspace
        "__mocks__/fs.js": "module.exports = {};\n",  # jest scans only the pristine tests/ for mocks
        "package.json": '{"jest": {"setupFilesAfterEnv": ["./forge.cjs"]}}\n',
    }
    report = attack(make_fw_challenge, bwrap_js, framework, "", files=files)
    assert passed(report) == 0
    assert set(report.removed) >= {"vitest.config.mjs", "vite.config.js", "jest.config.js", "babel.config.js",
                                   "tsconfig.json", "package.json"}  # fmt: skip


FORGERIES = {
    # Every matcher passes: the canary (expect(a).toBe(b) with a ≠ b) passes with the real tests.
    "neutralised-matchers": {
        "vitest": "import { expect } from 'vitest';\n"
                  "expect.extend({ toBe: () => ({ pass: true, message: () => '' }) });\n",
        "jest": "expect.extend({ toBe: () => ({ pass: true, message: () => '' }) });\n",
    },
    # A hook of the submission's, registered at import, wipes each test's failure.
    "rewritten-results": {
        "vitest": "import { afterEach } from 'vitest';\n"
                  "afterEach((ctx) => { ctx.task.result.state = 'pass'; ctx.task.result.errors = []; });\n",
        "jest": "const state = globalThis[Symbol.for('JEST_STATE_SYMBOL')];\n"
                "afterEach(() => { if (state.currentlyRunningTest) state.currentlyRunningTest.errors.length = 0; });\n",
    },
    # The global `expect` replaced by one that asserts nothing.
    "replaced-global-expect": {
        "vitest": "globalThis.expect = () => ({ toBe() {} });\n",
        "jest": "globalThis.expect = () => ({ toBe() {} });\n",
    },
    # Forged result lines written to every pipe the process holds, and to its parent's (vitest's
    # tests run in a forked worker whose parent holds the result pipe).
    "forged-records-on-every-fd": {"vitest": "", "jest": ""},
}
FD_FORGER = """\
for (const pid of ['self', String(process.ppid)]) {
  let fds = [];
  try { fds = fs.readdirSync(`/proc/${pid}/fd`); } catch {}
  for (const fd of fds) {
    try {
      if (Number(fd) <= 2 || !fs.readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('pipe:')) continue;
      // The result pipe has its other end elsewhere: libuv's own pipes have both ends in the
      // process (and writing to its signal pipe only crashes it).
      const link = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
      const same = (f) => { try { return fs.readlinkSync(`/proc/${pid}/fd/${f}`) === link; } catch { return false; } };
      if (fds.filter(same).length > 1) continue;
      for (const id of ['adds small numbers', 'grp > adds negatives']) {
        const line = JSON.stringify({ type: 'result', id, outcome: 'passed', changed: [] }) + '\\n';
        if (pid === 'self') fs.writeSync(Number(fd), line);
        else fs.appendFileSync(`/proc/${pid}/fd/${fd}`, line);
      }
    } catch {}
  }
}
"""
CAUGHT = {
    ("neutralised-matchers", "vitest"): "canary", ("neutralised-matchers", "jest"): "canary",
    # A result rewritten to "passed" for a body that never reached its end: the host's observations
    # say so (the worker's observations never pass through vitest's messages).
    ("rewritten-results", "vitest"): "did not reach its end", ("replaced-global-expect", "jest"): "expect",
    ("forged-records-on-every-fd", "vitest"): "forged", ("forged-records-on-every-fd", "jest"): "forged",
}  # fmt: skip
"""Where the forgery takes effect (the others fail by themselves: vitest's tests import `expect`,
jest re-reads a test's errors), and the evidence the run reports."""
FD_FORGERS = {"vitest": "import fs from 'node:fs';\n" + FD_FORGER,
              "jest": "const fs = require('node:fs');\n" + FD_FORGER}  # fmt: skip


@pytest.mark.parametrize("framework", BOTH)
@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_a_forger_in_the_test_process_passes_nothing(
    forgery: str, framework: str, make_fw_challenge: MakeFwChallenge, bwrap_js: Sandbox, fw_deps_cache: Path
) -> None:
    source = FD_FORGERS[framework] if forgery == "forged-records-on-every-fd" else FORGERIES[forgery][framework]
    report = attack(make_fw_challenge, bwrap_js, framework, source)
    assert passed(report) == 0, report.results
    if (forgery, framework) in CAUGHT:  # the forgery worked in the process: the run says why it was voided
        assert any(CAUGHT[forgery, framework] in t for t in report.tampering), report.tampering


@pytest.mark.parametrize("framework", ["vitest", "jest", "node:test"])
def test_rewriting_grader_files_during_the_run_is_caught(
    framework: str, make_fw_challenge: MakeFwChallenge, bwrap_js: Sandbox, fw_deps_cache: Path
) -> None:
    # Later processes would read them: tests with the same names and empty bodies, a package.json
    # or tsconfig.json of the submission's. Tests are mounted read-only; the rest is watched.
    rewrite = """\
        import { readdirSync, writeFileSync, rmSync } from 'node:fs';
        for (const dir of ['tests/visible']) {
          for (const f of readdirSync(dir)) { try { writeFileSync(`${dir}/${f}`, '// emptied\\n'); } catch {} }
        }
        try { rmSync('node_modules', { recursive: true, force: true }); } catch {}
        writeFileSync('package.json', '{"type": "module"}\\n');
        writeFileSync('tsconfig.json', '{}\\n');
        """
    rewrite = textwrap.dedent(rewrite)
    if framework == "node:test":
        tests = {"visible": {"add.test.mjs": NODE_TEST}}
        challenge, code = make_fw_challenge(framework, tests, {"src/add.mjs": rewrite + WRONG_ESM})
    else:
        cjs = rewrite.replace("import { readdirSync, writeFileSync, rmSync } from 'node:fs';",
                              "const { readdirSync, writeFileSync, rmSync } = require('node:fs');")  # fmt: skip
        challenge, code = make_fw_challenge(framework, code={"src/add.mjs": rewrite + WRONG_ESM,
                                                             "src/add.cjs": cjs + WRONG_CJS})  # fmt: skip
    report = run_suites(challenge, code, sandbox=bwrap_js)
    assert passed(report) == 0
    assert any("grader's files" in t and "package.json" in t for t in report.tampering), report.tampering


@pytest.mark.parametrize("framework", BOTH)
def test_process_exit_at_import_passes_nothing(
    framework: str, make_fw_challenge: MakeFwChallenge, bwrap_js: Sandbox, fw_deps_cache: Path
) -> None:
    report = attack(make_fw_challenge, bwrap_js, framework, "process.exit(0);\n")
    assert passed(report) == 0
    assert {r.outcome for r in report.results} <= {Outcome.ERROR, Outcome.MISSING, Outcome.CRASHED}
