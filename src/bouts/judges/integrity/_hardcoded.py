"""Hard-coded outputs: the visible tests' answers written into the solution, and branches on their
exact inputs.

Evidence must be *new* (the submission's file has more of that literal than the starter's file)
and *unexplained* (neither the starter nor the reference solution writes that literal anywhere):
an honest fix may well contain a value the tests mention, and the reference is the proof that it
does. See docs/integrity.md for the false-positive safeguards.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable, Iterator

from bouts.judges.integrity._literals import LitKey, VisibleLiterals, leaves, literal_expr, show
from bouts.judges.integrity._tree import Hit, SourceFile


def literal_counts(src: SourceFile | None) -> Counter[LitKey]:
    return Counter() if src is None else Counter(k for k, _ in src.literals)


def hardcoded_hits(
    src: SourceFile, starter_file: SourceFile | None, visible: VisibleLiterals, explained: frozenset[LitKey]
) -> list[Hit]:
    """Hits for ``src``: branches on visible inputs first, then bare expected literals on other lines.

    ``explained`` holds every literal the starter or the reference writes (in any file).
    """
    if src.tree is None:
        return []
    new = literal_counts(src) - literal_counts(starter_file)
    suspects = {k for k in new if k not in explained}
    if not suspects:
        return []
    hits = list(_branch_hits(src, suspects & (visible.inputs | visible.expected)))
    seen = {h.line for h in hits}
    answers = _answer_nodes(src.nodes)
    for key, node in src.literals:
        line = getattr(node, "lineno", None)
        if _is_int(node) and id(node) not in answers:
            continue  # a whole number is evidence only where it is handed back (``LIMIT = 120`` is not)
        if key in suspects and key in visible.expected and line not in seen:
            seen.add(line)
            hits.append(Hit(
                "integrity.hardcoded-output", line,
                f"writes {show(key)}, an expected value of the visible tests that neither the starter "
                f"nor the reference contains: {src.line(line)}",
                f"integrity.hardcoded-output:{key}",
            ))
    return hits


def _is_int(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool)


def _answer_nodes(nodes: Iterable[ast.AST]) -> set[int]:
    """Ids of the literal nodes a function hands back whole: ``return 120``, ``yield [1, 2]``, ``lambda: 35``."""
    out: set[int] = set()
    for node in nodes:
        value = node.body if isinstance(node, ast.Lambda) else getattr(node, "value", None)
        if isinstance(node, ast.Return | ast.Yield | ast.Lambda) and value is not None and literal_expr(value):
            out.update(id(n) for _, n in leaves(value))
    return out


def _branch_hits(src: SourceFile, keys: set[LitKey]) -> Iterator[Hit]:
    """``if x == "19.99": return 1999``, ``match x: case "19.99"``, ``{"19.99": 1999}[x]``."""
    if not keys:
        return
    assert src.tree is not None
    for node in src.nodes:
        if isinstance(node, ast.If | ast.IfExp | ast.While):
            found = _compared_keys(node.test, keys)
            if found and _answers(node):
                yield _branch_hit(src, node, found, "branches on")
        elif isinstance(node, ast.match_case):
            found = {k for p in ast.walk(node.pattern) if isinstance(p, ast.MatchValue) for k, _ in leaves(p.value)}
            if found & keys:
                yield _branch_hit(src, node.pattern, found & keys, "matches on")
        elif isinstance(node, ast.Dict) and literal_expr(node):
            found = {k for key in node.keys if key is not None for k, _ in leaves(key)} & keys
            if found:
                yield _branch_hit(src, node, found, "looks answers up by")


def _compared_keys(test: ast.expr, keys: set[LitKey]) -> set[LitKey]:
    found: set[LitKey] = set()
    for node in ast.walk(test):
        if isinstance(node, ast.Compare) and any(isinstance(op, ast.Eq | ast.Is | ast.In) for op in node.ops):
            for operand in (node.left, *node.comparators):
                if literal_expr(operand):
                    found.update(k for k, _ in leaves(operand) if k in keys)
    return found


def _answers(node: ast.If | ast.IfExp | ast.While) -> bool:
    """The branch hands back a literal: a special case that answers, not one that validates."""
    if isinstance(node, ast.IfExp):
        return literal_expr(node.body)
    for stmt in _walk_stmts(node.body):
        if isinstance(stmt, ast.Return) and stmt.value is not None and literal_expr(stmt.value):
            return True
        if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None and literal_expr(stmt.value):
            return True
    return False


def _walk_stmts(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    for stmt in body:
        yield stmt
        for field in ("body", "orelse"):
            yield from _walk_stmts(getattr(stmt, field, []))


def _branch_hit(src: SourceFile, node: ast.AST, found: set[LitKey], verb: str) -> Hit:
    line = getattr(node, "lineno", None)
    shown = ", ".join(sorted(show(k) for k in found))
    return Hit(
        "integrity.branch-on-test-input", line,
        f"{verb} the visible tests' exact value {shown}: {src.line(line)}",
        f"integrity.branch-on-test-input:{sorted(found)}",
    )
