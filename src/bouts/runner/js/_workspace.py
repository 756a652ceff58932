"""The JavaScript grading workspace: the Python runner's assembly, minus what steers node.

Principle (as for Python, docs/sandbox.md): the grader never trusts bytes the graded code can
shape. Node reads ``node_modules/`` (module resolution), ``package.json`` (module type, import
maps, self-references) and ``.npmrc`` on its own; vitest, jest, vite, babel, tsx and esbuild read
their configs and ``tsconfig.json``. A submission's copies
are removed (and reported; ``node_modules/`` silently), and the challenge's own ``package.json``,
``tsconfig.json``/``jsconfig.json`` and Babel config — the grader's, like its tests — are put back.
"""

from __future__ import annotations

import os
import random
import re
import shutil
from collections.abc import Iterable
from pathlib import Path

from bouts.runner._workspace import assemble_workspace

JS_STEERING_DIRS = frozenset({"node_modules", ".yarn", ".pnpm-store"})
JS_STEERING_FILES = frozenset(
    {".npmrc", ".yarnrc", ".yarnrc.yml", ".pnp.cjs", ".pnp.loader.mjs", ".env", ".swcrc"}
)  # fmt: skip
_CONFIG = re.compile(
    r"^(vitest|vite|jest|babel|mocha|postcss|tailwind)\.(config|workspace|projects|setup)\.[cm]?[jt]s(on)?$"
    r"|^\.(mocharc|babelrc|postcssrc)|^[tj]sconfig(\..*)?\.json$"
)
"""Framework, compiler and bundler configs, wherever they are. Not jest's ``__mocks__/``: jest only
scans the pristine ``tests/`` (``roots``), so a submission's mocks are never picked up by themselves."""
GRADER_CONFIGS = (
    "package.json", "tsconfig.json", "jsconfig.json", "babel.config.js", "babel.config.cjs", "babel.config.mjs",
    "babel.config.json", ".babelrc", ".babelrc.json",
)  # fmt: skip
"""Root files taken from the challenge (its root, else ``starter/``): the submission's never count."""
JS_TEST_SUFFIXES = (".mjs", ".cjs", ".js", ".ts", ".mts", ".cts")


def assemble_js_workspace(code_dir: Path, challenge_root: Path, dest: Path) -> list[str]:
    """Assemble ``dest`` from ``code_dir`` and the challenge's pristine tests; return what was removed.

    Also removes node's steering files, framework and compiler configs and native addons
    (``*.node``: machine code loaded by ``require``), and puts the challenge's own
    :data:`GRADER_CONFIGS` at the root (from the challenge root or ``starter/``): dependencies and
    build settings are the challenge's, prepared once, never the submission's.
    """
    removed = assemble_workspace(code_dir, challenge_root / "tests", dest)
    submitted = {name: (dest / name).read_bytes() for name in GRADER_CONFIGS if (dest / name).is_file()}
    for dirpath, dirnames, filenames in os.walk(dest):
        here = Path(dirpath)
        for name in list(dirnames):
            if name in JS_STEERING_DIRS:
                # Not reported: an installed node_modules/ is what any agent leaves behind after
                # `npm install`; it is replaced by the prepared environment, never a sign of cheating.
                shutil.rmtree(here / name)
                dirnames.remove(name)
        for name in filenames:
            rel = (here / name).relative_to(dest).as_posix()
            if rel.startswith("tests/"):
                continue  # the challenge's own files
            if name in JS_STEERING_FILES or _CONFIG.match(name) or name.endswith(".node"):
                (here / name).unlink()
                removed.append(rel)
    for name in GRADER_CONFIGS:
        (dest / name).unlink(missing_ok=True)
        pristine = next((p for p in (challenge_root / name, challenge_root / "starter" / name) if p.is_file()), None)
        if pristine is not None:
            shutil.copyfile(pristine, dest / name)
        theirs = submitted.get(name)
        if theirs is not None and (pristine is None or theirs != pristine.read_bytes()):
            removed.append(name)
        elif theirs is not None and name in removed:
            removed.remove(name)  # identical to the challenge's own: nothing was taken away
    return sorted(set(removed))


def is_esm(path: Path, source: str) -> bool:
    """Whether ``path`` is an ES module (``.mjs``/``.mts``, or ``.js``/``.ts`` that uses import/export)."""
    if path.suffix in (".mjs", ".mts"):
        return True
    if path.suffix in (".cjs", ".cts"):
        return False
    return re.search(r"^\s*(import|export)\s", source, re.MULTILINE) is not None


def canary_source(path: Path, source: str, rng: random.Random, framework: str = "node:test") -> tuple[str, str]:
    """Text to append to a test file and the name of the canary test in it (it must fail).

    Two different random numbers asserted equal, with the assertions a real test of the file's
    framework uses (``node:assert``; vitest's ``expect`` imported from ``vitest``; jest's global
    ``expect``): a neutralised assert or matcher, a rewritten reporter or result, or a blanket
    forger makes it pass. Valid TypeScript too.
    """
    name = f"t_{rng.getrandbits(48):012x}"
    a, b = rng.randrange(10**6), rng.randrange(10**6, 2 * 10**6)
    tag = f"{rng.getrandbits(32):08x}"
    lead = "" if source.endswith("\n") else "\n"
    if framework == "vitest":
        text = (
            f"\nimport {{ test as __bouts_t{tag}, expect as __bouts_e{tag} }} from 'vitest';\n"
            f"__bouts_t{tag}('{name}', () => {{ __bouts_e{tag}({a}).toBe({b}); }});\n"
        )
        return lead + text, name
    if framework == "jest":
        return lead + f"\n;(() => {{ test('{name}', () => {{ expect({a}).toBe({b}); }}); }})();\n", name
    if is_esm(path, source):
        text = (
            f"\nimport {{ test as __bouts_t{tag} }} from 'node:test';\n"
            f"import {{ strict as __bouts_a{tag} }} from 'node:assert';\n"
            f"__bouts_t{tag}('{name}', () => {{ __bouts_a{tag}.equal({a}, {b}); }});\n"
        )
    else:
        text = (
            f"\n;(() => {{ const t = require('node:test').test; const a = require('node:assert').strict;\n"
            f"  t('{name}', () => {{ a.equal({a}, {b}); }}); }})();\n"
        )
    return lead + text, name


def plant_js_canaries(
    workspace: Path, test_files: Iterable[str], rng: random.Random, framework: str = "node:test"
) -> list[str]:
    """Append a canary to each JS test file in the workspace; return the canaries' test ids."""
    ids = []
    for rel in test_files:
        path = workspace / rel
        if not path.is_file() or path.suffix not in JS_TEST_SUFFIXES:
            continue
        text, name = canary_source(path, path.read_text(errors="replace"), rng, framework)
        with path.open("a") as fh:
            fh.write(text)
        ids.append(f"{rel}::{name}")
    return ids
