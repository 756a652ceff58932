"""Where a JavaScript file writes structured literals, and in which context: the JavaScript
counterpart of ``_structures.occurrences`` (same contexts, same rules, see docs/integrity.md).

- ``key`` / ``value``: a key or value of an object literal or of a ``new Map([...])``;
- ``member``: an element of a ``new Set([...])``;
- ``compare``: an operand of ``==``/``===``/``!=``/``!==``/``in``, a ``case`` of a ``switch``, or the
  receiver of ``.includes(x)``/``.has(x)`` (a name bound to a literal is read through);
- ``stored``: anything else (assigned, returned, exported).

The literal arguments of an ordinary call are data handed to it and are not read; a call that
builds a value from its literal (``new Set``, ``new Map``, ``Object.freeze``, ``Object.fromEntries``,
``JSON.parse``...) stores it, so it is. Iterative, like every walk over a hostile tree.
"""

from __future__ import annotations

from collections.abc import Callable

from bouts.jsast import FUNCTION_TYPES, NOT_LITERAL, Container, JsNode
from bouts.judges.integrity._jsfile import JsFile
from bouts.judges.integrity._structures import Occurrence, SKey, _ordered, is_container

Matcher = Callable[[SKey, str], bool]
_COMPARE = frozenset({"==", "===", "!=", "!==", "in"})
_MEMBERSHIP_CALLS = frozenset({"includes", "has", "indexOf"})
STORING_CALLS = frozenset({"Set", "Map", "Object.freeze", "Object.seal", "Object.fromEntries", "JSON.parse",
                           "Array.from", "Array.of", "structuredClone"})
"""Calls that store the value they are handed (``_values``), so their arguments are read as stored."""
_POP = object()


def bindings(f: JsFile, scope: JsNode) -> dict[str, list[JsNode]]:
    """Names bound to a value written out in full anywhere in ``scope`` (``const ROWS = [...]``)."""
    src = f.parsed
    assert src is not None
    out: dict[str, list[JsNode]] = {}
    for node in src.subtree(scope):
        if node.type != "variable_declarator":
            continue
        target, value = src.field(node, "name"), src.field(node, "value")
        if target is not None and value is not None and target.type == "identifier" \
                and f.values[value.index] is not NOT_LITERAL:
            out.setdefault(src.text(target), []).append(value)
    return out


def module_bindings(f: JsFile) -> dict[str, list[JsNode]]:
    """Names bound to a literal outside any function."""
    src = f.parsed
    assert src is not None
    out: dict[str, list[JsNode]] = {}
    for node in src.walk(src.root, skip=FUNCTION_TYPES):
        if node.type == "variable_declarator":
            target, value = src.field(node, "name"), src.field(node, "value")
            if target is not None and value is not None and target.type == "identifier" \
                    and f.values[value.index] is not NOT_LITERAL:
                out.setdefault(src.text(target), []).append(value)
    return out


def occurrences(f: JsFile, matches: Matcher) -> list[Occurrence]:
    """The structures of ``f`` that ``matches`` accepts in their context, outermost first."""
    src = f.parsed
    if src is None:
        return []
    found: list[Occurrence] = []
    module = module_bindings(f)
    scopes: list[dict[str, list[JsNode]]] = []

    def resolve(operand: JsNode) -> list[JsNode]:
        if f.values[operand.index] is not NOT_LITERAL:
            return [operand]
        if operand.type != "identifier":
            return []
        name = src.text(operand)
        for scope in reversed(scopes):
            if name in scope:
                return scope[name]
        return module.get(name, [])

    def record(key: SKey, ctx: str, anchor: JsNode, origin: int) -> None:
        pending: list[tuple[SKey, str]] = [(key, ctx)]
        while pending:
            current, where = pending.pop()
            if matches(current, where):
                found.append(Occurrence(current, where, anchor, origin))
                continue
            kind, items = current[0], current[1] if is_container(current) else ()
            inner: list[tuple[SKey, str]] = []
            for item in _ordered(kind, items):
                if kind == "map":
                    for sub, sub_ctx in ((item[0], "key"), (item[1], "value" if where != "compare" else where)):
                        if is_container(sub):
                            inner.append((sub, sub_ctx))
                elif is_container(item):
                    inner.append((item, "member" if kind == "set" and where != "compare" else where))
            pending.extend(reversed(inner))

    def literal(node: JsNode, ctx: str, anchor: JsNode | None) -> bool:
        value = f.values[node.index]
        spelled = isinstance(value, str) and value.strip()[:1] in ("[", "(", "{")
        if isinstance(value, Container) or spelled:
            key = f.key(node)
            if is_container(key):
                record(key, ctx, anchor or node, node.index)  # type: ignore[arg-type]
                return True
        return False

    stack: list[object] = [(src.root, "stored", None)]
    while stack:
        item = stack.pop()
        if item is _POP:
            scopes.pop()
            continue
        node, ctx, anchor = item  # type: ignore[misc]
        if f.skipped[node.index] or not node.named:
            continue
        children = src.named_children(node)
        if node.type in FUNCTION_TYPES:
            scopes.append(bindings(f, node))
            stack.append(_POP)
            stack.extend((c, "stored", None) for c in reversed(children))
            continue
        if node.type == "binary_expression" and _operator(f, node) in _COMPARE:
            for operand in (src.field(node, "left"), src.field(node, "right")):
                if operand is None:
                    continue
                literals = resolve(operand)
                if not literals:
                    stack.append((operand, "stored", None))
                for lit in literals:
                    key = f.key(lit)
                    if is_container(key):
                        record(key, "compare", node, lit.index)  # type: ignore[arg-type]
            continue
        if node.type == "switch_case":
            value = src.field(node, "value")
            if value is not None:
                key = f.key(value)
                if is_container(key):
                    record(key, "compare", value, value.index)  # type: ignore[arg-type]
            stack.extend((c, "stored", None) for c in reversed(src.fields(node, "body")))
            continue
        if node.type in ("call_expression", "new_expression") and f.values[node.index] is NOT_LITERAL:
            stack.extend(reversed(_call_parts(f, node, resolve, record)))
            continue
        if literal(node, ctx, anchor):
            continue
        here = anchor or node
        if node.type == "object":
            for child in reversed(children):
                if child.type == "pair":
                    key_node, value_node = src.field(child, "key"), src.field(child, "value")
                    if value_node is not None:
                        stack.append((value_node, "value", here))
                    if key_node is not None and key_node.type == "computed_property_name":
                        stack.extend((k, "key", here) for k in src.named_children(key_node))
                else:
                    stack.append((child, "stored", None))
        elif node.type == "array":
            stack.extend((c, ctx, anchor) for c in reversed(children))
        else:
            stack.extend((c, "stored", None) for c in reversed(children))
    return found


def _call_parts(f: JsFile, call: JsNode, resolve, record) -> list[tuple[JsNode, str, None]]:
    """What to visit of a call that does not build a literal: ``[...].includes(x)`` compares
    against its receiver; any other call's literal arguments are data (not visited)."""
    src = f.parsed
    assert src is not None
    callee = src.field(call, "function") or src.field(call, "constructor")
    args = src.field(call, "arguments")
    parts: list[tuple[JsNode, str, None]] = []
    if callee is not None and f.name(callee) in STORING_CALLS:
        return [(c, "stored", None) for c in src.named_children(call)]
    if callee is not None and callee.type == "member_expression":
        prop, receiver = src.field(callee, "property"), src.field(callee, "object")
        if prop is not None and receiver is not None and src.text(prop) in _MEMBERSHIP_CALLS:
            literals = resolve(receiver)
            for lit in literals:
                key = f.key(lit)
                if is_container(key):
                    record(key, "compare", call, lit.index)
            callee = None if literals else callee
    if callee is not None:
        parts.append((callee, "stored", None))
    for arg in src.named_children(args) if args is not None else []:
        if f.values[arg.index] is NOT_LITERAL:
            parts.append((arg, "stored", None))
    return parts


def _operator(f: JsFile, node: JsNode) -> str | None:
    assert f.parsed is not None
    op = f.parsed.field(node, "operator")
    return op.type if op is not None else None
