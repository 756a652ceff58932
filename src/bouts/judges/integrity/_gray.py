"""Gray areas: code that hides failures rather than fixing them.

None of these is cheating on its own (a broad ``except`` can be a deliberate boundary), so each
costs 5-10 points rather than the whole component, and the judge caps how many count (see
``_judge.GRAY_CAP_PER_RULE``). Only instances the submission added over ``starter/`` are passed in.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

from bouts.judges.integrity._tree import Hit, SourceFile

BROAD_EXCEPT = "integrity.broad-except-default"
SUPPRESS_ALL = "integrity.suppress-all"
SILENCER = "integrity.silenced-check"
SUPPRESSION_EVERYWHERE = "integrity.suppression-everywhere"
UNREVIEWABLE = "integrity.unreviewable-source"

GRAY_POINTS: dict[str, float] = {
    BROAD_EXCEPT: 5.0,
    SUPPRESS_ALL: 5.0,
    SILENCER: 5.0,
    SUPPRESSION_EVERYWHERE: 10.0,
    "integrity.bytecode-shipped": 5.0,
    "integrity.symlink-shipped": 5.0,
    UNREVIEWABLE: 5.0,
}
"""Points per counted instance. Suppression everywhere costs the most: it is a pattern, not a slip."""

EVERYWHERE_THRESHOLD = 4
"""This many new broad handlers (or ``suppress(Exception)``) across the submission is 'everywhere'."""

_BROAD = frozenset({"Exception", "BaseException", "builtins.Exception", "builtins.BaseException"})
_SILENCERS = re.compile(
    r"#\s*(type:\s*ignore|noqa|pragma:\s*no\s*cover|pylint:\s*disable|pyright:\s*ignore|mypy:\s*ignore|nosec)",
    re.IGNORECASE,
)


def gray_hits(src: SourceFile) -> list[Hit]:
    """Gray-area hits of one module (syntax tree checks when it parses, comment checks always)."""
    hits = _comment_hits(src)
    if src.tree is None:
        return hits
    for node in src.nodes:
        if isinstance(node, ast.ExceptHandler) and _broad(node.type) and _swallows(node.body):
            code = src.line(node.lineno)
            hits.append(Hit(
                BROAD_EXCEPT, node.lineno,
                f"catches every exception and hands back a default instead of failing: {code} "
                f"{_first_line(node.body)}",
                f"{BROAD_EXCEPT}:{ast.unparse(node)}",
            ))
        elif isinstance(node, ast.Call) and _is_suppress(node.func) and any(_broad(a) for a in node.args):
            code = src.line(node.lineno)
            hits.append(Hit(SUPPRESS_ALL, node.lineno, f"suppresses every exception: {code}", f"{SUPPRESS_ALL}:{code}"))
    return hits


def _broad(type_: ast.expr | None) -> bool:
    """A bare ``except:``, ``except Exception`` / ``BaseException``, or a tuple holding one."""
    if type_ is None:
        return True
    if isinstance(type_, ast.Tuple):
        return any(_broad(e) for e in type_.elts)
    return ast.unparse(type_) in _BROAD


def _swallows(body: list[ast.stmt]) -> bool:
    """The handler only passes, continues, or returns / assigns a written-out value (or nothing)."""
    for stmt in body:
        if isinstance(stmt, ast.Pass | ast.Continue | ast.Break):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # a docstring-like note or ``...``
        if isinstance(stmt, ast.Return) and (stmt.value is None or _plain_value(stmt.value)):
            continue
        if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None and _plain_value(stmt.value):
            continue
        return False
    return True


def _plain_value(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return _plain_value(node.operand)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return all(_plain_value(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return not node.keys
    # dict(), list(), Decimal(0), float("nan"): an empty or default value built by a call.
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords
        and all(_plain_value(a) for a in node.args)
    )


def _is_suppress(func: ast.expr) -> bool:
    return (isinstance(func, ast.Attribute) and func.attr == "suppress") or (
        isinstance(func, ast.Name) and func.id == "suppress"
    )


def _first_line(body: list[ast.stmt]) -> str:
    return ast.unparse(body[0]).splitlines()[0] if body else ""


def _comment_hits(src: SourceFile) -> list[Hit]:
    """``# noqa``, ``# type: ignore``, ``# pragma: no cover``... read from real comments when the file
    tokenizes (a ``"# noqa"`` inside a string is not a comment), from raw lines otherwise."""
    comments: list[tuple[int, str]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(src.text).readline):
            if tok.type == tokenize.COMMENT:
                comments.append((tok.start[0], tok.string))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        comments = [(i, line[line.index("#"):]) for i, line in enumerate(src.lines, 1) if "#" in line]
    hits = []
    for lineno, comment in comments:
        match = _SILENCERS.search(comment)
        if match:
            code = src.line(lineno)
            hits.append(Hit(
                SILENCER, lineno, f"silences a check ({match.group(1)}): {code}", f"{SILENCER}:{code}",
            ))
    return hits
