"""Functions: every function of a source, its name, its enclosing function, and the code it owns.

A JavaScript module is mostly functions inside functions: a factory returning an object of
methods, a class, callbacks. ``functions(src)`` names each one the way a reader would:

- ``function f() {}``, ``const f = () => {}``, ``f = function () {}`` → ``f``;
- a method of a class or an object literal, a class field holding a function → its property name;
- ``module.exports.f = ...`` / ``exports.f = ...`` → ``f``;
- anything else (a callback, an IIFE, a returned arrow) is anonymous (``name`` None).

``qualname`` joins the names of the enclosing named functions and classes: the ``hit`` method of
the object returned by ``createLimiter`` is ``createLimiter.hit``. ``owned(src, fn, units)`` walks a
function's own code, leaving out the nested functions that are units of their own.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from bouts.jsast._parse import JsNode, JsSource
from bouts.jsast._values import string_value

FUNCTION_TYPES = frozenset({
    "function_declaration", "generator_function_declaration", "function_expression", "function",
    "generator_function", "arrow_function", "method_definition",
})  # fmt: skip
CLASS_TYPES = frozenset({"class_declaration", "class", "abstract_class_declaration"})
COMPARISON_OPERATORS = frozenset({"==", "===", "!=", "!==", "in", "instanceof", "<", "<=", ">", ">="})
EQUALITY_OPERATORS = frozenset({"==", "===", "!=", "!=="})


@dataclass(frozen=True)
class JsFunction:
    """One function of a source."""

    node: JsNode
    name: str | None
    """None for an anonymous function (a callback, an IIFE)."""
    qualname: str
    """Enclosing named functions and classes, dot-joined (``createLimiter.hit``, ``Ledger.cancel``);
    an anonymous one is ``<anonymous@LINE>`` inside its enclosing name."""
    params: tuple[JsNode, ...]
    """The formal parameters (``x => x`` has one)."""
    body: JsNode | None
    """The ``statement_block``, or the expression of an arrow with an expression body."""
    enclosing: int
    """Index (in the ``functions`` list) of the nearest enclosing function, or -1."""
    exported: bool
    """Declared by an ``export`` statement, or assigned to ``module.exports``/``exports``."""

    @property
    def line(self) -> int:
        return self.node.line

    @property
    def end_line(self) -> int:
        return self.node.end_line


def functions(src: JsSource) -> list[JsFunction]:
    """Every function of ``src`` in source order (outer before inner)."""
    out: list[JsFunction] = []
    open_fns: list[tuple[int, int]] = []  # (stop, index in out) of the functions we are inside
    open_scopes: list[tuple[int, str]] = []  # (stop, name) of named functions and classes we are inside
    for node in src.nodes:
        while open_fns and node.index >= open_fns[-1][0]:
            open_fns.pop()
        while open_scopes and node.index >= open_scopes[-1][0]:
            open_scopes.pop()
        if not node.named:
            continue  # the ``function`` and ``class`` keywords are tokens of the same names
        if node.type in CLASS_TYPES:
            name_node = src.field(node, "name")
            class_name = src.text(name_node, 200) if name_node is not None else _assigned_name(src, node)
            if class_name:
                open_scopes.append((node.stop, class_name))
            continue
        if node.type not in FUNCTION_TYPES:
            continue
        name = _function_name(src, node)
        prefix = ".".join(n for _, n in open_scopes)
        shown = name or f"<anonymous@{node.line}>"
        qualname = f"{prefix}.{shown}" if prefix else shown
        body = src.field(node, "body")
        out.append(JsFunction(node, name, qualname, _params(src, node), body,
                              open_fns[-1][1] if open_fns else -1, _exported(src, node)))
        open_fns.append((node.stop, len(out) - 1))
        if name:
            open_scopes.append((node.stop, name))
    return out


def _params(src: JsSource, fn: JsNode) -> tuple[JsNode, ...]:
    params = src.field(fn, "parameters")
    if params is not None:
        return tuple(src.named_children(params))
    single = src.field(fn, "parameter")  # x => x
    return (single,) if single is not None else ()


def _function_name(src: JsSource, fn: JsNode) -> str | None:
    own = src.field(fn, "name")
    if own is not None:
        return _property_name(src, own)
    return _assigned_name(src, fn)


def _assigned_name(src: JsSource, node: JsNode) -> str | None:
    """The name a function or class expression is bound to by its parent, if any."""
    parent = src.parent(node)
    while parent is not None and parent.type in ("parenthesized_expression", "as_expression",
                                                 "satisfies_expression", "non_null_expression"):
        node, parent = parent, src.parent(parent)
    if parent is None:
        return None
    if parent.type == "variable_declarator" and node.field == "value":
        target = src.field(parent, "name")
        return src.text(target, 200) if target is not None and target.type == "identifier" else None
    if parent.type == "pair" and node.field == "value":
        key = src.field(parent, "key")
        return _property_name(src, key) if key is not None else None
    if parent.type in ("field_definition", "public_field_definition") and node.field == "value":
        prop = src.field(parent, "property") or src.field(parent, "name")
        return _property_name(src, prop) if prop is not None else None
    if parent.type == "assignment_expression" and node.field == "right":
        left = src.field(parent, "left")
        if left is None:
            return None
        if left.type == "identifier":
            return src.text(left, 200)
        if left.type == "member_expression":
            prop = src.field(left, "property")
            return src.text(prop, 200) if prop is not None else None
    return None


def _property_name(src: JsSource, node: JsNode) -> str | None:
    if node.type in ("string", "template_string"):
        return string_value(src, node)
    if node.type == "computed_property_name":
        return None
    return src.text(node, 200)


def _exported(src: JsSource, fn: JsNode) -> bool:
    """``export function f``, ``export default ...``, ``export const f = ...``, ``module.exports.f = ...``."""
    parent = src.parent(fn)
    if parent is None:
        return False
    if parent.type == "export_statement":
        return True
    if parent.type == "variable_declarator" and fn.field == "value":
        declaration = src.parent(parent)
        outer = src.parent(declaration) if declaration is not None else None
        return outer is not None and outer.type == "export_statement"
    if parent.type == "assignment_expression" and fn.field == "right":
        left = src.field(parent, "left")
        text = src.text(left, 200) if left is not None else ""
        return text == "module.exports" or text.startswith(("module.exports.", "exports."))
    return False


def owned(src: JsSource, fn: JsFunction, units: frozenset[int]) -> Iterator[JsNode]:
    """The nodes of ``fn``'s parameters and body, leaving out nested functions whose node index is in
    ``units`` (they are judged on their own); other nested functions (callbacks) are included."""
    nodes = src.nodes
    start = fn.node
    i = start.index + 1
    while i < start.stop:
        node = nodes[i]
        if node.index in units:
            i = node.stop
            continue
        yield node
        i += 1


def owned_lines(src: JsSource, fn: JsFunction, units: frozenset[int]) -> set[int]:
    """The lines of ``fn`` not inside a nested unit (a line a nested unit starts on is the unit's)."""
    lines = set(range(fn.line, fn.end_line + 1))
    nodes = src.nodes
    i = fn.node.index + 1
    while i < fn.node.stop:
        node = nodes[i]
        if node.index in units:
            lines -= set(range(node.line, node.end_line + 1))
            i = node.stop
        else:
            i += 1
    return lines


def comparisons(src: JsSource, operators: frozenset[str] = EQUALITY_OPERATORS) -> Iterator[tuple[JsNode, str]]:
    """``(node, operator)`` of every binary expression whose operator is in ``operators``."""
    for node in src.nodes:
        if node.type == "binary_expression":
            op = src.field(node, "operator")
            if op is not None and op.type in operators:
                yield node, op.type
