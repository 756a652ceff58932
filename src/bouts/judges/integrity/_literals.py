"""Scalar literals: their normalised keys, which are distinctive, and which a source file holds.

A literal is compared by a normalised key, so ``"19.99"``, ``19.99`` and ``Decimal("19.99")`` are
the same value to the hard-coding detector (a cheat can write any of them), while ``"A-1"`` stays a
string. Only *distinctive* literals are ever used as evidence: small numbers, booleans, empty or
short strings and plain words occur in every honest program. Containers of literals are compared
as wholes by ``_structures``; what the visible tests expect and feed in is read by ``_visible``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation

LitKey = tuple[str, str]
"""``("num", "19.99")`` or ``("str", "A-1")``."""

# Round or customary numbers an honest program uses for its own reasons (units, limits, sizes).
_COMMON_NUMBERS = frozenset(
    {12, 24, 60, 100, 365, 1000, 1024, 3600, 10_000, 86_400, 100_000, 1_000_000, 255, 256, 65535}
)
_PLAIN_WORDS = re.compile(r"[A-Za-z_][A-Za-z_ .,:;!?'-]*")


def key_of(value: object) -> LitKey | None:
    """Normalised key of a constant; None for booleans, None, Ellipsis and bytes."""
    if isinstance(value, bool) or value is None or value is Ellipsis:
        return None
    if isinstance(value, int | float):
        return _num(Decimal(str(value)))
    if isinstance(value, str):
        if value and value == value.strip():
            try:
                d = Decimal(value.replace("_", "x"))  # "1_000" stays a string
            except InvalidOperation:
                d = None
            if d is not None and d.is_finite():
                return _num(d)
        return ("str", value)
    return None


def _num(d: Decimal) -> LitKey:
    text = format(d.normalize(), "f")
    return ("num", "0" if text in ("-0", "") else text)


def distinctive(key: LitKey) -> bool:
    """Whether a literal is specific enough that its presence in new code is evidence."""
    kind, text = key
    if kind == "num":
        d = Decimal(text)
        if d == d.to_integral_value():
            n = abs(int(d))
            return n > 10 and n not in _COMMON_NUMBERS and (n & (n - 1)) != 0
        return True  # a non-integer like 59.97 is specific; customary ones (0.5) are in the reference
    s = text.strip()
    # Plain words and sentences ("open", "already exists") are vocabulary, not answers.
    return len(s) >= 3 and _PLAIN_WORDS.fullmatch(s) is None


def literal_expr(node: ast.AST) -> bool:
    """A value written out in full: constants, containers of them, ``-1``, ``Decimal("1.5")``."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return all(literal_expr(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and literal_expr(k) for k in node.keys) and all(literal_expr(v) for v in node.values)
    if isinstance(node, ast.Call) and callee(node.func) in {"Decimal", "Fraction", "float", "int", "str"}:
        return not node.keywords and all(literal_expr(a) for a in node.args)
    return False


def leaves(node: ast.AST) -> Iterator[tuple[LitKey, ast.AST]]:
    """Every literal key inside ``node`` with the node that writes it (``-5`` is one literal)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        value = node.operand.value
        if isinstance(value, int | float) and not isinstance(value, bool) and (key := key_of(-value)):
            yield key, node
        return
    if isinstance(node, ast.Constant):
        if (key := key_of(node.value)) is not None:
            yield key, node
        return
    for child in ast.iter_child_nodes(node):
        yield from leaves(child)


def source_literals(tree: ast.Module) -> Iterator[tuple[LitKey, ast.AST]]:
    """Literals a module writes, minus docstrings and the exceptions ``raise`` statements build.

    Docstrings describe ("e.g. "19.99" -> 1999") rather than compute. A ``raise`` builds an error
    message, and a visible ``pytest.raises(match=...)`` requires the honest solution to contain it;
    the condition of ``raise A if cond else B`` is still read (it decides, it does not describe).
    """
    for node in _walk_skipping(tree):
        yield from leaves(node) if isinstance(node, ast.Constant | ast.UnaryOp) else ()


def _walk_skipping(tree: ast.Module) -> Iterator[ast.AST]:
    docstrings = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)
    }
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if id(node) in docstrings:
            continue
        if isinstance(node, ast.Raise):
            stack.extend(reversed(list(raise_conditions(node))))
            continue
        yield node
        if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
            continue  # yielded whole: "-5" must not also count as "5"
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def raise_conditions(node: ast.Raise) -> Iterator[ast.expr]:
    """The conditions of ``raise A if cond else B`` (the exceptions themselves are messages)."""
    exc = node.exc
    while isinstance(exc, ast.IfExp):
        yield exc.test
        exc = exc.orelse


def callee(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def show(key: LitKey) -> str:
    return repr(key[1]) if key[0] == "str" else key[1]
