"""Example arguments from a JavaScript challenge's visible tests (``_examples`` for JavaScript):
pure, source text in, literal values out, through ``bouts.jsast``.

The first call of a callable (``f(...)``, ``x.f(...)``, ``new C(...)``) whose arguments are all
written out in full gives the arguments a generated test uses for the parameters it does not
probe. An object argument keeps its literal properties and drops the others (a callback such as
``now: clock.now`` cannot be copied into a test; the callee's default takes its place). Only the
visible tests are read: their content is already public.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from bouts.adversarial._examples import Call
from bouts.adversarial._model import Param
from bouts.jsast import (
    NOT_LITERAL,
    Container,
    JsNode,
    JsSource,
    NotAnalysed,
    dialect_for,
    literal_values,
    parse,
    to_python,
)

MAX_PER_NAME = 8
MAX_CHARS = 2_000
_THROWS = re.compile(r"\b(throws|rejects|toThrow\w*|rejects\.\w+)\s*$")


def js_example_calls(sources: Mapping[str, str]) -> dict[str, list[Call]]:
    """Callee name → literal calls (positional only), in file and line order."""
    out: dict[str, list[Call]] = {}
    for rel in sorted(sources):
        dialect = dialect_for(rel)
        src = parse(sources[rel], dialect) if dialect else None
        if src is None or isinstance(src, NotAnalysed):
            continue
        values = literal_values(src)
        for node in src.nodes:
            if node.type not in ("call_expression", "new_expression"):
                continue
            callee = src.field(node, "function" if node.type == "call_expression" else "constructor")
            args = src.field(node, "arguments")
            if callee is None or args is None or args.type != "arguments":
                continue
            if callee.type == "member_expression":
                callee = src.field(callee, "property")
            if callee is None or callee.type not in ("identifier", "property_identifier"):
                continue
            name = src.text(callee, 200)
            if len(out.get(name, ())) >= MAX_PER_NAME or args.end_byte - args.start_byte > MAX_CHARS:
                continue
            if _expects_error(src, node):
                continue  # an invalid call on purpose: not an example of valid arguments
            call = _literal_args(src, src.named_children(args), values)
            if call is not None:
                out.setdefault(name, []).append((tuple(call), {}))
    return out


def _expects_error(src: JsSource, node: JsNode) -> bool:
    """Inside ``assert.throws(...)``, ``assert.rejects(...)`` or ``expect(...).toThrow()``."""
    for up in src.ancestors(node):
        if up.type == "call_expression":
            callee = src.field(up, "function")
            if callee is not None and _THROWS.search(src.text(callee, 400)):
                return True
    return False


def _literal_args(src: JsSource, args: list[JsNode], values: list[object]) -> list[object] | None:
    out: list[object] = []
    for a in args:
        v = values[a.index]
        if v is NOT_LITERAL and a.type == "object":
            v = _partial_object(src, a, values)
        if v is NOT_LITERAL:
            return None
        out.append(to_python(v) if isinstance(v, Container) else v)
    return out


def _partial_object(src: JsSource, node: JsNode, values: list[object]) -> object:
    items = []
    for item in src.named_children(node):
        if item.type != "pair":
            continue
        key, value = src.field(item, "key"), src.field(item, "value")
        if key is None or value is None or values[value.index] is NOT_LITERAL:
            continue
        k = values[key.index] if key.type in ("string", "number") else src.text(key, 200)
        items.append((k, values[value.index]))
    return Container("object", tuple(items))


def js_bind(params: Sequence[Param], calls: Sequence[Call]) -> list[object] | None:
    """The first of ``calls`` that gives every parameter without a default, as positional values."""
    required = sum(1 for p in params if not p.has_default)
    for args, _ in calls:
        if required <= len(args) <= len(params):
            return list(args)
    return None
