"""One JavaScript/TypeScript file of a tree, parsed once, with what the integrity rules read from it.

The JavaScript counterpart of ``_tree.SourceFile``: the parsed source (``bouts.jsast``), the
literals it writes as scalar keys (``_literals.key_of``) and as structure keys
(``_structures``), so that ``"19.99"``, ``19.99`` and ``Decimal("19.99")`` in a Python test and
``'19.99'``/``19.99`` in a JavaScript file are one value, and ``[["Ajax", "Benfica", 2, 1]]`` is the
same table whether written as a JavaScript array, a ``new Set``, an object or a JSON string.

Literals are not read where they describe rather than compute: comments (JSDoc included), type
positions (``type Status = "open"``), ``throw`` statements and ``new ...Error(...)`` arguments (a
visible ``assert.throws(fn, /message/)`` needs the honest message), and module specifiers.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property

from bouts import jsast
from bouts.jsast import NOT_LITERAL, Container, JsNode, JsSource
from bouts.judges.integrity._literals import LitKey, key_of
from bouts.judges.integrity._structures import SKey, is_container, sub_structures, value_key

_SKIPPED_TYPES = frozenset({
    "throw_statement", "comment", "type_annotation", "type_alias_declaration", "interface_declaration",
    "type_arguments", "type_parameters", "literal_type", "ambient_declaration", "import_statement",
    "return_type",
})  # fmt: skip
_SCALAR_TYPES = frozenset({"number", "string", "template_string", "unary_expression"})
_FOLDED_TYPES = frozenset({"binary_expression", "call_expression", "template_string", "template_substitution",
                           "parenthesized_expression"})
"""Expressions ``jsast`` folds to a scalar (``"19" + ".99"``, ``String.fromCharCode(...)``, ``[...].join("")``):
read as the literal they build, their pieces not again."""
_MODULE_CALLS = frozenset({"require", "require.resolve", "import.meta.resolve"})
_KINDS = {"array": "seq", "set": "set", "object": "map", "map": "map"}


@dataclass(frozen=True, eq=False)
class JsFile:
    """One JavaScript/TypeScript file, decoded and parsed once."""

    rel: str
    text: str
    parsed: JsSource | None
    """None when the source was not analysed (``error`` says why: too large, too deep...)."""
    error: str | None = None

    @cached_property
    def dotted(self) -> list[str | None]:
        return jsast.dotted_names(self.parsed) if self.parsed is not None else []

    @cached_property
    def aliases(self) -> dict[str, str]:
        return jsast.aliases(self.parsed, self.dotted) if self.parsed is not None else {}

    @cached_property
    def values(self) -> list[object]:
        return jsast.literal_values(self.parsed, self.dotted) if self.parsed is not None else []

    def name(self, node: JsNode) -> str:
        """The dotted name of ``node`` with imports and aliases applied (``""`` when it has none)."""
        return jsast.resolve(self.dotted[node.index], self.aliases)

    @cached_property
    def skipped(self) -> list[bool]:
        """Per node: inside a comment, a type, a ``throw``, an error's arguments or a module specifier."""
        src = self.parsed
        if src is None:
            return []
        out = [False] * len(src.nodes)
        i = 0
        while i < len(src.nodes):
            node = src.nodes[i]
            if self._skips(node):
                out[i : node.stop] = [True] * (node.stop - i)
                i = node.stop
            else:
                i += 1
        return out

    def _skips(self, node: JsNode) -> bool:
        if node.type in _SKIPPED_TYPES:
            return True
        if node.field == "source":  # export ... from "x"
            return True
        if node.type != "arguments":
            return False
        src = self.parsed
        assert src is not None
        call = src.parent(node)
        if call is None:
            return False
        if call.type == "new_expression":
            callee = src.field(call, "constructor")
            return callee is not None and self.dotted[callee.index] is not None and \
                str(self.dotted[callee.index]).endswith("Error")
        callee = src.field(call, "function")
        return callee is not None and (callee.type == "import" or self.dotted[callee.index] in _MODULE_CALLS)

    @cached_property
    def literals(self) -> tuple[tuple[LitKey, JsNode], ...]:
        """The scalar literals the file writes (strings, numbers, ``-5``; object keys written as
        names count too: ``{SKU1: 5}`` writes ``"SKU1"``), outside the skipped places."""
        src = self.parsed
        if src is None:
            return ()
        out = []
        values, skipped = self.values, self.skipped
        for node in src.nodes:
            if skipped[node.index]:
                continue
            if node.type in _SCALAR_TYPES or node.type in _FOLDED_TYPES:
                value = values[node.index]
                if value is NOT_LITERAL or isinstance(value, Container):
                    continue
                parent = src.parent(node)
                if parent is not None and (parent.type in _FOLDED_TYPES or parent.type == "unary_expression") \
                        and values[parent.index] is not NOT_LITERAL and not isinstance(values[parent.index], Container):
                    continue  # read whole, with its sign, or as what the expression around it builds
                key = key_of(value)
            elif node.type == "property_identifier" and node.field == "key":
                key = key_of(src.text(node))
            else:
                continue
            if key is not None:
                out.append((key, node))
        return tuple(out)

    @cached_property
    def skeys(self) -> dict[int, SKey | None]:
        """The structure key of each literal value (by ``id`` of the value)."""
        memo: dict[int, SKey | None] = {}
        for value in self.values:
            if isinstance(value, Container):
                skey(value, memo)
        return memo

    def key(self, node: JsNode) -> SKey | None:
        """The structure (or scalar) key of the value ``node`` writes, if it is written out in full."""
        value = self.values[node.index]
        if value is NOT_LITERAL:
            return None
        if isinstance(value, Container):
            return self.skeys.get(id(value))
        return scalar_skey(value)

    @cached_property
    def structures(self) -> Counter[SKey]:
        """How often the file writes each structure: each outermost literal container (or string
        spelling one) with every structure nested in it, outside the skipped places."""
        counts: Counter[SKey] = Counter()
        src = self.parsed
        if src is None:
            return counts
        skipped = self.skipped
        i = 0
        while i < len(src.nodes):
            node = src.nodes[i]
            if not skipped[node.index] and node.named:
                value = self.values[node.index]
                spelled = isinstance(value, str) and value.strip()[:1] in ("[", "(", "{")
                if isinstance(value, Container) or spelled:
                    key = self.key(node)
                    if is_container(key):
                        counts.update(sub_structures(key))  # type: ignore[arg-type]
                        i = node.stop
                        continue
            i += 1
        return counts

    def line(self, lineno: int | None) -> str:
        return self.parsed.line_text(lineno) if self.parsed is not None else ""


def scalar_skey(value: object) -> SKey | None:
    if isinstance(value, bool) or value is None:
        return ("const", repr(value))
    return value_key(value)


def skey(value: Container, memo: dict[int, SKey | None]) -> SKey | None:
    """The structure key of a literal container (iterative: containers nest as deep as the tree)."""
    stack: list[tuple[Container, bool]] = [(value, False)]
    while stack:
        current, ready = stack.pop()
        if id(current) in memo:
            continue
        if not ready:
            stack.append((current, True))
            stack.extend((c, False) for c in _children(current) if isinstance(c, Container) and id(c) not in memo)
            continue
        memo[id(current)] = _build(current, memo)
    return memo[id(value)]


def _children(value: Container) -> list[object]:
    if value.kind in ("object", "map"):
        return [part for pair in value.items for part in pair]  # type: ignore[union-attr]
    return list(value.items)


def _build(value: Container, memo: dict[int, SKey | None]) -> SKey | None:
    def one(item: object) -> SKey | None:
        return memo.get(id(item)) if isinstance(item, Container) else scalar_skey(item)

    kind = _KINDS[value.kind]
    if kind == "map":
        pairs = [(one(k), one(v)) for k, v in value.items]  # type: ignore[misc]
        return None if any(k is None or v is None for k, v in pairs) else ("map", frozenset(pairs))
    elements = [one(item) for item in value.items]
    if any(e is None for e in elements):
        return None
    return ("set", frozenset(elements)) if kind == "set" else ("seq", tuple(elements))


def read_js(rel: str, data: bytes) -> JsFile:
    """Decode and parse; undecodable bytes are replaced, a source past the parser's bounds is kept unparsed."""
    text = data.decode("utf-8", errors="replace")
    dialect = jsast.dialect_for(rel) or "javascript"
    parsed = jsast.parse(text, dialect)
    if isinstance(parsed, jsast.NotAnalysed):
        return JsFile(rel, text, None, parsed.reason)
    return JsFile(rel, text, parsed)
