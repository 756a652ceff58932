"""Fixtures for the JavaScript runner tests: tiny node:test challenges built in tmp_path."""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from bouts.models.challenge import Challenge, ChallengeSpec, Limits, Suite
from bouts.sandbox import Sandbox, get_sandbox

JS_LIMITS = Limits(test_timeout_s=3, suite_timeout_s=60, memory_mb=1024, max_processes=64, max_file_mb=8,
                   max_output_kb=16)  # fmt: skip
"""node needs more than 512 MB of address space to start; otherwise small, so hostile tests stay fast."""

MakeJsChallenge = Callable[..., tuple[Challenge, Path]]

HONEST_CODE = {"src/add.mjs": "export function add(a, b) { return a + b; }\n"}
VISIBLE = {
    "add.test.mjs": """\
        import { test } from 'node:test';
        import assert from 'node:assert/strict';
        import { add } from '../../src/add.mjs';

        test('adds small numbers', () => { assert.equal(add(2, 3), 5); });
        test('adds negatives', () => { assert.equal(add(-2, -3), -5); });
        """,
}


def write_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _challenge(
    root: Path, spec: ChallengeSpec, tests: dict[Suite, dict[str, str]], code_dir: Path, code: dict[str, str]
) -> tuple[Challenge, Path]:
    """Write ``tests`` under ``root/tests`` and ``code`` into ``code_dir``; the challenge over them."""
    test_files: dict[Suite, list[str]] = {}
    for suite, files in tests.items():
        write_tree(root / "tests" / suite, files)
        test_files[suite] = [f"tests/{suite}/{name}" for name in files]
    code_dir.mkdir(parents=True, exist_ok=True)
    write_tree(code_dir, code)
    challenge = Challenge(
        root=root, spec=spec, content_hash="dummy", suite_hashes={s: "dummy" for s in tests}, test_files=test_files,
    )  # fmt: skip
    return challenge, code_dir


@pytest.fixture
def make_js_challenge(tmp_path: Path) -> MakeJsChallenge:
    """Build ``(challenge, code_dir)`` for a ``javascript`` challenge (no reference: ids from the run)."""

    def make(
        tests: dict[Suite, dict[str, str]] | None = None,
        code: dict[str, str] | None = None,
        *,
        limits: Limits = JS_LIMITS,
    ) -> tuple[Challenge, Path]:
        spec = ChallengeSpec(id="tiny-js", title="Tiny JS", language="javascript", limits=limits)
        return _challenge(tmp_path / "challenge", spec, tests or {"visible": VISIBLE},
                          tmp_path / "submission" / "code", HONEST_CODE if code is None else code)  # fmt: skip

    return make


@pytest.fixture(scope="session")
def bwrap_js() -> Sandbox:
    if shutil.which("bwrap") is None or shutil.which("node") is None:
        pytest.skip("bubblewrap or node is not installed")
    return get_sandbox("bubblewrap")


FRAMEWORKS = Path(__file__).with_name("fixtures") / "frameworks"
"""package.json + package-lock.json with vitest, jest, tsx and Babel's TypeScript preset: one
environment for every framework test, prepared once (npm ci) and cached by its hash."""

FW_CODE = {"src/add.mjs": "export function add(a, b) { return a + b; }\n",
           "src/add.cjs": "exports.add = (a, b) => a + b;\n"}  # fmt: skip
FW_TESTS = {
    "vitest": {
        "add.test.mjs": """\
            import { test, expect, describe } from 'vitest';
            import { add } from '../../src/add.mjs';

            test('adds small numbers', () => { expect(add(2, 3)).toBe(5); });
            describe('grp', () => { test('adds negatives', () => { expect(add(-2, -3)).toBe(-5); }); });
            """,
    },
    "jest": {
        "add.test.cjs": """\
            const { add } = require('../../src/add.cjs');

            test('adds small numbers', () => { expect(add(2, 3)).toBe(5); });
            describe('grp', () => { test('adds negatives', () => { expect(add(-2, -3)).toBe(-5); }); });
            """,
    },
}
FW_IDS = ["adds small numbers", "grp > adds negatives"]


@pytest.fixture(scope="session")
def fw_deps_cache() -> Path:
    """The engine's dependency cache with the frameworks' environment in it (installed at most once)."""
    from bouts.prepare import DEFAULT_CACHE, prepare_dependencies

    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip("npm or node is not installed")
    prepare_dependencies(FRAMEWORKS, "node", cache_root=DEFAULT_CACHE)
    return DEFAULT_CACHE


MakeFwChallenge = Callable[..., tuple[Challenge, Path]]


@pytest.fixture
def make_fw_challenge(tmp_path: Path) -> MakeFwChallenge:
    """Build ``(challenge, code_dir)`` for a vitest/jest/node:test challenge with the frameworks' deps."""

    def make(
        framework: str,
        tests: dict[Suite, dict[str, str]] | None = None,
        code: dict[str, str] | None = None,
        *,
        extra: dict[str, str] | None = None,
        reference: dict[str, str] | None = None,
        language: str = "javascript",
        limits: Limits = JS_LIMITS,
    ) -> tuple[Challenge, Path]:
        from bouts.models.challenge import TestsConfig

        tests = tests or {"visible": FW_TESTS[framework]}
        root = tmp_path / "challenge"
        root.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(FRAMEWORKS / name, root / name)
        write_tree(root, extra or {})
        if reference is not None:
            write_tree(root / "reference", reference)
        spec = ChallengeSpec(id="tiny-fw", title="Tiny framework challenge", language=language, limits=limits,
                             tests=TestsConfig(framework=framework))  # type: ignore[arg-type]  # fmt: skip
        return _challenge(root, spec, tests, tmp_path / "submission" / "code", FW_CODE if code is None else code)

    return make
