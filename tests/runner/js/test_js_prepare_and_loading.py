"""Offline pieces of JavaScript support: dependency environments, severities, workspace, canaries."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from js_helpers import write_tree

from bouts.errors import ChallengeError, InfrastructureError
from bouts.loading import load_challenge, severity_for
from bouts.loading._js_severity import parse_js_severities
from bouts.models.results import Outcome
from bouts.prepare import environment_key, prepare_dependencies
from bouts.runner._channel import Record
from bouts.runner.js import assemble_js_workspace, js_findings, plant_js_canaries
from bouts.runner.js._workspace import canary_source

EXAMPLE = Path(__file__).parents[3] / "examples" / "rate-limiter-js"


def test_the_example_loads_with_js_test_files_and_comment_severities() -> None:
    challenge = load_challenge(EXAMPLE)
    assert challenge.test_files["visible"] == ["tests/visible/limiter.test.mjs"]
    node = 'tests/adversarial/limiter_adversarial.test.mjs::a "__proto__" key is an ordinary key'
    assert severity_for(challenge, node) == "critical"


def test_js_severity_comments_cover_files_tests_and_describe_blocks() -> None:
    src = """// @file-severity low
import { test, describe, it } from 'node:test';
// @severity high
test('top {one}', () => { const s = "}}}"; });
describe('grp', () => {
  // @severity critical
  it('inner', () => {});
  it('other', () => {});
});
"""
    found = parse_js_severities(src, "f.test.mjs", lambda v, line: v)
    assert found == {"f.test.mjs": "low", "f.test.mjs::top {one}": "high", "f.test.mjs::grp > inner": "critical"}


def test_an_unknown_js_severity_is_a_challenge_error(tmp_path: Path) -> None:
    root = tmp_path / "c"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("anchors"))
    bad = root / "tests" / "adversarial" / "limiter_adversarial.test.mjs"
    bad.write_text("// @severity huge\n" + bad.read_text())
    with pytest.raises(ChallengeError, match="unknown severity 'huge'"):
        load_challenge(root)


def test_the_workspace_drops_node_steering_and_restores_package_json(tmp_path: Path) -> None:
    challenge = tmp_path / "ch"
    write_tree(challenge, {"starter/package.json": '{"type": "module"}\n', "tests/visible/a.test.mjs": "x\n"})
    code = tmp_path / "code"
    write_tree(code, {
        "package.json": '{"type": "module", "imports": {"#x": "./evil.mjs"}}\n', "node_modules/assert/index.js": "",
        ".npmrc": "x", "vitest.config.mjs": "", "native.node": "", "src/a.mjs": "export {}\n",
    })  # fmt: skip
    removed = assemble_js_workspace(code, challenge, tmp_path / "ws")
    assert removed == [".npmrc", "native.node", "package.json", "vitest.config.mjs"]
    assert (tmp_path / "ws" / "package.json").read_text() == '{"type": "module"}\n'
    assert not (tmp_path / "ws" / "node_modules").exists()
    assert (tmp_path / "ws" / "tests" / "visible" / "a.test.mjs").is_file()


def test_canaries_are_planted_in_esm_and_commonjs_files(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.test.mjs": "import { test } from 'node:test';\n", "b.test.cjs": "require('x');\n"})
    ids = plant_js_canaries(tmp_path, ["a.test.mjs", "b.test.cjs"], random.Random(1))
    # No test to copy or name it after: two literals asserted equal, named like a real test.
    assert len(ids) == 2 and all("handles the documented case" in i for i in ids)
    assert "from 'node:assert'" in (tmp_path / "a.test.mjs").read_text()
    assert "require('node:assert')" in (tmp_path / "b.test.cjs").read_text()


VISIBLE = Path(__file__).resolve().parents[3] / "examples" / "rate-limiter-js" / "tests" / "visible"
VISIBLE = VISIBLE / "limiter.test.mjs"


def _top_level_tests(text: str) -> dict[str, str]:
    """Each top-level ``test('name', ...)`` statement of a node:test file by name (the files here
    write one test per blank-line-separated block)."""
    blocks = [b for b in text.split("\n\n") if b.startswith("test(")]
    return {b.split("'", 2)[1]: b for b in blocks}


@pytest.mark.parametrize("seed", range(6))
def test_a_canary_is_a_real_test_copied_with_one_expected_number_changed(tmp_path: Path, seed: int) -> None:
    source = VISIBLE.read_text()
    (tmp_path / "limiter.test.mjs").write_text(source)
    ids = plant_js_canaries(tmp_path, ["limiter.test.mjs"], random.Random(seed))
    names = {cid.split("::", 1)[1] for cid in ids}
    before, after = _top_level_tests(source), _top_level_tests((tmp_path / "limiter.test.mjs").read_text())
    # Several per file, none an existing name, and nothing else changed.
    assert 2 <= len(names) <= 3 and set(after) - set(before) == names and all(after[n] == before[n] for n in before)
    words = set(re.findall(r"[A-Za-z][A-Za-z0-9]*|[0-9]+", " ".join(before)))
    for name in names:
        # Named with the file's own words only (no public list of variant words), around the test it copies.
        assert set(re.findall(r"[A-Za-z][A-Za-z0-9]*|[0-9]+", name)) <= words, name
        base = max((n for n in before if name.startswith(n + " ") or name.endswith(" " + n)), key=len)
        copy, real = after[name].splitlines(), before[base].splitlines()
        assert copy[0] == real[0].replace(base, name) and len(copy) == len(real)
        changed = [(c, r) for c, r in zip(copy[1:], real[1:], strict=True) if c != r]
        assert len(changed) == 1, changed  # one assertion, same call on the same column, one literal changed
        line, original = changed[0]
        assert line.split(",")[0] == original.split(",")[0] and "assert." in line
        numbers = [int(t) for t in re.findall(r"-?\d+", line)]
        assert max(numbers) >= 10**6 and "true" not in line.split("], [")[-1].split(", ")[-1]


def test_canary_names_and_positions_vary_from_run_to_run(tmp_path: Path) -> None:
    source = VISIBLE.read_text()
    seen: set[tuple[str, ...]] = set()
    for seed in range(8):
        (tmp_path / "limiter.test.mjs").write_text(source)
        ids = plant_js_canaries(tmp_path, ["limiter.test.mjs"], random.Random(seed))
        order = tuple(_top_level_tests((tmp_path / "limiter.test.mjs").read_text()))
        assert all(i.split("::", 1)[1] in order for i in ids)
        seen.add(order)
    assert len(seen) >= 6  # where the canaries stand, and what they are called, is the run's own draw


def test_a_canary_never_flips_a_boolean_nor_copies_an_assertion_honest_code_might_not_reach() -> None:
    source = (
        "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n"
        "import { f } from '../src/f.mjs';\n\n"
        "test('flag', () => { assert.equal(f().ok, true); });\n"
        "test('loop', () => { for (const x of f().items) assert.equal(x, 3); });\n"
        "test('late', () => { const r = f(); assert.ok(r); assert.equal(r.n, 0); });\n"
        "test('early', () => { if (f().skip) { return; } assert.equal(f().n, 1); });\n"
        "test('callback', (t, done) => { done(); assert.equal(f().n, 2); });\n"
        "test('float', () => { assert.equal(f().x, 0.5); });\n"
    )
    text, name = canary_source(Path("f.test.mjs"), source, random.Random(4))
    # Only 'late' qualifies: a boolean, a loop, a possible return, a done callback, a fraction do not.
    assert "late" in name.split() and text.count(f"test('{name}'") == 1
    copy = text.split(f"test('{name}'", 1)[1].split("\n", 1)[0]
    assert re.search(r"assert\.equal\(r\.n, (\d+)\)", copy).group(1) != "0"
    fallback, other = canary_source(Path("f.test.mjs"), source.replace("test('late'", "test.skip('late'"),
                                    random.Random(4))  # fmt: skip
    assert "__bouts_a" in fallback and set(other.split()) <= {"flag", "loop", "early", "callback", "float", "late"}


def test_a_canary_copies_vitest_and_jest_matchers_with_a_changed_string() -> None:
    source = (
        "import { test, expect } from 'vitest';\nimport { g } from './g';\n\n"
        "test('greets', () => {\n  expect(g('a')).toBe('hi a');\n});\n"
    )
    text, name = canary_source(Path("g.test.ts"), source, random.Random(2), "vitest")
    assert "greets" in name.split() and "__bouts" not in text
    copied = rf"test\('{re.escape(name)}', \(\) => {{\n  expect\(g\('a'\)\)\.toBe\('hi a-[0-9a-f]{{8}}'\);"
    assert re.search(copied, text)


def test_js_findings_void_canaries_changed_machinery_and_forged_records() -> None:
    canary = "f::t_1"
    records = [
        Record("result", id=canary, outcome=Outcome.PASSED),
        Record("result", id="f::real", outcome=Outcome.PASSED, changed=("assert.strict.equal",)),
        Record("violation", detail="forged: 2 record(s) without the process's nonce"),
        Record("invalid", detail="nonce"),
        Record("result", id="f::fine", outcome=Outcome.PASSED),
    ]
    found = js_findings(records, [canary])
    assert len(found) == 4 and "canary" in found[0] and "assert.strict.equal" in found[1]


def test_no_package_json_means_no_environment(tmp_path: Path) -> None:
    assert prepare_dependencies(tmp_path, "node", cache_root=tmp_path / "cache") is None


def test_dependencies_without_a_lock_file_are_refused(tmp_path: Path) -> None:
    write_tree(tmp_path, {"package.json": json.dumps({"dependencies": {"x": "1.0.0"}})})
    with pytest.raises(InfrastructureError, match="no package-lock.json"):
        prepare_dependencies(tmp_path, "node", cache_root=tmp_path / "cache")


def test_the_environment_key_follows_the_manifests_bytes(tmp_path: Path) -> None:
    write_tree(tmp_path, {"package.json": "{}", "package-lock.json": "{}"})
    files = [tmp_path / "package.json", tmp_path / "package-lock.json"]
    before = environment_key(files, "node")
    (tmp_path / "package-lock.json").write_text('{"lockfileVersion": 3}')
    assert environment_key(files, "node") != before


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_npm_ci_installs_a_local_tarball_once_offline(tmp_path: Path) -> None:
    # A dependency from a local tarball: npm ci needs no network for it.
    pkg = tmp_path / "dep"
    write_tree(pkg, {"package.json": json.dumps({"name": "tiny-dep", "version": "1.0.0", "main": "index.js"}),
                     "index.js": "module.exports = 42;\n"})  # fmt: skip
    subprocess.run(["npm", "pack", "--silent"], cwd=pkg, check=True, capture_output=True)
    tarball = next(pkg.glob("tiny-dep-1.0.0.tgz"))
    challenge = tmp_path / "ch"
    write_tree(challenge, {"package.json": json.dumps({"name": "c", "dependencies": {"tiny-dep": f"file:{tarball}"}})})
    subprocess.run(["npm", "install", "--package-lock-only", "--offline", "--ignore-scripts"], cwd=challenge,
                   check=True, capture_output=True)  # fmt: skip
    env = prepare_dependencies(challenge, "node", cache_root=tmp_path / "cache")
    assert env is not None and (env.path / "tiny-dep" / "index.js").is_file()
    again = prepare_dependencies(challenge, "node", cache_root=tmp_path / "cache")
    assert again == env  # cached: same key, same path, no second install


@pytest.mark.sandbox
@pytest.mark.skipif(shutil.which("npm") is None or shutil.which("bwrap") is None, reason="needs npm and bwrap")
def test_tests_import_the_prepared_dependency_read_only_in_the_sandbox(tmp_path: Path, make_js_challenge) -> None:
    from bouts.runner.js import run_js
    from bouts.sandbox import get_sandbox

    pkg = tmp_path / "dep"
    write_tree(pkg, {"package.json": json.dumps({"name": "tiny-dep", "version": "1.0.0", "main": "index.js"}),
                     "index.js": "module.exports = 42;\n"})  # fmt: skip
    subprocess.run(["npm", "pack", "--silent"], cwd=pkg, check=True, capture_output=True)
    tests = {
        "visible": {
            "dep.test.mjs": """\
        import { test } from 'node:test';
        import assert from 'node:assert/strict';
        import { writeFileSync } from 'node:fs';
        import dep from 'tiny-dep';

        test('imports the dependency', () => { assert.equal(dep, 42); });
        test('cannot write into it', () => {
          assert.throws(() => writeFileSync('node_modules/tiny-dep/index.js', 'module.exports = 0;'));
        });
        """
        }
    }
    challenge, code = make_js_challenge(tests, {"src/x.mjs": "export {};\n"})
    manifest = {"name": "c", "type": "module", "dependencies": {"tiny-dep": f"file:{next(pkg.glob('*.tgz'))}"}}
    write_tree(challenge.root, {"package.json": json.dumps(manifest)})
    subprocess.run(["npm", "install", "--package-lock-only", "--offline", "--ignore-scripts"], cwd=challenge.root,
                   check=True, capture_output=True)  # fmt: skip
    run = run_js(challenge, code, sandbox=get_sandbox("bubblewrap"), deps_cache=tmp_path / "cache")
    assert [r.outcome for r in run.report.results] == [Outcome.PASSED, Outcome.PASSED]
