"""Externalised assertions for ``node:test`` files: the host's rewrite (pure).

As for Python (docs/sandbox.md, "Decided outside"), every ``node:assert`` / ``assert.strict`` call
and every ``bouts_expect`` of a test file becomes a numbered *site*, an observation of the
submission's values; the host decides. One rewrite serves two texts:

- **graded** (``check=False`` in the sandbox's runtime, ``jslib/observe.mjs``):
  ``assert.equal(A, 42, 'msg')`` → ``__bouts.v(k, () => [A])``: the operands that are not literals,
  no expected literal, no message, no comparison. ``assert.throws(fn, X)`` → ``__bouts.t(k, fn)``,
  ``assert.rejects(p, X)`` → ``__bouts.r(k, p)``: how the call ended. Plain calls that are a
  statement of a test's own body (``lim.hit('a');``, ``const r = lim.hit('a');``, ``await
  probe(...)``) → ``__bouts.p(k, () => CALL)``: recorded when they raise. Each test function's body
  runs inside an arrow and is followed by ``__bouts.e(k)``: the *end* of the test, reached only when
  the body returned (an early ``return`` included) and never after an exception.
- **checked** (the reference's golden run, and runs without a reference): the same, each site also
  carrying its method, all its arguments (each evaluated once) and the positions of the observed
  ones, so the runtime runs the original assertion with node's own functions captured before any
  submission code (``__bouts.v(k, () => [A, 42, 'msg'], 'equal', [0])``).

The host's decision is ``_decide.py``. Not externalised (counted): assertions inside a test
function that takes a ``done`` callback or has an expression body, and calls of other assertion
libraries.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from bouts import jsast
from bouts.jsast import JsNode, JsSource

VERSION = "js-externalise/1"
ASSERT_MODULES = {"assert": False, "assert/strict": True}
"""node's assertion modules → whether their default export is ``assert.strict``."""
TEST_MODULES = frozenset({"test"})
EQ = frozenset({"equal", "strictEqual", "deepEqual", "deepStrictEqual", "partialDeepStrictEqual"})
NE = frozenset({"notEqual", "notStrictEqual", "notDeepEqual", "notDeepStrictEqual"})
PAIRED = frozenset({"match", "doesNotMatch"})
"""Compared with the reference's value of their operand (stricter than the assertion: a regex is
not evaluated on the host)."""
_STRICT = {"equal": "strictEqual", "deepEqual": "deepStrictEqual", "notEqual": "notStrictEqual",
           "notDeepEqual": "notDeepStrictEqual"}  # fmt: skip
KINDS = ("eq", "ne", "ok", "cmp", "paired", "iferror", "fail", "throws", "plain", "end")
_RELATIONAL = frozenset({"<", "<=", ">", ">="})
_LITERAL_NAMES = frozenset({"undefined", "NaN", "Infinity"})
_FUNCTIONS = frozenset({"arrow_function", "function_expression", "function"})


@dataclass(frozen=True)
class Site:
    kind: str
    """One of :data:`KINDS`."""
    line: int
    method: str = ""
    op: str = ""
    """``cmp`` sites: the relational operator (``<``, ``<=``, ``>``, ``>=``)."""
    consts: tuple[tuple[int, object], ...] = ()
    """``cmp`` sites: (position, value) of the literal operands, kept on the host."""


@dataclass
class Rewrite:
    """The two texts of one test file and its sites (site number → :class:`Site`)."""

    graded: str
    checked: str
    sites: dict[int, Site] = field(default_factory=dict)
    total: int = 0
    """Assertions in the file (externalised or not)."""
    externalised: int = 0
    unwrapped: int = 0
    """Test functions whose end is not observed (a ``done`` callback, an expression body)."""
    skipped: list[tuple[int, str]] = field(default_factory=list)
    """(line, why) of each assertion left as written."""


@dataclass(frozen=True)
class _Edit:
    start: int
    end: int
    build: Callable[[Callable[[int, int], str], bool], str]
    """``build(render, checked)``: the replacement, ``render(a, b)`` the rewritten text of a sub-range."""


def rewrite(text: str, path: str) -> Rewrite | None:
    """The rewrite of one test file, or None when it cannot be parsed (then it runs as written)."""
    dialect = jsast.dialect_for(path) or "javascript"
    src = jsast.parse(text, dialect)
    if not isinstance(src, JsSource):
        return None
    return _Rewriter(src).run()


class _Rewriter:
    def __init__(self, src: JsSource) -> None:
        self.src = src
        self.values = jsast.literal_values(src)
        self.modules: dict[str, bool] = {}  # local name → the assert module, strict?
        self.functions: dict[str, tuple[str, bool]] = {}  # local name → (method, strict)
        self.tests: set[str] = set()  # local names of test/it
        self.test_modules: set[str] = set()  # local names of node:test's module
        self.edits: list[_Edit] = []
        self.sites: dict[int, Site] = {}
        self.total = 0
        self.done = 0
        self.unwrapped = 0
        self.skipped: list[tuple[int, str]] = []
        for imp in jsast.imports(src):
            if imp.module in ASSERT_MODULES:
                strict = ASSERT_MODULES[imp.module]
                for local, imported in imp.names:
                    if imported in ("default", "*"):
                        self.modules[local] = strict
                    elif imported == "strict":
                        self.modules[local] = True
                    else:
                        self.functions[local] = (imported, strict)
            elif imp.module in TEST_MODULES:
                for local, imported in imp.names:
                    if imported in ("test", "it"):
                        self.tests.add(local)
                    elif imported in ("default", "*"):
                        self.test_modules.add(local)
                        self.tests.add(local)  # `import test from 'node:test'`: the default is test()

    # ---- classification -------------------------------------------------------------------------
    def _assertion(self, call: JsNode) -> tuple[str, bool] | None:
        """(method, strict) when ``call`` is a node:assert call or ``bouts_expect``."""
        callee = self.src.field(call, "function")
        if callee is None:
            return None
        if callee.type == "identifier":
            name = self.src.text(callee)
            if name == "bouts_expect":
                return ("bouts_expect", True)
            if name in self.modules:
                return ("ok", self.modules[name])
            return self.functions.get(name)
        if callee.type == "member_expression":
            obj, prop = self.src.field(callee, "object"), self.src.field(callee, "property")
            if obj is None or prop is None:
                return None
            method = self.src.text(prop)
            if obj.type == "identifier" and self.src.text(obj) in self.modules:
                if method == "strict":
                    return None
                return (method, self.modules[self.src.text(obj)])
            if obj.type == "member_expression":
                inner, strict = self.src.field(obj, "object"), self.src.field(obj, "property")
                if (inner is not None and strict is not None and inner.type == "identifier"
                        and self.src.text(inner) in self.modules and self.src.text(strict) == "strict"):  # fmt: skip
                    return (method, True)
        return None

    def _expect_matcher(self, call: JsNode) -> bool:
        """``expect(x).toBe(y)`` (``.not``, ``.resolves``, ``.rejects`` between): vitest's and jest's."""
        callee = self.src.field(call, "function")
        if callee is None or callee.type != "member_expression":
            return False
        obj = self.src.field(callee, "object")
        while obj is not None and obj.type == "member_expression":
            prop = self.src.field(obj, "property")
            if prop is None or self.src.text(prop) not in ("not", "resolves", "rejects"):
                return False
            obj = self.src.field(obj, "object")
        if obj is None or obj.type != "call_expression":
            return False
        inner = self.src.field(obj, "function")
        return inner is not None and inner.type == "identifier" and self.src.text(inner) == "expect"

    def _test_call(self, call: JsNode) -> bool:
        """Whether ``call`` registers a ``node:test`` test (``test``, ``it``, ``test.only``...)."""
        callee = self.src.field(call, "function")
        if callee is None:
            return False
        name = self.src.text(callee)
        base = name.split(".")
        return name in self.tests or (len(base) >= 2 and base[0] in self.tests | self.test_modules
                                      and base[-1] in ("test", "it", "only", "skip", "todo"))  # fmt: skip

    def _test_function(self, call: JsNode) -> JsNode | None:
        """The function literal a ``test(...)``/``it(...)`` call registers, if it is one."""
        if not self._test_call(call):
            return None
        args = self.src.field(call, "arguments")
        last = self.src.named_children(args)[-1:] if args is not None else []
        if not last or last[0].type not in _FUNCTIONS:
            return None
        return last[0]

    def _has_body(self, call: JsNode) -> bool:
        """Whether a test registration passes something that may be its function (not ``test.todo('x')``)."""
        args = self.src.field(call, "arguments")
        named = self.src.named_children(args) if args is not None else []
        return len(named) >= 2 or (len(named) == 1 and named[0].type not in ("string", "template_string"))

    def _literal(self, node: JsNode) -> bool:
        if node.type == "identifier" and self.src.text(node) in _LITERAL_NAMES:
            return True
        if node.type == "unary_expression" and self.src.text(node).replace(" ", "") == "-Infinity":
            return True
        return self.values[node.index] is not jsast.NOT_LITERAL

    def _has_await(self, node: JsNode) -> bool:
        return any(n.type == "await_expression" for n in self.src.walk(node, skip=frozenset(_FUNCTIONS)))

    # ---- the pass ---------------------------------------------------------------------------------
    def run(self) -> Rewrite:
        src = self.src
        wrapped_tests: list[JsNode] = []
        for node in src.nodes:
            if node.type != "call_expression":
                continue
            fn = self._test_function(node)
            if fn is not None:
                wrapped_tests.append(fn)
            elif self._test_call(node) and self._has_body(node):
                self.unwrapped += 1  # a function passed by name: its end is not observed
            found = self._assertion(node)
            if found is None:
                if self._expect_matcher(node):
                    self.total += 1
                    self.skipped.append((node.line, "expect(...) matchers are decided in the test process"))
                continue
            self.total += 1
            if self._site(node, *found):
                self.done += 1
            else:
                self.skipped.append((node.line, f"assert.{found[0]} in this form is decided in the test process"))
        for fn in wrapped_tests:
            self._wrap_test(fn)
        graded = self._render(False)
        checked = self._render(True)
        return Rewrite(graded, checked, dict(self.sites), self.total, self.done, self.unwrapped, self.skipped)

    def _new_site(self, kind: str, node: JsNode, method: str = "") -> int:
        k = len(self.sites) + 1
        self.sites[k] = Site(kind, node.line, method)
        return k

    def _site(self, call: JsNode, method: str, strict: bool) -> bool:
        src = self.src
        args_node = src.field(call, "arguments")
        args = src.named_children(args_node) if args_node is not None else []
        if any(a.type == "spread_element" for a in args):
            return False
        if strict:
            method = _STRICT.get(method, method)
        if method == "bouts_expect":
            kind, observed, check = "eq", [0], ("deepStrictEqual" if len(args) > 1 else None)
        elif method in EQ:
            kind, observed, check = "eq", [i for i in (0, 1) if i < len(args) and not self._literal(args[i])], method
        elif method in NE:
            kind, observed, check = "ne", [0, 1], method
        elif method == "ok" and args and (cmp := self._comparison(args[0])) is not None:
            return self._cmp(call, *cmp)
        elif method == "ok":
            kind, observed, check = "ok", [0], "ok"
        elif method in PAIRED:
            kind, observed, check = "paired", [0], method
        elif method == "ifError":
            kind, observed, check = "iferror", [0], "ifError"
        elif method == "fail":
            kind, observed, check = "fail", [], "fail"
        elif method in ("throws", "rejects"):
            return self._throws(call, method, args)
        else:
            return False
        if not args and kind != "fail":
            return False
        observed = [i for i in observed if i < len(args)]
        k = self._new_site(kind, call, method)
        wait = any(self._has_await(a) for a in args)
        all_args = args if method != "bouts_expect" else args[:2]

        def build(render: Callable[[int, int], str], checked: bool) -> str:
            if checked and check is not None:
                every = "[" + ", ".join(f"({render(a.start_byte, a.end_byte)})" for a in all_args) + "]"
                body, extra = every, f", {check!r}, {observed!r}"
            else:
                body = "[" + ", ".join(f"({render(args[i].start_byte, args[i].end_byte)})" for i in observed) + "]"
                extra = ""
            if wait:
                return f"(await __bouts.va({k}, async () => {body}{extra}))"
            return f"__bouts.v({k}, () => {body}{extra})"

        self.edits.append(_Edit(call.start_byte, call.end_byte, build))
        return True

    def _comparison(self, node: JsNode) -> tuple[JsNode, str, JsNode] | None:
        """``L op R`` with a relational operator (parentheses aside), whose operands hold no ``await``."""
        while node.type == "parenthesized_expression" and len(self.src.named_children(node)) == 1:
            node = self.src.named_children(node)[0]
        if node.type != "binary_expression":
            return None
        left, op, right = self.src.field(node, "left"), self.src.field(node, "operator"), self.src.field(node, "right")
        if left is None or op is None or right is None or op.type not in _RELATIONAL:
            return None
        if self._has_await(node):
            return None
        return left, op.type, right

    def _cmp(self, call: JsNode, left: JsNode, op: str, right: JsNode) -> bool:
        """``assert.ok(L op R)``: the operands observed (a literal kept on the host), the comparison made
        on the host: a value whose ``valueOf``/``Symbol.toPrimitive`` answers the comparison it reads
        off the test's line is observed as the object it is, and compares as nothing."""
        operands = (left, right)
        consts: list[tuple[int, object]] = []
        observed: list[int] = []
        for i, node in enumerate(operands):
            value = self.values[node.index]
            if isinstance(value, int | float | str) and not isinstance(value, bool):
                consts.append((i, value))
            else:
                observed.append(i)
        k = len(self.sites) + 1
        self.sites[k] = Site("cmp", call.line, "ok", op, tuple(consts))

        def build(render: Callable[[int, int], str], checked: bool) -> str:
            texts = [render(n.start_byte, n.end_byte) for n in operands]
            if checked:
                return (f"__bouts.v({k}, () => ((l, r) => [l, r, l {op} r])(({texts[0]}), ({texts[1]})), "
                        f"'okcmp', {observed!r})")  # fmt: skip
            return f"__bouts.v({k}, () => [" + ", ".join(f"({texts[i]})" for i in observed) + "])"

        self.edits.append(_Edit(call.start_byte, call.end_byte, build))
        return True

    def _throws(self, call: JsNode, method: str, args: list[JsNode]) -> bool:
        if not args:
            return False
        k = self._new_site("throws", call, method)
        first, rest = args[0], args[1:]
        fn = "t" if method == "throws" else "r"

        def build(render: Callable[[int, int], str], checked: bool) -> str:
            target = render(first.start_byte, first.end_byte)
            more = ""
            if checked:
                more = ", () => [" + ", ".join(render(a.start_byte, a.end_byte) for a in rest) + "]"
            return f"__bouts.{fn}({k}, {target}{more})"

        self.edits.append(_Edit(call.start_byte, call.end_byte, build))
        return True

    def _wrap_test(self, fn: JsNode) -> None:
        src = self.src
        body = src.field(fn, "body")
        params = src.field(fn, "parameters")
        if body is None or body.type != "statement_block":
            self.unwrapped += 1
            return
        if params is not None and len(src.named_children(params)) > 1:
            self.unwrapped += 1
            return  # a `done` callback: the test ends when it is called, not when the body returns
        is_async = any(c.type == "async" for c in src.children(fn))
        for stmt in src.named_children(body):
            self._plain(stmt)
        end = self._new_site("end", fn)

        def build(render: Callable[[int, int], str], checked: bool) -> str:
            inner = render(body.start_byte, body.end_byte)
            if is_async:
                return f"{{ const __r = await (async () => {inner})(); __bouts.e({end}); return __r; }}"
            return f"{{ const __r = (() => {inner})(); __bouts.e({end}); return __r; }}"

        self.edits.append(_Edit(body.start_byte, body.end_byte, build))

    def _plain(self, stmt: JsNode) -> None:
        """A plain call that is a statement of a test's body, or the value of a declaration there."""
        src = self.src
        target: JsNode | None = None
        if stmt.type == "expression_statement":
            inner = src.named_children(stmt)
            target = inner[0] if len(inner) == 1 else None
        elif stmt.type in ("lexical_declaration", "variable_declaration"):
            decls = src.named_children(stmt)
            single = len(decls) == 1 and decls[0].type == "variable_declarator"
            target = src.field(decls[0], "value") if single else None
        if target is None:
            return
        awaited = target.type == "await_expression"
        call = src.named_children(target)[0] if awaited and src.named_children(target) else target
        if call.type not in ("call_expression", "new_expression") or self._assertion(call) is not None:
            return
        if call.type == "call_expression" and self._test_function(call) is not None:
            return
        if not awaited and self._has_await(call):
            return
        k = self._new_site("plain", call)
        node = target

        def build(render: Callable[[int, int], str], checked: bool) -> str:
            text = render(call.start_byte, call.end_byte)
            if awaited:
                return f"(await __bouts.pa({k}, () => {text}))"
            return f"__bouts.p({k}, () => {text})"

        self.edits.append(_Edit(node.start_byte, node.end_byte, build))

    def _render(self, checked: bool) -> str:
        data = self.src.data
        edits = sorted(self.edits, key=lambda e: (e.start, -e.end))

        def render(lo: int, hi: int, skip: _Edit | None = None) -> str:
            out: list[bytes] = []
            pos = lo
            for e in edits:
                if e is skip or e.start < pos or e.end > hi or e.start < lo:
                    continue
                out.append(data[pos : e.start])
                out.append(e.build(lambda a, b, e=e: render(a, b, e), checked).encode())  # type: ignore[misc]
                pos = e.end
            out.append(data[pos:hi])
            return b"".join(out).decode("utf-8", errors="replace")

        return render(0, len(data))
