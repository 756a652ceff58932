"""Constant folding of Python expressions for the computed-name resolver (``_dynamic``). Pure.

A submission can spell ``eval`` without writing it: ``"ev" + "al"``, ``"lave"[::-1]``,
``"".join(reversed("lave"))``, ``chr(101) + "val"``, ``"{}{}".format("ev", "al")``,
``bytes.fromhex("6576616c").decode()``, ``base64.b64decode("ZXZhbA==").decode()``,
``codecs.decode("riny", "rot13")``. ``fold`` evaluates such an expression over constants only, with
a fixed set of side-effect-free operations and a size bound on every value (``"a" * 10**9`` is not
built), and answers ``UNKNOWN`` for anything else. Nothing of the submission is ever run.
"""

from __future__ import annotations

import ast
import base64
import binascii
import codecs
from collections.abc import Callable, Mapping

MAX_LEN = 4096
"""Longest string, bytes or list a folded value may be; past it the value is unknown."""


class _Unknown:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()
Lookup = Callable[[str], object]
"""A name's constant value (``UNKNOWN`` when it has none): the resolver's environment."""

_DECODERS: Mapping[str, Callable[[bytes], bytes]] = {
    "b64decode": base64.b64decode, "standard_b64decode": base64.standard_b64decode,
    "urlsafe_b64decode": base64.urlsafe_b64decode, "b32decode": base64.b32decode, "b16decode": base64.b16decode,
    "a85decode": base64.a85decode, "b85decode": base64.b85decode, "unhexlify": binascii.unhexlify,
    "a2b_hex": binascii.a2b_hex, "a2b_base64": binascii.a2b_base64,
}
_STR_METHODS = frozenset({"lower", "upper", "strip", "lstrip", "rstrip", "replace", "casefold", "swapcase",
                          "title", "capitalize", "removeprefix", "removesuffix", "zfill", "center", "ljust",
                          "rjust", "split", "rsplit", "partition", "rpartition", "translate", "expandtabs"})


def _ok(value: object) -> object:
    if isinstance(value, str | bytes | list | tuple) and len(value) > MAX_LEN:
        return UNKNOWN
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**12:
        return UNKNOWN
    if isinstance(value, list | tuple) and any(v is UNKNOWN for v in value):
        return UNKNOWN
    return value


def fold(node: ast.AST, lookup: Lookup, depth: int = 0) -> object:
    """The constant value of ``node``, or ``UNKNOWN``."""
    if depth > 40:
        return UNKNOWN
    try:
        return _ok(_fold(node, lookup, depth + 1))
    except (ValueError, TypeError, IndexError, KeyError, OverflowError, binascii.Error, UnicodeError,
            AttributeError, LookupError, RecursionError, MemoryError):
        return UNKNOWN


def _fold(node: ast.AST, lookup: Lookup, depth: int) -> object:
    def f(n: ast.AST) -> object:
        v = fold(n, lookup, depth)
        if v is UNKNOWN:
            raise ValueError
        return v

    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str | bytes | int | float | bool) or node.value is None \
            else UNKNOWN
    if isinstance(node, ast.Name):
        return lookup(node.id)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        items: list[object] = []
        for elt in node.elts:
            if isinstance(elt, ast.Starred):
                items += list(_seq(f(elt.value)))
            else:
                items.append(f(elt))
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.JoinedStr):
        return "".join(_format_value(v, f) for v in node.values)
    if isinstance(node, ast.BinOp):
        left, right = f(node.left), f(node.right)
        if isinstance(node.op, ast.Add):
            return left + right  # type: ignore[operator]
        if isinstance(node.op, ast.Mult):
            size = len(left) if isinstance(left, str | bytes | list | tuple) else \
                len(right) if isinstance(right, str | bytes | list | tuple) else 1
            count = right if isinstance(left, str | bytes | list | tuple) else left
            if isinstance(count, int) and size * max(count, 0) > MAX_LEN:
                return UNKNOWN
            return left * right  # type: ignore[operator]
        if isinstance(node.op, ast.Mod) and isinstance(left, str | bytes):
            return left % right  # type: ignore[operator]
        if isinstance(left, int) and isinstance(right, int):
            ops: dict[type, Callable[[int, int], int]] = {
                ast.Sub: int.__sub__, ast.FloorDiv: int.__floordiv__, ast.Mod: int.__mod__, ast.BitXor: int.__xor__,
                ast.BitAnd: int.__and__, ast.BitOr: int.__or__}
            if type(node.op) in ops:
                return ops[type(node.op)](left, right)
        return UNKNOWN
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd | ast.Invert | ast.Not):
        value = f(node.operand)
        return {ast.USub: lambda x: -x, ast.UAdd: lambda x: +x, ast.Invert: lambda x: ~x,
                ast.Not: lambda x: not x}[type(node.op)](value)  # type: ignore[operator]
    if isinstance(node, ast.Subscript):
        base = f(node.value)
        if isinstance(node.slice, ast.Slice):
            parts = [f(p) if p is not None else None for p in (node.slice.lower, node.slice.upper, node.slice.step)]
            return base[slice(*parts)]  # type: ignore[index]
        return base[f(node.slice)]  # type: ignore[index]
    if isinstance(node, ast.IfExp):
        return f(node.body) if f(node.test) else f(node.orelse)
    if isinstance(node, ast.ListComp | ast.GeneratorExp):
        return _comprehension(node, lookup, depth)
    if isinstance(node, ast.Call):
        return _call(node, f, lookup, depth)
    return UNKNOWN


def _seq(value: object) -> list[object]:
    if isinstance(value, str | bytes | list | tuple):
        return list(value)
    raise ValueError


def _format_value(node: ast.expr, f: Callable[[ast.AST], object]) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.FormattedValue):
        value = f(node.value)
        spec = "".join(_format_value(v, f) for v in node.format_spec.values) if node.format_spec else ""
        conv = {-1: value, 115: str(value), 114: repr(value), 97: ascii(value)}[node.conversion]
        return format(conv, spec)
    raise ValueError


def _comprehension(node: ast.ListComp | ast.GeneratorExp, lookup: Lookup, depth: int) -> object:
    if len(node.generators) != 1 or node.generators[0].is_async:
        return UNKNOWN
    gen = node.generators[0]
    if not isinstance(gen.target, ast.Name):
        return UNKNOWN
    source = fold(gen.iter, lookup, depth)
    if source is UNKNOWN:
        return UNKNOWN
    out: list[object] = []
    for item in _seq(source):
        def inner(name: str, item: object = item) -> object:
            return item if name == gen.target.id else lookup(name)  # type: ignore[union-attr]

        if all(fold(cond, inner, depth) not in (UNKNOWN, False, 0, "", None) for cond in gen.ifs):
            value = fold(node.elt, inner, depth)
            if value is UNKNOWN:
                return UNKNOWN
            out.append(value)
    return out


def _func_name(node: ast.expr) -> str | None:
    """``chr`` → ``chr``, ``base64.b64decode`` → ``b64decode``, ``str.join`` → ``str.join``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def _call(node: ast.Call, f: Callable[[ast.AST], object], lookup: Lookup, depth: int) -> object:
    if any(isinstance(a, ast.Starred) for a in node.args):
        return UNKNOWN
    kwargs = {k.arg: f(k.value) for k in node.keywords if k.arg is not None}
    if any(k.arg is None for k in node.keywords):
        return UNKNOWN
    name = _func_name(node.func)
    if name in {"chr", "str", "ord", "int", "bytes", "bytearray", "list", "tuple", "reversed", "sorted", "len",
                "bool", "map", "repr"} and lookup(name) is UNKNOWN:
        args = [f(a) for a in node.args[1:]] if name == "map" else [f(a) for a in node.args]
        if name == "map":
            fn = node.args[0]
            inner = _func_name(fn)
            if inner not in {"chr", "str", "ord"} or len(args) != 1:
                return UNKNOWN
            conv = {"chr": chr, "str": str, "ord": ord}[inner]
            return [conv(x) for x in _seq(args[0])]  # type: ignore[arg-type]
        if name in {"reversed", "list", "tuple", "sorted"}:
            items = _seq(args[0]) if args else []
            return {"reversed": lambda: items[::-1], "list": lambda: items, "tuple": lambda: tuple(items),
                    "sorted": lambda: sorted(items)}[name]()  # type: ignore[type-var]
        if name in {"bytes", "bytearray"} and args and isinstance(args[0], list | tuple):
            return bytes(args[0])  # type: ignore[arg-type]
        builtin = {"chr": chr, "str": str, "ord": ord, "int": int, "bytes": bytes, "bytearray": bytes, "len": len,
                   "bool": bool, "repr": repr}[name]
        return builtin(*args, **kwargs)  # type: ignore[operator]
    if isinstance(node.func, ast.Attribute):
        attr = node.func.attr
        owner = node.func.value
        if attr in _DECODERS and isinstance(owner, ast.Name) and owner.id in {"base64", "binascii"}:
            return _DECODERS[attr](_bytes(f(node.args[0])))
        if attr == "fromhex" and isinstance(owner, ast.Name) and owner.id in {"bytes", "bytearray"}:
            return bytes.fromhex(str(f(node.args[0])))
        if attr == "decode" and isinstance(owner, ast.Name) and owner.id == "codecs":
            args = [f(a) for a in node.args]
            return codecs.decode(args[0], *args[1:])  # type: ignore[call-overload]
        if attr == "join" and isinstance(owner, ast.Name) and owner.id in {"str", "bytes"} and len(node.args) == 2:
            sep = f(node.args[0])
            return sep.join(_seq(f(node.args[1])))  # type: ignore[union-attr, arg-type]
        base = f(owner)
        args = [f(a) for a in node.args]
        if isinstance(base, str | bytes):
            if attr == "join":
                return base.join(_seq(args[0]))  # type: ignore[arg-type]
            if attr == "format" and isinstance(base, str):
                return base.format(*args, **kwargs)
            if attr in {"decode", "encode"}:
                return getattr(base, attr)(*args, **kwargs)
            if attr in _STR_METHODS:
                return getattr(base, attr)(*args, **kwargs)
        if isinstance(base, list) and attr == "copy":
            return list(base)
    return UNKNOWN


def _bytes(value: object) -> bytes:
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bytes):
        return value
    raise ValueError
