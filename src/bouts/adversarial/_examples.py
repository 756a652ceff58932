"""Example arguments from the challenge's visible tests: pure, source text in, literal values out.

When a generated test probes one parameter, every other argument must be a value the callable
accepts, or the failure it reports belongs to the filler, not to the probed parameter
(``min_cost(cost="a", m=value, n=1)`` fails on ``"a"`` whatever ``m`` is). The visible tests call
the public API with real arguments (``min_cost([[1, 2, 3], [4, 8, 2], [1, 5, 3]], 2, 2)``); the
generator takes the first call of a callable whose arguments are all literals and binds them to its
parameters. A call through a plain alias (``candidate = pluck`` then ``candidate([4, 2, 3])``, as
HumanEval's ``check(candidate)`` tests are written) counts as a call of the aliased name too. Only
the *visible* tests are read: their content is already public, so showing the generated tests on
the scorecard leaks nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence

from bouts._pyast import literal_value
from bouts._pyast import parse as parse_python
from bouts.adversarial._model import Param

MAX_PER_NAME = 8
MAX_REPR = 2_000
"""A literal argument longer than this (as source) is not used: the generated test embeds it."""

Call = tuple[tuple[object, ...], dict[str, object]]


def example_calls(sources: Mapping[str, str]) -> dict[str, list[Call]]:
    """Callee name (``f`` of ``f(...)`` or ``x.f(...)``) → literal calls, in file and line order."""
    out: dict[str, list[Call]] = {}
    for rel in sorted(sources):
        try:
            tree = parse_python(sources[rel], filename=rel)
        except (SyntaxError, ValueError):
            continue
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
        aliases = _aliases(tree)
        for node in sorted(calls, key=lambda n: (n.lineno, n.col_offset)):
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
            if not name:
                continue
            call = None
            for callee in dict.fromkeys((name, aliases.get(name, name))):
                if len(out.get(callee, ())) >= MAX_PER_NAME:
                    continue
                call = call or _literal_call(node)
                if call is None:
                    break
                out.setdefault(callee, []).append(call)
    return out


def _aliases(tree: ast.AST) -> dict[str, str]:
    """``alias → name`` for each plain ``alias = name`` in the module (at any depth) whose alias is
    bound to one name only: ``candidate = pluck`` in every test function gives ``candidate → pluck``;
    an alias bound to two different names, or to anything else as well, is none."""
    targets: dict[str, set[str | None]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            value = node.value.id if isinstance(node.value, ast.Name) else None
            for target in node.targets:
                if isinstance(target, ast.Name):
                    targets.setdefault(target.id, set()).add(value)
        elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr) and isinstance(node.target, ast.Name):
            targets.setdefault(node.target.id, set()).add(None)
    return {alias: next(iter(names)) for alias, names in targets.items()  # type: ignore[misc]
            if len(names) == 1 and None not in names and alias not in names}  # fmt: skip


def _literal_call(node: ast.Call) -> Call | None:
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return None
    values: list[object] = []
    for arg in [*node.args, *(k.value for k in node.keywords)]:
        if len(ast.unparse(arg)) > MAX_REPR:
            return None
        try:
            values.append(literal_value(arg))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    positional = tuple(values[: len(node.args)])
    keywords = {str(k.arg): v for k, v in zip(node.keywords, values[len(node.args) :], strict=True)}
    return positional, keywords


def bind(params: Sequence[Param], calls: Sequence[Call]) -> dict[str, object]:
    """The first of ``calls`` that fits ``params`` (positional then keyword, every required
    parameter given), as name → value; ``{}`` when none fits."""
    positional = [p for p in params if not p.keyword_only]
    names = {p.name for p in params}
    for args, kwargs in calls:
        if len(args) > len(positional) or not set(kwargs) <= names:
            continue
        bound = {p.name: v for p, v in zip(positional, args, strict=False)}
        if set(bound) & set(kwargs):
            continue
        bound.update(kwargs)
        if all(p.has_default or p.name in bound for p in params):
            return bound
    return {}
