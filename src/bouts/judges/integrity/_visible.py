"""What the visible tests expect and feed in: the evidence base of the hard-coding detectors.

Read from the visible test modules' syntax tree (never run):

- **expected** values: the literal operands of ``assert ... == / != / in / is ...``, the arguments of
  ``pytest.approx``, ``match=`` of ``pytest.raises``/``pytest.warns``, and parametrize tables;
- **inputs**: literal call arguments and parametrize tables.

A name bound to a literal in the same test function or at module level stands for that literal
(``results = [...]; standings(results)``, ``expected = [...]; assert f() == expected``). Each
value is kept twice: its distinctive scalars (``_literals``) and its distinctive structures
(``_structures``), so that a table of small numbers and team names is evidence as a whole even
though none of its cells is.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

from bouts.judges.integrity._literals import LitKey, callee, distinctive, leaves, literal_expr
from bouts.judges.integrity._structures import SKey, bindings, harvested, is_container, node_key

_NOT_INPUT_CALLS = frozenset({"fixture", "mark", "param", "skip", "xfail", "skipif"})


@dataclass(frozen=True)
class VisibleLiterals:
    """Distinctive literals harvested from the visible tests."""

    expected: frozenset[LitKey] = frozenset()
    """Scalars the tests assert results equal (right of ``==``, ``approx``, ``match=``, parametrize)."""
    inputs: frozenset[LitKey] = frozenset()
    """Scalars the tests pass in (call arguments, parametrize tables)."""
    expected_structures: frozenset[SKey] = frozenset()
    """Distinctive structures (and the structures nested in them) the tests assert results equal."""
    input_structures: frozenset[SKey] = frozenset()
    """Distinctive structures (and the structures nested in them) the tests pass in."""


def harvest(trees: list[ast.Module]) -> VisibleLiterals:
    """Read the expected and input values of the visible test modules."""
    expected: list[ast.AST] = []
    inputs: list[ast.AST] = []
    scalar_expected: set[LitKey] = set()
    for tree in trees:
        literals = _resolver(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare):
                for operand in (node.test.left, *node.test.comparators):
                    expected += literals(operand)
            elif isinstance(node, ast.Call):
                name = callee(node.func)
                if name == "approx":
                    scalar_expected.update(k for a in node.args for k, _ in leaves(a))
                elif name in {"raises", "warns"}:
                    scalar_expected.update(k for kw in node.keywords if kw.arg == "match" for k, _ in leaves(kw.value))
                elif name == "parametrize":
                    tables = [*node.args[1:2], *(kw.value for kw in node.keywords if kw.arg == "argvalues")]
                    rows = [row for table in tables for row in _rows(table, literals)]
                    expected += rows
                    inputs += rows
                elif name not in _NOT_INPUT_CALLS:
                    for arg in (*node.args, *(kw.value for kw in node.keywords)):
                        inputs += literals(arg)
    scalar_expected.update(k for n in expected for k, _ in leaves(n))
    return VisibleLiterals(
        expected=frozenset(k for k in scalar_expected if distinctive(k)),
        inputs=frozenset(k for n in inputs for k, _ in leaves(n) if distinctive(k)),
        expected_structures=harvested(_keys(expected)),
        input_structures=harvested(_keys(inputs)),
    )


def _resolver(tree: ast.Module):
    """``literals(node)``: the literal(s) a test expression stands for: itself, or what the name
    it reads was bound to (in its function first, then at module level)."""
    module = bindings(tree, nested=False)
    scopes: dict[int, dict[str, list[ast.expr]]] = {}
    for fn in ast.walk(tree):  # breadth first: an inner function's scope overrides its outer one
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            names = {**module, **bindings(fn, nested=True)}
            for n in ast.walk(fn):
                scopes[id(n)] = names

    def literals(node: ast.AST) -> list[ast.AST]:
        if literal_expr(node) or node_key(node) is not None:
            return [node]
        if isinstance(node, ast.Name):
            return list(scopes.get(id(node), module).get(node.id, []))
        return []

    return literals


def _rows(table: ast.expr, literals) -> list[ast.AST]:
    """The rows of a parametrize table (``pytest.param(...)`` rows by their values), and each row's
    values; the table itself when it is written out whole (a name bound to one is resolved)."""
    out: list[ast.AST] = []
    for node in [table, *literals(table)] if isinstance(table, ast.Name) else [table]:
        if not isinstance(node, ast.List | ast.Tuple):
            continue
        for row in node.elts:
            values = row.args if isinstance(row, ast.Call) and callee(row.func) == "param" else [row]
            out += values
            for value in values:
                out += list(value.elts) if isinstance(value, ast.Tuple | ast.List) else []
    return out


def _keys(nodes: Iterable[ast.AST]):
    for node in nodes:
        key = node_key(node)
        if is_container(key):
            yield key
