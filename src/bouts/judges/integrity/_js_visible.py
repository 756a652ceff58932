"""What JavaScript/TypeScript visible tests expect and feed in: the evidence base of the
hard-coding detectors for a JavaScript challenge (``_visible`` reads Python tests the same way).

Read from the test files' syntax trees (never run), for ``node:test`` + ``node:assert``, jest,
vitest and chai alike:

- **expected** values: the literal arguments of assertions (``assert.equal(a, b)``,
  ``assert.deepStrictEqual``, ``assert.ok(x === 5)``'s operands, ``expect(x).toBe(v)``,
  ``.toEqual``, ``.toBeCloseTo``, ``.to.equal``...) and the message a ``throws``/``rejects``/
  ``toThrow``/``match`` expects (a regular expression's pattern counts as its text);
- **inputs**: the literal arguments of every other call, except the titles of ``test``/``it``/
  ``describe`` and module specifiers;
- **tables**: the rows of ``for (const [input, expected] of TABLE)``, ``TABLE.forEach(...)`` and
  ``test.each(TABLE)``, each row and each of its values, count as both (like a ``parametrize`` table).

An argument that is not a literal as a whole gives its literal parts (``createLimiter({limit: 3,
now: c.now})`` feeds in ``3``); a name bound to a literal in an enclosing function or at module
level stands for that literal.
"""

from __future__ import annotations

from collections.abc import Iterable

from bouts.jsast import FUNCTION_TYPES, NOT_LITERAL, Container, JsNode
from bouts.judges.integrity._js_structures import bindings, module_bindings
from bouts.judges.integrity._jsfile import JsFile
from bouts.judges.integrity._literals import LitKey, distinctive, key_of
from bouts.judges.integrity._structures import SKey, harvested, is_container
from bouts.judges.integrity._visible import VisibleLiterals

_ASSERT_MODULES = frozenset({"assert", "assert/strict"})
MATCHERS = frozenset({
    "equal", "strictEqual", "deepEqual", "deepStrictEqual", "notEqual", "notStrictEqual", "notDeepEqual",
    "notDeepStrictEqual", "partialDeepStrictEqual", "ok", "toBe", "toEqual", "toStrictEqual", "toContain",
    "toContainEqual", "toMatchObject", "toHaveLength", "toHaveProperty", "toBeCloseTo", "toHaveBeenCalledWith",
    "toHaveReturnedWith", "toHaveBeenLastCalledWith", "eql", "equals", "include", "members", "closeTo",
    "approximately", "deepInclude", "oneOf", "lengthOf", "property",
})  # fmt: skip
MESSAGE_MATCHERS = frozenset({"throws", "rejects", "toThrow", "toThrowError", "match", "doesNotMatch", "toMatch",
                              "throw", "rejectedWith"})
_TEST_CALLS = frozenset({"test", "it", "describe", "suite", "before", "after", "beforeEach", "afterEach",
                         "beforeAll", "afterAll", "todo", "skip", "only", "concurrent", "fixme", "require",
                         "plan", "diagnostic", "fn", "spyOn", "method", "getter", "setter", "timers"})
_TABLE_CALLS = frozenset({"forEach", "each", "map", "for"})
_SCALARS = frozenset({"number", "string", "template_string", "unary_expression"})


def harvest_js(files: Iterable[JsFile]) -> VisibleLiterals:
    """Read the expected and input values of the visible test files."""
    expected: list[tuple[JsFile, JsNode]] = []
    inputs: list[tuple[JsFile, JsNode]] = []
    messages: set[LitKey] = set()
    for f in files:
        if f.parsed is not None:
            _harvest_file(f, expected, inputs, messages)
    scalar_expected = {k for f, n in expected for k in _scalar_keys(f, n)} | messages
    return VisibleLiterals(
        expected=frozenset(k for k in scalar_expected if distinctive(k)),
        inputs=frozenset(k for f, n in inputs for k in _scalar_keys(f, n) if distinctive(k)),
        expected_structures=harvested(_containers(expected)),
        input_structures=harvested(_containers(inputs)),
    )


def _harvest_file(
    f: JsFile, expected: list[tuple[JsFile, JsNode]], inputs: list[tuple[JsFile, JsNode]], messages: set[LitKey]
) -> None:
    src = f.parsed
    assert src is not None
    module = module_bindings(f)
    scopes: dict[int, dict[str, list[JsNode]]] = {}

    def literals(node: JsNode) -> list[JsNode]:
        """The literal parts of an expression (iterative), names read through their bindings."""
        out: list[JsNode] = []
        pending = [node]
        while pending:
            current = pending.pop()
            if f.values[current.index] is not NOT_LITERAL:
                out.append(current)
            elif current.type == "identifier":
                out += _bound(current)
            elif current.type in ("object", "array", "pair", "parenthesized_expression", "spread_element"):
                pending.extend(src.named_children(current))
        return out

    def _bound(name: JsNode) -> list[JsNode]:
        text = src.text(name)
        for fn in src.ancestors(name):
            if fn.type in FUNCTION_TYPES:
                scope = scopes.get(fn.index)
                if scope is None:
                    scope = scopes[fn.index] = bindings(f, fn)
                if text in scope:
                    return scope[text]
        return module.get(text, [])

    def rows(table: JsNode) -> list[JsNode]:
        out: list[JsNode] = []
        for array in [table] if table.type == "array" else literals(table):
            if array.type != "array":
                continue
            for row in src.named_children(array):
                out += literals(row)
                if row.type in ("array", "object"):
                    for part in src.named_children(row):
                        out += literals(src.field(part, "value") or part) if part.type == "pair" else literals(part)
        return out

    for node in src.nodes:
        if node.type == "for_in_statement":
            op, right = src.field(node, "operator"), src.field(node, "right")
            if op is not None and op.type == "of" and right is not None:
                table = rows(right)
                expected += [(f, n) for n in table]
                inputs += [(f, n) for n in table]
            continue
        if node.type != "call_expression":
            continue
        callee, args_node = src.field(node, "function"), src.field(node, "arguments")
        if callee is None or args_node is None:
            continue
        args = src.named_children(args_node)
        name = f.name(callee)
        last = name.rsplit(".", 1)[-1] if name else (
            src.text(src.field(callee, "property") or callee, 60) if callee.type == "member_expression" else "")
        root = name.split(".")[0] if name else ""
        if last in _TABLE_CALLS:
            table_node = src.field(callee, "object") if last in ("forEach", "map") else (args[0] if args else None)
            if table_node is not None:
                table = rows(table_node)
                expected += [(f, n) for n in table]
                inputs += [(f, n) for n in table]
            continue
        if root in _ASSERT_MODULES or name in _ASSERT_MODULES or last in MATCHERS or last in MESSAGE_MATCHERS:
            for arg in args:
                expected += [(f, n) for n in literals(arg)]
                expected += [(f, n) for n in _compared(f, arg) for n in literals(n)]
                if last in MESSAGE_MATCHERS and arg.type == "regex":
                    pattern = src.field(arg, "pattern")
                    if pattern is not None and (key := key_of(src.text(pattern))) is not None:
                        messages.add(key)
            continue
        if last in _TEST_CALLS or root in ("require", "import") or callee.type == "import":
            continue
        for arg in args:
            inputs += [(f, n) for n in literals(arg)]


def _compared(f: JsFile, expression: JsNode) -> list[JsNode]:
    """Operands of the comparisons in an ``assert.ok(...)``/``assert(...)`` condition."""
    src = f.parsed
    assert src is not None
    out = []
    for node in src.walk(expression, skip=FUNCTION_TYPES):
        if node.type == "binary_expression":
            op = src.field(node, "operator")
            if op is not None and op.type in ("==", "===", "!=", "!=="):
                out += [n for n in (src.field(node, "left"), src.field(node, "right")) if n is not None]
    return out


def _scalar_keys(f: JsFile, node: JsNode) -> list[LitKey]:
    """Every scalar inside a literal (object keys written as names included)."""
    src = f.parsed
    assert src is not None
    out = []
    for n in src.subtree(node):
        if n.type in _SCALARS:
            value = f.values[n.index]
            parent = src.parent(n)
            if n.type == "number" and parent is not None and parent.type == "unary_expression" \
                    and f.values[parent.index] is not NOT_LITERAL:
                continue
            if value is not NOT_LITERAL and not isinstance(value, Container) and (k := key_of(value)) is not None:
                out.append(k)
        elif n.type == "property_identifier" and n.field == "key" and (k := key_of(src.text(n))) is not None:
            out.append(k)
    return out


def _containers(nodes: list[tuple[JsFile, JsNode]]) -> Iterable[SKey]:
    for f, node in nodes:
        key = f.key(node)
        if is_container(key):
            yield key  # type: ignore[misc]
