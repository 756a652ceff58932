"""Copy-paste detection: windows of normalised syntax tokens shared between functions.

A function body is flattened into its syntax tree's nodes in source order, with every name,
attribute and constant reduced to its kind (``Name``, ``Attribute``, ``Constant``) and f-strings to
one token, so renaming variables or reformatting does not hide a copy (a "type-2 clone"). Docstrings
and the ``def`` line are left out: every method starts alike. Two functions (or two places in one)
that share a window of ``WINDOW`` consecutive tokens hold duplicated code. Pure: trees in, spans out.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bouts.judges.quality._changes import Unit
from bouts.judges.quality._js_changes import JsUnit

WINDOW = 25
"""Tokens per window: about three lines of ordinary code; shorter windows match idioms, not copies."""
_SKIP = (ast.expr_context, ast.type_ignore)


@dataclass(frozen=True)
class Clone:
    """The duplicated part of one changed function."""

    unit: Unit | JsUnit
    covered: int
    """Tokens of the function inside a window found elsewhere."""
    token_lines: tuple[int, ...]
    """The source line of each covered token (so a judge can weigh written against inherited lines)."""
    partners: tuple[str, ...]
    """Qualified names of the functions holding the other copies."""


def tokens(unit: Unit) -> list[tuple[str, int]]:
    """(token, line) of the function body in source order (iterative: hostile nesting is deep)."""
    body = list(unit.node.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    out: list[tuple[str, int]] = []
    stack: list[tuple[ast.AST, int]] = [(node, unit.start) for node in reversed(body)]
    while stack:
        node, parent_line = stack.pop()
        if isinstance(node, _SKIP):
            continue
        line = getattr(node, "lineno", parent_line)
        label = type(node).__name__
        if isinstance(node, ast.Constant):
            label = f"Constant:{type(node.value).__name__}"
        out.append((label, line))
        if isinstance(node, ast.JoinedStr):
            continue  # one token per f-string: its parts are formatting, not structure
        stack.extend((child, line) for child in reversed(list(ast.iter_child_nodes(node))))
    return out


def find_clones(
    units: Sequence[Unit] | Sequence[JsUnit], window: int = WINDOW,
    tokenize: Callable[[Any], list[tuple[str, int]]] = tokens,
) -> tuple[list[Clone], int]:
    """Duplicated spans of the changed units (compared with every unit), and the changed units'
    total token count (the denominator of the duplicated share). ``tokenize`` reads one unit
    (``tokens`` for Python; ``_js_metrics.tokens`` for JavaScript)."""
    streams = {i: tokenize(u) for i, u in enumerate(units)}
    keys: dict[int, list[int]] = {}
    seen: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for i, stream in streams.items():
        labels = [t for t, _ in stream]
        # A hash per window, not the window itself: memory stays linear in the code's size.
        keys[i] = [hash(tuple(labels[pos : pos + window])) for pos in range(len(labels) - window + 1)]
        for pos, key in enumerate(keys[i]):
            seen[key].append((i, pos))
    clones: list[Clone] = []
    total = 0
    for i, unit in enumerate(units):
        if not unit.changed:
            continue
        stream = streams[i]
        total += len(stream)
        covered: set[int] = set()
        partners: set[str] = set()
        for key in set(keys[i]):
            places = seen[key]
            mine = [pos for j, pos in places if j == i]
            others = [j for j, _ in places if j != i]
            # Within one function, two occurrences count only when they do not overlap.
            self_copy = len(mine) > 1 and max(mine) - min(mine) >= window
            if not others and not self_copy:
                continue
            for pos in mine:
                covered.update(range(pos, pos + window))
            partners.update(units[j].qualname for j in others)
            if self_copy:
                partners.add(unit.qualname)
        if covered:
            token_lines = tuple(stream[k][1] for k in sorted(covered))
            clones.append(Clone(unit, len(covered), token_lines, tuple(sorted(partners))))
    return clones, total
