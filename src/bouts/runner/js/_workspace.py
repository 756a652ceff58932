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

from bouts import jsast
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


_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*|[0-9]+")
CANARIES_PER_FILE = (2, 3)
"""How many canaries a file gets (drawn per run): several, so that no one position or name is the tell."""
_ASSERT_EQUAL = frozenset({"equal", "strictEqual", "deepEqual", "deepStrictEqual"})
_MATCHERS = frozenset({"toBe", "toEqual", "toStrictEqual"})
_INTEGER = re.compile(r"^-?[0-9]+$")


def _test_names(src: jsast.JsSource) -> set[str]:
    """Every string literal that names a ``test``/``it``/``describe`` call (taken names)."""
    names = set()
    for node in src.nodes:
        if node.type == "call_expression" and (fn := src.field(node, "function")) is not None \
                and src.text(fn).split(".")[0] in ("test", "it", "describe"):  # fmt: skip
            args = src.field(node, "arguments")
            first = src.named_children(args)[0] if args is not None and src.named_children(args) else None
            if first is not None and first.type == "string":
                names.add(src.text(first)[1:-1])
    return names


def _expected(src: jsast.JsSource, stmt: jsast.JsNode) -> jsast.JsNode | None:
    """The expected literal of an assertion statement ``assert.equal(got, LIT)`` (and its strict and
    deep forms) or ``expect(got).toBe(LIT)``/``toEqual``/``toStrictEqual``; ``None`` otherwise."""
    kids = src.named_children(stmt)
    call = kids[0] if stmt.type == "expression_statement" and kids else None
    if call is None or call.type != "call_expression":
        return None
    fn, args = src.field(call, "function"), src.field(call, "arguments")
    if fn is None or args is None or fn.type != "member_expression":
        return None
    obj, prop = src.field(fn, "object"), src.field(fn, "property")
    if obj is None or prop is None:
        return None
    values = src.named_children(args)
    if src.text(prop) in _ASSERT_EQUAL and obj.type in ("identifier", "member_expression") and len(values) in (2, 3):
        return values[1]
    if src.text(prop) in _MATCHERS and obj.type == "call_expression" and len(values) == 1:
        callee = src.field(obj, "function")
        if callee is not None and src.text(callee) == "expect":
            return values[0]
    return None


def _changeable(src: jsast.JsSource, lit: jsast.JsNode) -> list[jsast.JsNode]:
    """The literals inside an expected value that a canary may change: whole numbers and plain
    strings (never booleans: a wrong solution's output is often exactly the flipped boolean, which
    would make the canary pass for honest code), in the value itself or one level of array."""
    items = src.named_children(lit) if lit.type == "array" else [lit]
    return [item for item in items if (item.type == "number" and _INTEGER.match(src.text(item))) or _plain(src, item)]


def _plain(src: jsast.JsSource, node: jsast.JsNode) -> bool:
    """A string literal without escapes (its source text between the quotes is its value)."""
    return node.type == "string" and all(k.type == "string_fragment" for k in src.named_children(node))


def _changed(src: jsast.JsSource, lit: jsast.JsNode, rng: random.Random) -> str:
    text = src.text(lit)
    if lit.type == "number":
        return str(int(text) + rng.randrange(10**6, 10**9))
    return f"{text[0]}{text[1:-1]}-{rng.getrandbits(32):08x}{text[-1]}"


def _mutants(path: Path, source: str, rng: random.Random, count: int) -> tuple[str, list[str]] | None:
    """Copies of up to ``count`` of the file's top-level tests, each with one expected literal
    changed, each inserted right after the test it copies: ``(new file text, canary names)``, or
    ``None`` when no test fits.

    A copy calls into the submission exactly like the test it copies (same statements, same
    assertion, same file, the call on the same column of its line): a forger that hands back
    whatever the calling assertion expects makes it pass, and a passing canary voids the run. Only
    assertions that are statements of the test's own body (not in a loop, branch or callback, none
    after a statement that may ``return``) of a test whose function takes at most one parameter (no
    ``done`` callback) are copied, so that honest code always reaches the changed assertion and fails it.
    """
    dialect = jsast.dialect_for(path.name)
    src = jsast.parse(source, dialect) if dialect is not None else None
    if not isinstance(src, jsast.JsSource) or src.error_lines:
        return None
    candidates = []
    for stmt in src.named_children(src.root):
        call = src.named_children(stmt)[0] if stmt.type == "expression_statement" and src.named_children(stmt) else None
        if call is None or call.type != "call_expression":
            continue
        fn, args = src.field(call, "function"), src.field(call, "arguments")
        values = src.named_children(args) if args is not None else []
        if fn is None or src.text(fn) not in ("test", "it") or len(values) != 2:
            continue
        name, body_fn = values
        if not _plain(src, name):
            continue
        if body_fn.type not in ("arrow_function", "function_expression", "function"):
            continue
        params, body = src.field(body_fn, "parameters"), src.field(body_fn, "body")
        if body is None or body.type != "statement_block" or len(src.named_children(params) if params else []) > 1:
            continue
        for inner in src.named_children(body):
            if any(n.type == "return_statement" for n in src.subtree(inner)):
                break  # the test may end here: what follows may never run
            lit = _expected(src, inner)
            if lit is not None:
                candidates += [(stmt, name, item) for item in _changeable(src, lit)]
    if not candidates:
        return None
    taken = _test_names(src)
    chosen = []
    for stmt, name, lit in rng.sample(candidates, len(candidates)):
        if len(chosen) == count:
            break
        canary = _variant(src.text(name)[1:-1], rng, taken)
        taken.add(canary)
        chosen.append((stmt, name, lit, canary))
    data = src.data
    inserts: list[tuple[int, bytes]] = []
    for stmt, name, lit, canary in chosen:
        copy = (data[stmt.start_byte : name.start_byte] + f"{src.text(name)[0]}{canary}{src.text(name)[-1]}".encode()
                + data[name.end_byte : lit.start_byte] + _changed(src, lit, rng).encode()
                + data[lit.end_byte : stmt.end_byte])  # fmt: skip
        inserts.append((stmt.end_byte, b"\n\n" + copy))
    for at, text in sorted(inserts, key=lambda i: -i[0]):
        data = data[:at] + text + data[at:]
    return data.decode("utf-8", errors="surrogatepass"), [c for *_, c in chosen]


def _variant(base: str, rng: random.Random, taken: set[str]) -> str:
    """A new test name made of the file's own words: ``base`` and one or two words of the file's
    other test names (never a fixed list a forger could match), drawn per run."""
    words = sorted({w for name in taken for w in _WORD.findall(name)} - set(_WORD.findall(base)))
    words = words or sorted({w for name in taken for w in _WORD.findall(name)}) or ["case"]
    for _ in range(64):
        picked = rng.sample(words, min(len(words), rng.choice((1, 1, 2))))
        name = f"{base} {' '.join(picked)}" if rng.random() < 0.7 else f"{' '.join(picked)} {base}"
        if name not in taken:
            return name
    return f"{base} {rng.choice(words)} {rng.randrange(2, 10)}"


def canary_source(path: Path, source: str, rng: random.Random, framework: str = "node:test") -> tuple[str, str]:
    """The test file's text with a canary test in it, and the canary's name (it must fail).

    Where the file has a top-level test asserting a call's result against a whole number or a plain
    string, the canary is that test with the literal changed (:func:`_mutant`): it catches blanket
    forgers and targeted ones that read the expected value off the calling line. Otherwise two
    different random numbers asserted equal, with the assertions a real test of the file's
    framework uses (``node:assert``; vitest's ``expect`` imported from ``vitest``; jest's global
    ``expect``): a neutralised assert or matcher, a rewritten reporter or result, or a blanket
    forger makes it pass. Either way it is named like a variant of one of the file's tests
    (``<real name> again``). Valid TypeScript too.
    """
    mutant = _mutants(path, source, rng, 1)
    if mutant is not None:
        return mutant[0], mutant[1][0]
    parsed = jsast.parse(source, jsast.dialect_for(path.name) or "javascript")
    taken = _test_names(parsed) if isinstance(parsed, jsast.JsSource) else set()
    plain = sorted(n for n in taken if not set(n) & set("\\'\"`"))
    name = _variant(rng.choice(plain) if plain else "handles the documented case", rng, taken)
    a, b = rng.randrange(10**6), rng.randrange(10**6, 2 * 10**6)
    tag = f"{rng.getrandbits(32):08x}"
    lead = "" if source.endswith("\n") else "\n"
    quoted = f"'{name}'"
    if framework == "vitest":
        text = (
            f"\nimport {{ test as __bouts_t{tag}, expect as __bouts_e{tag} }} from 'vitest';\n"
            f"__bouts_t{tag}({quoted}, () => {{ __bouts_e{tag}({a}).toBe({b}); }});\n"
        )
        return source + lead + text, name
    if framework == "jest":
        return source + lead + f"\n;(() => {{ test({quoted}, () => {{ expect({a}).toBe({b}); }}); }})();\n", name
    if is_esm(path, source):
        text = (
            f"\nimport {{ test as __bouts_t{tag} }} from 'node:test';\n"
            f"import {{ strict as __bouts_a{tag} }} from 'node:assert';\n"
            f"__bouts_t{tag}({quoted}, () => {{ __bouts_a{tag}.equal({a}, {b}); }});\n"
        )
    else:
        text = (
            f"\n;(() => {{ const t = require('node:test').test; const a = require('node:assert').strict;\n"
            f"  t({quoted}, () => {{ a.equal({a}, {b}); }}); }})();\n"
        )
    return source + lead + text, name


def plant_js_canaries(
    workspace: Path, test_files: Iterable[str], rng: random.Random, framework: str = "node:test"
) -> list[str]:
    """Plant canaries in each JS test file of the workspace; return the canaries' test ids.

    Several per file (:data:`CANARIES_PER_FILE`, drawn per run), each a copy of a different test of
    the file with a changed expected value, inserted after the test it copies and named with the
    file's own words (:func:`_mutants`); a file with no test to copy gets one
    :func:`canary_source` fallback."""
    ids = []
    for rel in test_files:
        path = workspace / rel
        if not path.is_file() or path.suffix not in JS_TEST_SUFFIXES:
            continue
        source = path.read_text(errors="replace")
        planted = _mutants(path, source, rng, rng.randint(*CANARIES_PER_FILE))
        if planted is None:
            text, name = canary_source(path, source, rng, framework)
            planted = (text, [name])
        path.write_text(planted[0], encoding="utf-8", errors="surrogatepass")
        ids += [f"{rel}::{name}" for name in planted[1]]
    return ids
