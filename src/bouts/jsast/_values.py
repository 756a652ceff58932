"""The values of literal expressions: numbers, strings, and containers written out in full.

``literal_values(src)`` gives every node of a source the value it denotes when that value is known
without running anything, else ``NOT_LITERAL``. It is computed bottom-up over the node table
(children before parents), so it is linear and never recurses:

- ``19.99``, ``0x1F``, ``1_000``, ``10n`` → numbers; ``-5`` → -5; ``'it\\'s'`` and a template
  without substitutions → strings; ``true``/``false`` → booleans; ``null``/``undefined`` → None;
- ``[...]`` → ``Container("array")``; ``{k: v}`` → ``Container("object")`` (keys as written:
  ``{2: x}`` has the key ``2``); ``new Set([...])`` → ``"set"``; ``new Map([[k, v]])`` → ``"map"``;
- ``Object.freeze(v)``, ``structuredClone(v)``, ``Array.from(v)``, ``Array.of(a, b)``,
  ``Object.fromEntries([[k, v]])``, ``JSON.parse("...")`` and ``JSON.stringify(v)`` (at most
  ``MAX_JSON_CHARS``) are the value they build; TypeScript's ``v as T``, ``<T>v``, ``v!`` and
  ``v satisfies T`` are ``v``.

Anything that reads a name, calls something else or spreads is ``NOT_LITERAL``.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Literal

from bouts.jsast._parse import JsNode, JsSource

ContainerKind = Literal["array", "object", "set", "map"]


@dataclass(frozen=True)
class Container:
    """A container written out in full; ``object``/``map`` items are ``(key, value)`` pairs."""

    kind: ContainerKind
    items: tuple[object, ...]


class _NotLiteral:
    def __repr__(self) -> str:
        return "NOT_LITERAL"


NOT_LITERAL: object = _NotLiteral()
"""The value of an expression that is not written out in full."""
MAX_JSON_CHARS = 50_000

_WRAPPERS = frozenset({"parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression",
                       "type_assertion", "template_substitution"})
_TYPES = frozenset({"type_arguments", "type_annotation", "predefined_type", "type_identifier", "generic_type",
                    "array_type", "union_type", "object_type", "literal_type", "tuple_type"})
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_NUMBER = re.compile(r"^(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|[0-9]*\.?[0-9]*(?:[eE][+-]?[0-9]+)?)n?$")
_PASS_THROUGH = frozenset({"Object.freeze", "structuredClone", "Array.from", "Object.seal"})


def number_value(text: str) -> int | float | None:
    """The value of a JavaScript number literal (``1_000``, ``0x1F``, ``1e3``, ``10n``), or None."""
    s = text.replace("_", "")
    if not s or not _NUMBER.match(s):
        return None
    s = s.removesuffix("n")
    try:
        if s[:2].lower() in ("0x", "0o", "0b"):
            return int(s, 0)
        if len(s) > 1 and s[0] == "0" and s.isdigit():
            return int(s, 8) if set(s) <= set("01234567") else int(s)  # legacy octal, sloppy mode
        if re.fullmatch(r"[0-9]+", s):
            return int(s)
        return float(s)
    except ValueError:
        return None


def unescape(raw: str) -> str:
    """The characters a JavaScript escape sequence stands for (``\\n``, ``\\x41``, ``\\u{1F600}``)."""
    body = raw[1:]
    if not body:
        return ""
    head = body[0]
    if head in _ESCAPES and not (head == "0" and len(body) > 1):
        return _ESCAPES[head]
    try:
        if head == "x":
            return chr(int(body[1:3], 16))
        if head == "u":
            code = body[2:-1] if body.startswith("u{") else body[1:5]
            return chr(int(code, 16))
    except (ValueError, OverflowError):
        return body
    if head in "\r\n\u2028\u2029":
        return ""  # a line continuation
    return body


def string_value(src: JsSource, node: JsNode) -> str | None:
    """The value of a string literal or of a template without substitutions."""
    if node.type not in ("string", "template_string"):
        return None
    parts = []
    for child in src.children(node):
        if child.type == "string_fragment":
            parts.append(src.text(child))
        elif child.type == "escape_sequence":
            parts.append(unescape(src.text(child)))
        elif child.type == "template_substitution":
            return None
        elif child.named and child.type != "comment":
            parts.append(src.text(child))  # html_character_reference in JSX strings: kept as written
    return "".join(parts)


def literal_values(src: JsSource, dotted: list[str | None] | None = None) -> list[object]:
    """The value of every node (``NOT_LITERAL`` when it is not written out in full), by index.

    ``dotted`` (``_names.dotted_names``) lets calls like ``Object.freeze(...)`` be recognised; without
    it only plain literals and containers are evaluated.
    """
    nodes = src.nodes
    values: list[object] = [NOT_LITERAL] * len(nodes)
    for node in reversed(nodes):
        values[node.index] = _value(src, node, values, dotted)
    return values


def _value(src: JsSource, node: JsNode, values: list[object], dotted: list[str | None] | None) -> object:
    kind = node.type
    if kind == "number":
        number = number_value(src.text(node))
        return NOT_LITERAL if number is None else number
    if kind in ("string", "template_string"):
        text = string_value(src, node)
        if text is None and kind == "template_string":
            return _template(src, node, values)
        return NOT_LITERAL if text is None else text
    if kind == "binary_expression":
        return _binary(src, node, values)
    if kind in ("true", "false"):
        return kind == "true"
    if kind in ("null", "undefined") or (kind == "identifier" and src.text(node) == "undefined"):
        return None
    if kind == "unary_expression":
        op, arg = src.field(node, "operator"), src.field(node, "argument")
        if op is not None and arg is not None and op.type in ("-", "+") and arg.type == "number":
            number = values[arg.index]
            if isinstance(number, int | float):
                return -number if op.type == "-" else number
        return NOT_LITERAL
    if kind in _WRAPPERS:
        inner = [c for c in src.named_children(node) if c.type not in _TYPES]
        return values[inner[0].index] if len(inner) == 1 else NOT_LITERAL
    if kind == "array":
        return _container("array", [values[c.index] for c in src.named_children(node)])
    if kind == "object":
        return _object(src, node, values)
    if kind in ("new_expression", "call_expression") and dotted is not None:
        return _call(src, node, values, dotted)
    return NOT_LITERAL


def _container(kind: ContainerKind, items: list[object]) -> object:
    if any(v is NOT_LITERAL for v in items):
        return NOT_LITERAL
    return Container(kind, tuple(items))


def _object(src: JsSource, node: JsNode, values: list[object]) -> object:
    items: list[object] = []
    for child in src.named_children(node):
        if child.type != "pair":
            return NOT_LITERAL  # shorthand, spread, method: reads a name or runs code
        key, value = src.field(child, "key"), src.field(child, "value")
        if key is None or value is None:
            return NOT_LITERAL
        if key.type in ("property_identifier", "private_property_identifier"):
            k: object = src.text(key)
        elif key.type == "computed_property_name":
            inner = src.named_children(key)
            k = values[inner[0].index] if len(inner) == 1 else NOT_LITERAL
        else:
            k = values[key.index]
        if k is NOT_LITERAL or values[value.index] is NOT_LITERAL:
            return NOT_LITERAL
        items.append((k, values[value.index]))
    return Container("object", tuple(items))


def _call(src: JsSource, node: JsNode, values: list[object], dotted: list[str | None]) -> object:
    callee = src.field(node, "constructor" if node.type == "new_expression" else "function")
    args_node = src.field(node, "arguments")
    if callee is None:
        return NOT_LITERAL
    name = dotted[callee.index]
    args = [values[a.index] for a in src.named_children(args_node)] if args_node is not None else []
    if any(a is NOT_LITERAL for a in args):
        return NOT_LITERAL
    if node.type == "call_expression" and (folded := _fold_call(src, callee, name, args, values)) is not NOT_LITERAL:
        return folded
    if node.type == "new_expression":
        if name == "Set" and len(args) <= 1:
            items = args[0] if args else Container("array", ())
            return Container("set", items.items) if _is(items, "array") else NOT_LITERAL
        if name == "Map" and len(args) <= 1:
            return _pairs("map", args[0] if args else Container("array", ()))
        return NOT_LITERAL
    if name in _PASS_THROUGH and len(args) == 1:
        return args[0]
    if name == "Array.of":
        return Container("array", tuple(args))
    if name == "Object.fromEntries" and len(args) == 1:
        return _pairs("object", args[0])
    if name == "JSON.parse" and len(args) == 1 and isinstance(args[0], str):
        return _json(args[0])
    if name == "JSON.stringify" and len(args) == 1:
        return _stringify(args[0])
    return NOT_LITERAL


# -- constant folding: a literal spelled in pieces is the literal it builds (issue 36) -----------------

MAX_FOLDED_CHARS = 10_000
"""Longest string a folded expression may build (``"x".repeat(1e9)`` is refused, never built)."""
_ARITHMETIC = {"-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a / b,
               "%": lambda a, b: math.fmod(a, b)}
_STRING_METHODS = frozenset({"toUpperCase", "toLowerCase", "trim", "trimStart", "trimEnd", "slice", "substring",
                             "substr", "padStart", "padEnd", "repeat", "replace", "replaceAll", "concat", "at",
                             "charAt", "toString", "split", "normalize"})
_NUMBER_CALLS = frozenset({"Number", "parseFloat", "parseInt", "String", "String.fromCharCode",
                           "String.fromCodePoint"})


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _js_string(value: object) -> str | None:
    """``String(value)`` for a scalar, as JavaScript writes it (None where Python would differ)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return None
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        text = repr(value)
        return None if "e" in text else text
    return None


def _short(text: str | None) -> object:
    return NOT_LITERAL if text is None or len(text) > MAX_FOLDED_CHARS else text


def _binary(src: JsSource, node: JsNode, values: list[object]) -> object:
    """``"19" + ".99"``, ``1999 / 100``: string concatenation and arithmetic on literal values."""
    op, left, right = src.field(node, "operator"), src.field(node, "left"), src.field(node, "right")
    if op is None or left is None or right is None:
        return NOT_LITERAL
    a, b = values[left.index], values[right.index]
    if op.type == "+":
        if isinstance(a, str) or isinstance(b, str):
            sa, sb = _js_string(a), _js_string(b)
            return NOT_LITERAL if sa is None or sb is None else _short(sa + sb)
        if _number(a) and _number(b):
            return a + b  # type: ignore[operator]
        return NOT_LITERAL
    fn = _ARITHMETIC.get(op.type)
    if fn is None or not (_number(a) and _number(b)):
        return NOT_LITERAL
    try:
        result = fn(a, b)
    except (ZeroDivisionError, OverflowError, ValueError):
        return NOT_LITERAL
    if isinstance(result, float) and result.is_integer() and op.type != "/" \
            and isinstance(a, int) and isinstance(b, int):
        return int(result)
    return result


def _template(src: JsSource, node: JsNode, values: list[object]) -> object:
    """`` `${19}.${99}` ``: a template whose substitutions are all literal values."""
    parts = []
    for child in src.children(node):
        if child.type == "string_fragment":
            parts.append(src.text(child))
        elif child.type == "escape_sequence":
            parts.append(unescape(src.text(child)))
        elif child.type == "template_substitution":
            text = _js_string(values[child.index])
            if text is None:
                return NOT_LITERAL
            parts.append(text)
        elif child.named and child.type != "comment":
            return NOT_LITERAL
    return _short("".join(parts))


def _fold_call(src: JsSource, callee: JsNode, name: str | None, args: list[object], values: list[object]) -> object:
    """``String.fromCharCode(49, 57)``, ``["1", "9"].join("")``, ``"99.91".split("").reverse().join("")``,
    ``Number("19.99")``, ``(1999 / 100).toFixed(2)``, ``"19".concat(".99")`` and other pure calls on literals."""
    try:
        if name in _NUMBER_CALLS:
            return _global_call(name, args)
        if callee.type != "member_expression":
            return NOT_LITERAL
        prop, receiver = src.field(callee, "property"), src.field(callee, "object")
        if prop is None or receiver is None:
            return NOT_LITERAL
        return _method(values[receiver.index], src.text(prop), args)
    except (ValueError, TypeError, OverflowError, IndexError):
        return NOT_LITERAL


def _global_call(name: str, args: list[object]) -> object:
    if name in ("String.fromCharCode", "String.fromCodePoint"):
        if len(args) > MAX_FOLDED_CHARS or not all(_number(a) and float(a).is_integer() for a in args):
            return NOT_LITERAL
        return "".join(chr(int(a) & 0xFFFF if name.endswith("CharCode") else int(a)) for a in args)  # type: ignore[arg-type]
    if not args:
        return NOT_LITERAL
    a = args[0]
    if name == "String":
        return _short(_js_string(a))
    text = _js_string(a)
    if text is None:
        return NOT_LITERAL
    text = text.strip()
    if name == "parseInt":
        digits = re.match(r"[+-]?\d+", text)
        return int(digits.group()) if digits and len(args) == 1 and len(text) < 400 else NOT_LITERAL
    if name == "parseFloat" or name == "Number":
        number = number_value(text.lstrip("+-")) if re.fullmatch(r"[+-]?[\d.]+(e[+-]?\d+)?", text) else None
        if number is None:
            return NOT_LITERAL
        return -number if text.startswith("-") else number
    return NOT_LITERAL


def _method(receiver: object, method: str, args: list[object]) -> object:
    if isinstance(receiver, Container) and receiver.kind == "array":
        items = list(receiver.items)
        if method == "join" and len(args) <= 1:
            sep = "," if not args else _js_string(args[0])
            texts = ["" if i is None else _js_string(i) for i in items]
            if sep is None or any(t is None for t in texts):
                return NOT_LITERAL
            return _short(sep.join(texts))  # type: ignore[arg-type]
        if method == "reverse" and not args:
            return Container("array", tuple(reversed(items)))
        if method == "concat" and all(_is(a, "array") for a in args):
            return Container("array", tuple(items) + tuple(i for a in args for i in a.items))  # type: ignore[attr-defined]
        return NOT_LITERAL
    if _number(receiver) and method == "toFixed" and len(args) <= 1:
        digits = args[0] if args else 0
        if not _number(digits) or not 0 <= digits <= 100:  # type: ignore[operator]
            return NOT_LITERAL
        return f"{receiver:.{int(digits)}f}"  # type: ignore[arg-type]
    if _number(receiver) and method == "toString" and not args:
        return _short(_js_string(receiver))
    if not isinstance(receiver, str) or method not in _STRING_METHODS:
        return NOT_LITERAL
    if method == "split" and len(args) == 1 and isinstance(args[0], str):
        parts = list(receiver) if args[0] == "" else receiver.split(args[0])
        return Container("array", tuple(parts))
    if method in ("padStart", "padEnd", "repeat") and (not args or not _number(args[0])
                                                       or args[0] * (len(receiver) if method == "repeat" else 1)
                                                       > MAX_FOLDED_CHARS):  # type: ignore[operator]
        return NOT_LITERAL
    texts = [_js_string(a) if not _number(a) else a for a in args]
    if any(t is None for t in texts):
        return NOT_LITERAL
    n = [int(a) for a in args if _number(a)]
    s = [t for t in texts if isinstance(t, str)]
    result: object = {
        "toUpperCase": lambda: receiver.upper(), "toLowerCase": lambda: receiver.lower(),
        "trim": lambda: receiver.strip(), "trimStart": lambda: receiver.lstrip(), "trimEnd": lambda: receiver.rstrip(),
        "slice": lambda: receiver[slice(*n[:2])],
        "substring": lambda: receiver[slice(*sorted(max(0, i) for i in n[:2]))],
        "substr": lambda: receiver[n[0]:n[0] + n[1]] if len(n) == 2 else receiver[n[0]:],
        "padStart": lambda: receiver.rjust(n[0], (s or [" "])[0][:1] or " "),
        "padEnd": lambda: receiver.ljust(n[0], (s or [" "])[0][:1] or " "),
        "repeat": lambda: receiver * n[0], "replace": lambda: receiver.replace(s[0], s[1], 1),
        "replaceAll": lambda: receiver.replace(s[0], s[1]), "concat": lambda: receiver + "".join(s),
        "at": lambda: receiver[n[0]], "charAt": lambda: receiver[n[0]], "toString": lambda: receiver,
        "normalize": lambda: receiver,
    }[method]()  # type: ignore[operator]
    return _short(result) if isinstance(result, str) else NOT_LITERAL


def _is(value: object, kind: ContainerKind) -> bool:
    return isinstance(value, Container) and value.kind == kind


def _pairs(kind: ContainerKind, entries: object) -> object:
    """``[[k, v], ...]`` as the items of an object or a map."""
    if not isinstance(entries, Container) or entries.kind != "array":
        return NOT_LITERAL
    if not all(_is(e, "array") and len(e.items) == 2 for e in entries.items):  # type: ignore[attr-defined]
        return NOT_LITERAL
    return Container(kind, tuple((e.items[0], e.items[1]) for e in entries.items))  # type: ignore[attr-defined]


def _json(text: str) -> object:
    if len(text) > MAX_JSON_CHARS:
        return NOT_LITERAL
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return NOT_LITERAL
    return from_python(parsed)


def _stringify(value: object) -> object:
    """``JSON.stringify`` of a literal value (sets and maps become ``{}``, as in JavaScript)."""
    try:
        text = json.dumps(to_python(value), separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (ValueError, TypeError, RecursionError):
        return NOT_LITERAL
    return text if len(text) <= MAX_JSON_CHARS else NOT_LITERAL


def to_python(value: object) -> object:
    """A literal value as JSON-like Python data (iterative): arrays → lists, objects → dicts with
    string keys, sets and maps → empty dicts (what ``JSON.stringify`` makes of them)."""
    out: dict[int, object] = {}
    stack: list[tuple[object, bool]] = [(value, False)]
    while stack:
        current, ready = stack.pop()
        if not isinstance(current, Container) or id(current) in out:
            continue
        if not ready:
            stack.append((current, True))
            parts = [p for item in current.items for p in (item if current.kind == "object" else (item,))]
            stack.extend((p, False) for p in parts if isinstance(p, Container))
            continue

        def plain(item: object) -> object:
            return out[id(item)] if isinstance(item, Container) else item

        if current.kind == "array":
            out[id(current)] = [plain(i) for i in current.items]
        elif current.kind == "object":
            out[id(current)] = {_key_text(k): plain(v) for k, v in current.items}  # type: ignore[misc]
        else:
            out[id(current)] = {}
    return out[id(value)] if isinstance(value, Container) else value


def _key_text(key: object) -> str:
    if isinstance(key, float) and key.is_integer():
        return str(int(key))
    return "null" if key is None else str(key).lower() if isinstance(key, bool) else str(key)


def from_python(value: object) -> object:
    """A JSON value (lists, dicts, scalars) as literal values (iterative: JSON nests deeply)."""
    out: dict[int, object] = {}
    stack: list[tuple[object, bool]] = [(value, False)]
    while stack:
        current, ready = stack.pop()
        if isinstance(current, list | dict) and not ready:
            stack.append((current, True))
            children = current if isinstance(current, list) else list(current.values())
            stack.extend((c, False) for c in children)
            continue
        if isinstance(current, list):
            out[id(current)] = Container("array", tuple(out[id(c)] if isinstance(c, list | dict) else c
                                                        for c in current))
        elif isinstance(current, dict):
            out[id(current)] = Container("object", tuple(
                (k, out[id(v)] if isinstance(v, list | dict) else v) for k, v in current.items()))
    return out[id(value)] if isinstance(value, list | dict) else value
