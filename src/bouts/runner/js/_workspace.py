"""The JavaScript grading workspace: the Python runner's assembly, minus what steers node.

Principle (as for Python, docs/sandbox.md): the grader never trusts bytes the graded code can
shape. Node reads ``node_modules/`` (module resolution), ``package.json`` (module type, import
maps, self-references), ``.npmrc`` and test-runner configs on its own; a submission's copies are
removed (and reported; ``node_modules/`` silently) and the challenge's ``package.json`` is put back.
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
JS_STEERING_FILES = frozenset({".npmrc", ".yarnrc", ".yarnrc.yml", ".pnp.cjs", ".pnp.loader.mjs", ".env", ".babelrc"})
_CONFIG = re.compile(r"^(vitest|vite|jest|babel|mocha)\.config\.[cm]?[jt]s$|^\.mocharc")
JS_TEST_SUFFIXES = (".mjs", ".cjs", ".js")


def assemble_js_workspace(code_dir: Path, challenge_root: Path, dest: Path) -> list[str]:
    """Assemble ``dest`` from ``code_dir`` and the challenge's pristine tests; return what was removed.

    Also removes node's steering files and native addons (``*.node``: machine code loaded by
    ``require``), and replaces ``package.json`` by the challenge's own (from the challenge root or
    ``starter/``) — dependencies are the challenge's, prepared once, never the submission's.
    """
    removed = assemble_workspace(code_dir, challenge_root / "tests", dest)
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
    pristine = next((p for p in (challenge_root / "package.json", challenge_root / "starter" / "package.json")
                     if p.is_file()), None)  # fmt: skip
    mine = dest / "package.json"
    if pristine is not None:
        if not mine.is_file() or mine.read_bytes() != pristine.read_bytes():
            if mine.is_file():
                removed.append("package.json")  # replaced by the challenge's own
            shutil.copyfile(pristine, mine)
    elif mine.is_file():
        mine.unlink()
        removed.append("package.json")
    return sorted(set(removed))


def is_esm(path: Path, source: str) -> bool:
    """Whether node loads ``path`` as an ES module (``.mjs``, or ``.js`` that uses import/export)."""
    if path.suffix == ".mjs":
        return True
    if path.suffix == ".cjs":
        return False
    return re.search(r"^\s*(import|export)\s", source, re.MULTILINE) is not None


def canary_source(path: Path, source: str, rng: random.Random) -> tuple[str, str]:
    """Text to append to a test file and the name of the canary test in it (it must fail).

    Two different random numbers asserted strictly equal, with the same ``node:assert`` a real
    test uses: a neutralised assert, a rewritten reporter or a blanket forger makes it pass.
    """
    name = f"t_{rng.getrandbits(48):012x}"
    a, b = rng.randrange(10**6), rng.randrange(10**6, 2 * 10**6)
    tag = f"{rng.getrandbits(32):08x}"
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
    return ("" if source.endswith("\n") else "\n") + text, name


def plant_js_canaries(workspace: Path, test_files: Iterable[str], rng: random.Random) -> list[str]:
    """Append a canary to each JS test file in the workspace; return the canaries' test ids."""
    ids = []
    for rel in test_files:
        path = workspace / rel
        if not path.is_file() or path.suffix not in JS_TEST_SUFFIXES:
            continue
        text, name = canary_source(path, path.read_text(errors="replace"), rng)
        with path.open("a") as fh:
            fh.write(text)
        ids.append(f"{rel}::{name}")
    return ids
