"""Offline pieces of vitest/jest/TypeScript support: the framework field, the workspace, canaries,
the supervisor's watchdog, exclusion patterns, the workspace guard and bouts_expect's canonical form."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from js_helpers import write_tree

from bouts.errors import ChallengeError
from bouts.languages import framework_of
from bouts.loading import load_challenge
from bouts.runner.js import assemble_js_workspace, plant_js_canaries
from bouts.runner.js._run import JS_LIB

sys.path.insert(0, str(JS_LIB))
sys.path.insert(0, str(JS_LIB.parents[1] / "sandboxed"))
from _bouts_jsdriver.child import Watchdog  # noqa: E402
from _bouts_jsdriver.files import exclusion_pattern  # noqa: E402
from _bouts_jsdriver.guard import Guard  # noqa: E402

TOML = """\
id = "fw"
title = "Framework challenge"
language = "{language}"

[limits]
memory_mb = {memory}

[tests]
{framework}
"""


def challenge_dir(tmp_path: Path, *, language: str = "javascript", framework: str = "", memory: int = 1024,
                  test: str = "a.test.mjs", deps: dict[str, str] | None = None,
                  extra: dict[str, str] | None = None) -> Path:  # fmt: skip
    root = tmp_path / "c"
    write_tree(root, {
        "challenge.toml": TOML.format(language=language, framework=framework, memory=memory),
        "starter/src/a.mjs": "export {};\n", "reference/src/a.mjs": "export {};\n",
        f"tests/visible/{test}": "// a test\n", "tests/hidden/.keep": "",
        "package.json": json.dumps({"name": "c", "devDependencies": deps or {}}), **(extra or {}),
    })  # fmt: skip
    return root


def test_the_framework_defaults_by_language_and_is_read_from_tests(tmp_path: Path) -> None:
    assert framework_of(load_challenge(challenge_dir(tmp_path)).spec) == "node:test"
    root = challenge_dir(tmp_path, framework='framework = "vitest"', deps={"vitest": "4.1.12"})
    assert framework_of(load_challenge(root).spec) == "vitest"


@pytest.mark.parametrize(
    ("kwargs", "message", "field"),
    [
        ({"framework": 'framework = "mocha"'}, "'mocha' does not run javascript tests; use node:test, vitest, jest",
         "tests.framework"),
        ({"framework": 'framework = "Mocha!"'}, "String should match pattern", "tests.framework"),
        ({"language": "cobol"}, "unknown language 'cobol'; known: javascript, python, typescript", "language"),
        ({"framework": 'framework = "pytest"'}, "'pytest' does not run javascript tests", "tests.framework"),
        ({"language": "python", "framework": 'framework = "jest"', "test": "test_a.py"}, "use pytest",
         "tests.framework"),
        ({"framework": 'framework = "vitest"'}, "'vitest' must be in the challenge's package.json", "tests.framework"),
        ({"test": "a.test.ts", "memory": 2048}, "'tsx' must be in", "tests.framework"),
        ({"test": "a.test.ts", "deps": {"tsx": "4"}}, "at least 2048 MB", "limits.memory_mb"),
        ({"test": "a.test.ts", "framework": 'framework = "jest"', "deps": {"jest": "30"}}, "babel.config",
         "tests.framework"),
    ],
    ids=["unknown", "malformed", "unknown-language", "pytest-for-js", "jest-for-python", "vitest-not-a-dependency",
         "ts-without-tsx", "ts-with-too-little-memory", "jest-ts-without-babel"],
)  # fmt: skip
def test_a_framework_that_cannot_run_the_tests_is_a_challenge_error(
    tmp_path: Path, kwargs: dict, message: str, field: str
) -> None:
    root = challenge_dir(tmp_path, **kwargs)
    with pytest.raises(ChallengeError, match=message) as err:
        load_challenge(root)
    assert err.value.file == str(root / "challenge.toml") and err.value.field == field


def test_typescript_test_files_are_collected(tmp_path: Path) -> None:
    root = challenge_dir(tmp_path, test="a.test.ts", framework='framework = "vitest"', deps={"vitest": "4"})
    write_tree(root, {"tests/visible/b.test.mts": "", "tests/visible/helper.ts": ""})
    assert load_challenge(root).test_files["visible"] == ["tests/visible/a.test.ts", "tests/visible/b.test.mts"]


def test_the_workspace_takes_build_configs_from_the_challenge(tmp_path: Path) -> None:
    challenge = tmp_path / "ch"
    write_tree(challenge, {
        "package.json": '{"type": "module"}\n', "starter/tsconfig.json": '{"strict": true}\n',
        "babel.config.json": '{"presets": []}\n', "tests/visible/a.test.ts": "x\n",
    })  # fmt: skip
    code = tmp_path / "code"
    write_tree(code, {
        "package.json": '{"type": "module"}\n', "tsconfig.json": '{"strict": false}\n', ".babelrc": "{}",
        "vitest.config.ts": "", "jest.config.cjs": "", "__mocks__/fs.js": "", "src/__mocks__/x.js": "",
        ".env.local": "A=1", "src/a.ts": "export {};\n",
    })  # fmt: skip
    removed = assemble_js_workspace(code, challenge, tmp_path / "ws")
    # An identical package.json was not taken away; every config was (mocks and .env files steer nothing).
    assert removed == [".babelrc", "jest.config.cjs", "tsconfig.json", "vitest.config.ts"]
    ws = tmp_path / "ws"
    assert (ws / "tsconfig.json").read_text() == '{"strict": true}\n'
    assert (ws / "babel.config.json").read_text() == '{"presets": []}\n'
    assert not (ws / ".babelrc").exists() and (ws / "src" / "a.ts").is_file()


def test_canaries_use_each_frameworks_own_assertions(tmp_path: Path) -> None:
    write_tree(tmp_path, {"v.test.ts": "import { test } from 'vitest';\n", "j.test.cjs": "test('x', () => {});\n"})
    [vid] = plant_js_canaries(tmp_path, ["v.test.ts"], random.Random(1), "vitest")
    [jid] = plant_js_canaries(tmp_path, ["j.test.cjs"], random.Random(2), "jest")
    assert "from 'vitest'" in (tmp_path / "v.test.ts").read_text() and vid.startswith("v.test.ts::handles the ")
    assert "expect(" in (tmp_path / "j.test.cjs").read_text() and jid.startswith("j.test.cjs::x ")


def test_the_exclusion_pattern_skips_exactly_the_reported_tests() -> None:
    assert exclusion_pattern([]) is None
    pattern = exclusion_pattern(["adds (small) numbers", "grp > adds negatives"])
    assert pattern == r"^(?!(?:adds \(small\) numbers|grp adds negatives)$)"


def test_the_watchdog_gives_each_test_its_own_deadline() -> None:
    dog = Watchdog(test_s=5, quiet_s=7, startup_s=20)
    assert dog.deadline(100.0) == 120.0  # nothing heard yet: the startup allowance
    dog.started("a", 101.0)
    assert dog.deadline(100.0) == 106.0  # a test runs: its own timeout
    dog.ended("a", 102.0)
    assert dog.deadline(100.0) == 109.0  # between tests: quiet allowance
    dog.started("b", 103.0)
    dog.ended("a", 104.0)  # a late result of another test does not end b's clock
    assert dog.running == "b" and dog.deadline(100.0) == 108.0


def test_the_guard_reports_grader_owned_changes_only(tmp_path: Path) -> None:
    write_tree(tmp_path, {"tests/visible/a.test.mjs": "x", "package.json": "{}", "src/a.mjs": ""})
    guard = Guard(str(tmp_path))
    (tmp_path / "src" / "a.mjs").write_text("mine")
    (tmp_path / "data.json").write_text("mine too")
    time.sleep(0.1)
    assert guard.take() == []
    (tmp_path / "tests" / "visible" / "a.test.mjs").write_text("// emptied")
    (tmp_path / "tsconfig.json").write_text("{}")
    time.sleep(0.1)
    assert set(guard.close()) == {"tests/visible/a.test.mjs", "tsconfig.json"}


CANONICAL = """
import { _canonical as c, expectations } from '%s';
import vm from 'node:vm';
const context = vm.createContext();
const realm = vm.runInContext('globalThis', context);
const out = {
  proxy: (() => { try { c(new Proxy({}, {})); return 'accepted'; } catch (e) { return e.name; } })(),
  klass: (() => { try { c(new (class P {})()); return 'accepted'; } catch (e) { return e.name; } })(),
  getter: (() => { try { c({ get x() { return 1; } }); return 'accepted'; } catch (e) { return e.name; } })(),
  nan: [c(NaN), c('NaN')], zero: [c(0), c(-0)], none: [c(null), c(undefined)],
  map: c(new Map([[2, 'b'], [1, 'a']])) === c(new Map([[1, 'a'], [2, 'b']])),
  keys: c({ b: 1, a: [1, 2n] }),
  crossRealm: c(vm.runInContext('({a: [1]})', context), [globalThis, realm]),
};
const rec = expectations();
rec.bouts_expect(5);
try { rec.bouts_expect(4, 5); } catch (e) { out.mismatch = e.name; }
out.digests = rec.take().length;
console.log(JSON.stringify(out));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_bouts_expect_compares_plain_data_only(tmp_path: Path) -> None:
    script = tmp_path / "c.mjs"
    script.write_text(CANONICAL % (JS_LIB / "jslib" / "canonical.mjs").as_uri())
    out = json.loads(subprocess.run(["node", str(script)], capture_output=True, text=True, check=True).stdout)
    assert out["proxy"] == out["klass"] == out["getter"] == "TypeError"
    assert out["nan"] == ["NaN", '"NaN"'] and out["zero"] == ["0", "-0"] and out["none"] == ["null", "undefined"]
    assert out["map"] is True and out["keys"] == '{"a":[1,2n],"b":1}'
    assert out["crossRealm"] == '{"a":[1]}'  # jest's tests build their values in a vm context
    assert out["mismatch"] == "AssertionError" and out["digests"] == 2
