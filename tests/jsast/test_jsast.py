"""The shared JavaScript/TypeScript parser: text in, data out, bounded, never recursing."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from bouts import jsast
from bouts.jsast import NOT_LITERAL, Container, JsSource, NotAnalysed


def parse(text: str, dialect: jsast.Dialect = "javascript") -> JsSource:
    src = jsast.parse(text, dialect)
    assert isinstance(src, JsSource), src
    return src


def values_of(src: JsSource, node_type: str) -> list[object]:
    values = jsast.literal_values(src, jsast.dotted_names(src))
    return [values[n.index] for n in src.nodes if n.type == node_type]


def test_preorder_table_with_contiguous_subtrees() -> None:
    src = parse("function f(a) { if (a === 1) { return 2; } }\n")
    assert src.root.type == "program" and src.error_lines == ()
    for node in src.nodes:
        assert all(node.index < child < node.stop for child in node.children)
        assert [n.index for n in src.subtree(node)] == list(range(node.index, node.stop))
    [cmp] = [n for n, _ in jsast.comparisons(src)]
    assert src.text(cmp) == "a === 1" and cmp.line == 1


@pytest.mark.parametrize(
    "hostile",
    [
        "x = " + "(" * 100_000 + "1" + ")" * 100_000,
        "x = " + "[" * 100_000 + "]" * 100_000,
        "{" * 100_000 + "}" * 100_000,
        "x = " + "1 + " * 50_000 + "1",
        "if (a) " * 50_000 + "b;",
        "f = " + "() => " * 50_000 + "1",
    ],
    ids=["parens", "arrays", "blocks", "binary-chain", "if-chain", "arrows"],
)
def test_deep_nesting_is_not_analysed_never_a_crash(hostile: str) -> None:
    result = jsast.parse(hostile, "javascript")
    assert isinstance(result, NotAnalysed)
    assert f"nested more than {jsast.MAX_DEPTH} levels deep; not analysed" == result.reason


@pytest.mark.slow_io
def test_size_and_node_bounds() -> None:
    big = jsast.parse("x = 1;\n" * (jsast.MAX_SOURCE_BYTES // 7 + 1), "javascript")
    assert isinstance(big, NotAnalysed) and "larger than" in big.reason
    many = jsast.parse("f(1,2);" * 50_000, "javascript")  # 350 kB, 700,000 nodes
    assert isinstance(many, NotAnalysed) and "syntax nodes" in many.reason


@pytest.mark.parametrize("garbage", ["@#$%^&*(" * 2000, "'" * 5000, "`${" * 5000, "\x00\x01\ud800 x", "(" * 5000])
def test_garbage_parses_with_errors_and_never_raises(garbage: str) -> None:
    result = jsast.parse(garbage, "javascript")
    assert isinstance(result, JsSource | NotAnalysed)
    if isinstance(result, JsSource):
        assert result.error_lines


def test_dialects() -> None:
    assert jsast.dialect_for("src/a.mjs") == "javascript" and jsast.dialect_for("a.JSX") == "javascript"
    assert jsast.dialect_for("a.cts") == "typescript" and jsast.dialect_for("a.tsx") == "tsx"
    assert jsast.dialect_for("a.py") is None and jsast.dialect_for("Makefile") is None
    ts = parse("export function f(a: number, b?: string): number { return a as number; }", "typescript")
    assert ts.error_lines == ()
    tsx = parse("const C = (p: {n: number}) => <div>{p.n}</div>;", "tsx")
    assert tsx.error_lines == ()


def test_functions_are_named_as_a_reader_would() -> None:
    src = parse(
        "export function createLimiter({ limit, now = () => Date.now() } = {}) {\n"
        "  function live(key, t) { return [].filter((x) => x > t); }\n"
        "  return { hit(key) { return live(key, now()); }, reset: function (key) {}, size: () => 0 };\n"
        "}\n"
        "class Ledger { cancel(id) {} #secret() {} static of() {} }\n"
        "module.exports.helper = function () {};\n"
        "const arrow = async (a, b, ...rest) => a;\n"
        "[1].map(function named() {});\n"
    )
    names = [(f.qualname, f.exported) for f in jsast.functions(src)]
    assert names == [
        ("createLimiter", True), ("createLimiter.<anonymous@1>", False), ("createLimiter.live", False),
        ("createLimiter.live.<anonymous@2>", False), ("createLimiter.hit", False), ("createLimiter.reset", False),
        ("createLimiter.size", False), ("Ledger.cancel", False), ("Ledger.#secret", False), ("Ledger.of", False),
        ("helper", True), ("arrow", False), ("named", False),
    ]
    arrow = next(f for f in jsast.functions(src) if f.name == "arrow")
    assert [src.text(p) for p in arrow.params] == ["a", "b", "...rest"]
    limiter = jsast.functions(src)[0]
    units = frozenset(f.node.index for f in jsast.functions(src) if f.name)
    # lines 2-3 belong to live, hit, reset and size; the default-value arrow on line 1 stays the factory's
    assert jsast.owned_lines(src, limiter, units) == {1, 4}


def test_literal_values() -> None:
    src = parse(
        "a = [19.99, '19.99', -5, 0x1F, 1_000, 10n, 'it\\'s', `plain`, true, null, undefined];\n"
        "b = {'A-1': [1, 2], 2: {c: -3.5}, [\"k\"]: 'v'};\n"
        "c = new Set(['q', 1]); d = new Map([['x', 1]]); e = Object.freeze({z: 1});\n"
        "f = JSON.parse('[[\"Ajax\", 2]]'); g = JSON.stringify([['A', 1]]); h = [x]; i = `t${x}`;\n"
        "j = {...o}; k = {m() {}}; l = ('x' as const);\n"
    )
    arrays = values_of(src, "array")
    assert arrays[0] == Container("array", (19.99, "19.99", -5, 31, 1000, 10, "it's", "plain", True, None, None))
    obj = values_of(src, "object")[0]
    assert obj == Container("object", (("A-1", Container("array", (1, 2))),
                                       (2, Container("object", (("c", -3.5),))), ("k", "v")))
    news = values_of(src, "new_expression")
    assert news == [Container("set", ("q", 1)), Container("map", (("x", 1),))]
    calls = values_of(src, "call_expression")
    assert calls[0] == Container("object", (("z", 1),))
    assert calls[1] == Container("array", (Container("array", ("Ajax", 2)),))
    assert calls[2] == '[["A",1]]'
    assert NOT_LITERAL in values_of(src, "array")  # [x]
    assert values_of(src, "template_string")[-1] is NOT_LITERAL
    assert all(v is NOT_LITERAL for v in values_of(src, "object")[3:5])  # spread, method


def test_dotted_names_aliases_and_imports() -> None:
    src = parse(
        "import assert, { equal as eq } from 'node:assert/strict';\n"
        "import * as t from 'node:test';\n"
        "const { env } = process; const e2 = process.env; const cp = require('node:child_process');\n"
        "export { x } from './x.mjs';\n"
        "const lazy = await import('./lazy.mjs');\n"
        "use(process.env['CI'], env.BOUTS_SEED, e2?.NODE_TEST_CONTEXT, t.mock, eq);\n"
    )
    names = jsast.dotted_names(src)
    table = jsast.aliases(src, names)
    assert table["assert"] == "assert/strict" and table["eq"] == "assert/strict.equal" and table["t"] == "test"
    assert table["env"] == "process.env" and table["e2"] == "process.env" and table["cp"] == "child_process"
    args = [n for n in src.nodes if n.type == "arguments"][-1]
    resolved = [jsast.resolve(names[a.index], table) for a in src.named_children(args)]
    assert resolved == ["process.env.CI", "process.env.BOUTS_SEED", "process.env.NODE_TEST_CONTEXT", "test.mock",
                        "assert/strict.equal"]
    assert [(i.module, i.kind) for i in jsast.imports(src)] == [
        ("assert/strict", "import"), ("test", "import"), ("child_process", "require"), ("./x.mjs", "export"),
        ("./lazy.mjs", "dynamic")]


def test_parsing_is_safe_from_many_threads() -> None:
    text = (Path(__file__).resolve().parents[2] / "examples/rate-limiter-js/reference/src/limiter.mjs").read_text()
    results: list[int] = []

    def work() -> None:
        for _ in range(20):
            results.append(len(parse(text).nodes))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(set(results)) == 1 and len(results) == 80
