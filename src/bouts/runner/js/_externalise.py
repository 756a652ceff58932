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

VERSION = "js-externalise/2"
ASSERT_MODULES = {"assert": False, "assert/strict": True}
"""node's assertion modules → whether their default export is ``assert.strict``."""
TEST_MODULES = frozenset({"test"})
FRAMEWORK_MODULES = frozenset({"vitest", "@jest/globals"})
"""vitest's and jest's modules: their ``test``/``it``/``expect`` (also globals when the file imports neither)."""
_WRAPPABLE = frozenset({"test", "it", "only", "skip", "todo", "concurrent", "sequential"})
_MOCK_OR_SNAPSHOT = ("toHaveBeenCalled", "toBeCalled", "toHaveBeenLastCalled", "lastCalledWith", "toHaveReturned",
                     "toReturn", "toHaveBeenNthCalled", "nthCalledWith", "toHaveLastReturned", "lastReturnedWith",
                     "toHaveNthReturned", "nthReturnedWith", "Snapshot", "toSatisfy")  # fmt: skip
"""Matchers on mock functions and snapshots: their subject is a function or a file, not a value."""
_PREDICATES = frozenset({"toBeTruthy", "toBeFalsy", "toBeNull", "toBeUndefined", "toBeDefined", "toBeNaN"})
_ORDER = {"toBeGreaterThan": ">", "toBeGreaterThanOrEqual": ">=", "toBeLessThan": "<", "toBeLessThanOrEqual": "<="}
_EQUALS = frozenset({"toBe", "toEqual", "toStrictEqual"})
_THROWS = frozenset({"toThrow", "toThrowError"})
EQ = frozenset({"equal", "strictEqual", "deepEqual", "deepStrictEqual", "partialDeepStrictEqual"})
NE = frozenset({"notEqual", "notStrictEqual", "notDeepEqual", "notDeepStrictEqual"})
PAIRED = frozenset({"match", "doesNotMatch"})
"""Compared with the reference's value of their operand (stricter than the assertion: a regex is
not evaluated on the host)."""
_STRICT = {"equal": "strictEqual", "deepEqual": "deepStrictEqual", "notEqual": "notStrictEqual",
           "notDeepEqual": "notDeepStrictEqual"}  # fmt: skip
KINDS = ("eq", "ne", "ok", "cmp", "paired", "iferror", "fail", "throws", "plain", "end", "pred", "length",
         "instance", "close", "nothrow")
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
    reads_seed_env: bool = False
    """The file still reads ``BOUTS_SEED`` from the environment (a form the rewrite does not inline)."""


@dataclass(frozen=True)
class _Edit:
    start: int
    end: int
    build: Callable[[Callable[[int, int], str], bool], str]
    """``build(render, checked)``: the replacement, ``render(a, b)`` the rewritten text of a sub-range."""


def rewrite(text: str, path: str, seed: int | None = None) -> Rewrite | None:
    """The rewrite of one test file, or None when it cannot be parsed (then it runs as written).

    ``seed``: the phase's seed, written in place of ``process.env.BOUTS_SEED`` (both texts), so the
    test process needs no variable a plain run of the code would not have (docs/javascript.md)."""
    dialect = jsast.dialect_for(path) or "javascript"
    src = jsast.parse(text, dialect)
    if not isinstance(src, JsSource):
        return None
    return _Rewriter(src, seed).run()


class _Rewriter:
    def __init__(self, src: JsSource, seed: int | None = None) -> None:
        self.src = src
        self.seed = seed
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
        self.expects: set[str] = {"expect"}  # vitest's and jest's expect (a global, or imported)
        self.vitest = False
        framework_names = False
        for imp in jsast.imports(src):
            if imp.module in FRAMEWORK_MODULES:
                self.vitest = self.vitest or imp.module == "vitest"
                for local, imported in imp.names:
                    if imported in ("test", "it"):
                        self.tests.add(local)
                        framework_names = True
                    elif imported == "expect":
                        self.expects.add(local)
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
        self.node_test = bool(self.tests) and not framework_names
        if not self.node_test:
            self.tests |= {"test", "it"}  # jest's globals (vitest's: the runner sets `globals: true`)

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

    def _matcher(self, call: JsNode) -> tuple[JsNode, list[str], str, list[JsNode]] | None:
        """``expect(x).toBe(y)`` (``.not``, ``.resolves``, ``.rejects`` between), vitest's and jest's:
        (the ``expect(x)`` call, the modifiers in order, the matcher, the matcher's arguments)."""
        callee = self.src.field(call, "function")
        if callee is None or callee.type != "member_expression":
            return None
        prop = self.src.field(callee, "property")
        obj = self.src.field(callee, "object")
        mods: list[str] = []
        while obj is not None and obj.type == "member_expression":
            mod = self.src.field(obj, "property")
            if mod is None or self.src.text(mod) not in ("not", "resolves", "rejects"):
                return None
            mods.insert(0, self.src.text(mod))
            obj = self.src.field(obj, "object")
        if obj is None or prop is None or obj.type != "call_expression":
            return None
        inner = self.src.field(obj, "function")
        if inner is None or inner.type != "identifier" or self.src.text(inner) not in self.expects:
            return None
        args = self.src.field(call, "arguments")
        return obj, mods, self.src.text(prop), self.src.named_children(args) if args is not None else []

    def _expect_member(self, call: JsNode) -> str | None:
        """``expect.assertions(n)`` / ``expect.hasAssertions()``: the method, else None."""
        callee = self.src.field(call, "function")
        if callee is None or callee.type != "member_expression":
            return None
        obj, prop = self.src.field(callee, "object"), self.src.field(callee, "property")
        if obj is None or prop is None or obj.type != "identifier" or self.src.text(obj) not in self.expects:
            return None
        return self.src.text(prop)

    def _test_kind(self, call: JsNode) -> str | None:
        """``wrap`` when ``call`` registers a test whose function can be wrapped (``test``, ``it``,
        ``test.only``...), ``other`` for a registration that cannot (``test.each(table)(name, fn)``,
        ``test.skipIf(c)(...)``, ``test.fails``), None when it registers no test."""
        callee = self.src.field(call, "function")
        if callee is None:
            return None
        if callee.type == "call_expression":  # test.each([...])('name', fn)
            inner = self.src.field(callee, "function")
            root = self.src.text(inner).split(".")[0] if inner is not None else ""
            return "other" if root in self.tests | self.test_modules else None
        name = self.src.text(callee)
        base = name.split(".")
        if name in self.tests:
            return "wrap"
        if len(base) >= 2 and base[0] in self.tests | self.test_modules:
            if all(b in _WRAPPABLE for b in base[1:]):
                return "wrap"
            return "other" if base[-1] not in ("describe", "suite") else None
        return None

    def _test_call(self, call: JsNode) -> bool:
        """Whether ``call`` registers a test whose function can be wrapped."""
        return self._test_kind(call) == "wrap"

    def _test_function(self, call: JsNode) -> JsNode | None:
        """The function literal a ``test(...)``/``it(...)`` call registers, if it is one (the last
        function among its arguments: vitest takes a timeout after it)."""
        if not self._test_call(call):
            return None
        args = self.src.field(call, "arguments")
        fns = [a for a in self.src.named_children(args) if a.type in _FUNCTIONS] if args is not None else []
        return fns[-1] if fns else None

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
            elif (self._test_call(node) and self._has_body(node)) or self._test_kind(node) == "other":
                self.unwrapped += 1  # a function passed by name, a table of tests: its end is not observed
            found = self._assertion(node)
            if found is None:
                matcher = self._matcher(node)
                if matcher is not None:
                    self.total += 1
                    why = self._expect(node, *matcher)
                    if why is None:
                        self.done += 1
                    else:
                        self.skipped.append((node.line, why))
                elif self._expect_member(node) in ("assertions", "hasAssertions"):
                    # Counts matcher calls, which graded text no longer makes: checked text only.
                    self.edits.append(_Edit(node.start_byte, node.end_byte,
                                            lambda render, checked, n=node: render(n.start_byte, n.end_byte)
                                            if checked else "undefined"))  # fmt: skip
                continue
            self.total += 1
            if self._site(node, *found):
                self.done += 1
            else:
                self.skipped.append((node.line, f"assert.{found[0]} in this form is decided in the test process"))
        for fn in wrapped_tests:
            self._wrap_test(fn)
        inlined = self._inline_seed()
        graded = self._render(False)
        checked = self._render(True)
        reads = src.data.count(b"BOUTS_SEED") > inlined
        return Rewrite(graded, checked, dict(self.sites), self.total, self.done, self.unwrapped, self.skipped, reads)

    def _inline_seed(self) -> int:
        """``process.env.BOUTS_SEED`` (or ``process.env["BOUTS_SEED"]``) → the seed's text; how many."""
        if self.seed is None:
            return 0
        count = 0
        for node in self.src.nodes:
            if node.type not in ("member_expression", "subscript_expression"):
                continue
            text = self.src.text(node).replace(" ", "").replace("'", '"')
            if text in ("process.env.BOUTS_SEED", 'process.env["BOUTS_SEED"]'):
                literal = repr(str(self.seed))
                self.edits.append(_Edit(node.start_byte, node.end_byte, lambda render, checked, v=literal: v))
                count += 1
        return count

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

    def _expect(self, call: JsNode, subject_call: JsNode, mods: list[str], matcher: str,
                args: list[JsNode]) -> str | None:  # fmt: skip
        """An ``expect(x)...matcher(args)`` site; None when externalised, else why not.

        Graded text: the subject (awaited under ``.resolves``) and the arguments that are not
        literals, observed; ``toThrow`` → how the function ended (``__bouts.t``), ``.rejects`` → how
        the promise settled (``__bouts.r``). Checked text: the same values, and the original matcher
        run on them (``__bouts.x``/``xa``/``tx``/``rx`` with a checker built from the call)."""
        src = self.src
        inner = src.field(subject_call, "arguments")
        subject = src.named_children(inner) if inner is not None else []
        if len(subject) != 1 or subject[0].type == "spread_element" or any(a.type == "spread_element" for a in args):
            return "expect(...) with a spread or other than one subject is decided in the test process"
        if any(part in matcher for part in _MOCK_OR_SNAPSHOT):
            return f"{matcher} (mocks, snapshots) is decided in the test process"
        operands = [subject[0], *args]
        if any(self._uses_expect(n) for n in operands):
            return "asymmetric matchers (expect.any(...)) are decided in the test process"
        negated = mods.count("not") % 2 == 1
        resolves, rejects = "resolves" in mods, "rejects" in mods
        if resolves and rejects:
            return "expect(...).resolves.rejects is decided in the test process"
        wait = any(self._has_await(n) for n in operands)

        def checker(render: Callable[[int, int], str], var: str, drop: str = "") -> str:
            rest = "".join(f".{m}" for m in mods if m != drop)
            texts = ", ".join(render(a.start_byte, a.end_byte) for a in args)
            return f"({var}) => {src.text(src.field(subject_call, 'function'))}({var}){rest}.{matcher}({texts})"

        if rejects or matcher in _THROWS:
            if rejects and negated:
                return "expect(...).rejects.not is decided in the test process"
            kind = "throws" if (rejects or not negated) else "nothrow"
            k = self._new_site(kind, call, matcher)
            fn = "r" if rejects else "t"

            def build_throw(render: Callable[[int, int], str], checked: bool) -> str:
                target = render(subject[0].start_byte, subject[0].end_byte)
                if checked:
                    return f"__bouts.{fn}x({k}, ({target}), {checker(render, '__f')})"
                return f"__bouts.{fn}({k}, ({target}))"

            self.edits.append(_Edit(call.start_byte, call.end_byte, build_throw))
            return None
        literal = [self._literal(n) for n in operands]
        consts: list[tuple[int, object]] = []
        op = "not" if negated else ""
        if matcher in _EQUALS and len(args) == 1:
            kind = "ne" if negated else "eq"
            observed = [0, 1] if negated else [i for i in (0, 1) if not literal[i]]
        elif matcher in _PREDICATES and not args:
            kind, observed = "pred", [0]
        elif matcher in _ORDER and len(args) == 1 and not negated:
            kind, op, observed = "cmp", _ORDER[matcher], []
            for i, node in enumerate(operands):
                value = self.values[node.index]
                if isinstance(value, int | float) and not isinstance(value, bool):
                    consts.append((i, value))
                else:
                    observed.append(i)
        elif matcher in ("toHaveLength", "toBeCloseTo") and 1 <= len(args) <= 2 and not negated:
            kind, observed = ("length" if matcher == "toHaveLength" else "close"), []
            for i, node in enumerate(operands):
                value = self.values[node.index]
                if i > 0 and isinstance(value, int | float) and not isinstance(value, bool):
                    consts.append((i, value))
                else:
                    observed.append(i)
        elif matcher == "toBeInstanceOf" and len(args) == 1 and not negated:
            kind, observed = "instance", [0]
        else:
            # Any other matcher, negated or not: its operands must be the reference's values (the
            # reference's checked run showed the matcher holds on them; stricter than the matcher).
            kind, observed = "paired", [i for i in range(len(operands)) if i == 0 or not literal[i]]
        k = len(self.sites) + 1
        self.sites[k] = Site(kind, call.line, matcher, op, tuple(consts))
        asynchronous = resolves or wait

        def build(render: Callable[[int, int], str], checked: bool) -> str:
            texts = [render(n.start_byte, n.end_byte) for n in operands]
            if resolves:
                texts[0] = f"await ({texts[0]})"
            head = "async () => " if asynchronous else "() => "
            if checked:
                body = "[" + ", ".join(f"({t})" for t in texts) + "]"
                fn = "xa" if asynchronous else "x"
                args_text = ", ".join(f"__a[{i + 1}]" for i in range(len(args)))
                rest = "".join(f".{m}" for m in mods if m != "resolves")
                expect = src.text(src.field(subject_call, "function"))
                check = f"(__a) => {expect}(__a[0]){rest}.{matcher}({args_text})"
                text = f"__bouts.{fn}({k}, {head}{body}, {observed!r}, {check})"
            else:
                body = "[" + ", ".join(f"({texts[i]})" for i in observed) + "]"
                text = f"__bouts.{'va' if asynchronous else 'v'}({k}, {head}{body})"
            return f"(await {text})" if wait else text

        self.edits.append(_Edit(call.start_byte, call.end_byte, build))
        return None

    def _uses_expect(self, node: JsNode) -> bool:
        """Whether ``node`` reads ``expect`` itself (``expect.any(Number)``, ``expect.objectContaining``)."""
        return any(n.type == "identifier" and self.src.text(n) in self.expects for n in self.src.walk(node))

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
        names = src.named_children(params) if params is not None else []
        if params is not None and params.type == "identifier":
            names = [params]  # `done => ...`
        done = len(names) > 1 if self.node_test else (
            len(names) >= 1 and names[0].type in ("identifier", "required_parameter") and not self.vitest)  # fmt: skip
        if done:
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
        if call.type == "call_expression" and (self._matcher(call) is not None or self._expect_member(call)):
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
