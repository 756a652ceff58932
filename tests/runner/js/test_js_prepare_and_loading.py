"""Offline pieces of JavaScript support: dependency environments, severities, workspace, canaries."""

from __future__ import annotations

import json
import random
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
    assert len(ids) == 2 and all("::t_" in i for i in ids)
    assert "from 'node:assert'" in (tmp_path / "a.test.mjs").read_text()
    assert "require('node:assert')" in (tmp_path / "b.test.cjs").read_text()


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
