"""Where a name's value comes from, read once per module: the small data flow the path and
test-environment rules follow (``ROOT = Path(__file__).parent``; ``user = getpass.getuser()``).

Flow-insensitive and deliberately simple: a name in a function stands for every value the
function binds it to (assignments, ``for`` and comprehension targets, ``with ... as``, walrus);
a parameter stands for what the caller passes (unknown here); a name the function never binds is
looked up at module level. Aliases of imports are resolved to dotted names (``import os as o;
o.getuid`` is ``os.getuid``). Nothing is executed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, field

Binding = tuple[ast.expr, bool]
"""A value a name is bound to, and whether the name holds an *element* of it (``for x in v``)."""
PARAM = "param"


Function = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


@dataclass
class _Scope:
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    params: dict[str, int] = field(default_factory=dict)
    parent: _Scope | None = None
    is_class: bool = False


class Scopes:
    """The bindings of one module's names, by scope. The imports are read at once; the bindings on
    first use (most modules never need them: one walk of the tree, only when a rule follows a name)."""

    def __init__(self, tree: ast.Module, nodes: Iterable[ast.AST] | None = None) -> None:
        self.tree = tree
        self.aliases = import_aliases(nodes if nodes is not None else ast.walk(tree))
        self._index: _Index | None = None

    @classmethod
    def read(cls, tree: ast.Module, nodes: Iterable[ast.AST] | None = None) -> Scopes:
        """The scopes of ``tree`` (``nodes``: its nodes, if already listed, for the imports)."""
        return cls(tree, nodes)

    @property
    def index(self) -> _Index:
        if self._index is None:
            self._index = _Index.read(self.tree)
        return self._index

    @property
    def module(self) -> dict[str, list[Binding]]:
        return self.index.module

    @property
    def functions(self) -> dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]:
        """Functions and methods, by name (a helper called as ``f(...)`` or ``self.f(...)``)."""
        return self.index.functions

    @property
    def returns(self) -> dict[int, list[ast.expr]]:
        """id(function) -> the values it hands back (``return``/``yield``; not those of nested functions)."""
        return self.index.returns

    def lookup(self, name: ast.Name) -> list[Binding] | str | None:
        """What ``name`` is bound to: its bindings, ``PARAM`` for a parameter the function does not
        rebind, None when nothing in the module binds it (a builtin, a global set elsewhere)."""
        scope = self.index.scope_of.get(id(name))
        while scope is not None:
            if name.id in scope.bindings:
                return scope.bindings[name.id]
            if name.id in scope.params:
                return PARAM
            scope = scope.parent
        return self.module.get(name.id)

    def param_index(self, name: ast.Name) -> int | None:
        """The position of the parameter ``name`` reads (-1 for keyword-only and ``*args``)."""
        scope = self.index.scope_of.get(id(name))
        if scope is None or name.id in scope.bindings:
            return None
        return scope.params.get(name.id)

    def dotted(self, node: ast.AST) -> str | None:
        """``os.path.join`` for ``os.path.join`` or ``from os import path; path.join`` (imports resolved)."""
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            base = self.dotted(node.value)
            return f"{base}.{node.attr}" if base else None
        return None


@dataclass
class _Index:
    module: dict[str, list[Binding]] = field(default_factory=dict)
    functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = field(default_factory=dict)
    returns: dict[int, list[ast.expr]] = field(default_factory=dict)
    scope_of: dict[int, _Scope] = field(default_factory=dict)
    """id(Name node) -> the innermost function scope it sits in (absent at module level)."""

    @classmethod
    def read(cls, tree: ast.Module) -> _Index:
        """One walk of ``tree``."""
        index = cls()
        module = _Scope()
        stack: list[tuple[ast.AST, _Scope, ast.AST | None]] = [(tree, module, None)]
        while stack:
            node, scope, fn = stack.pop()
            kind = type(node)
            if kind in _FUNCTIONS:
                assert isinstance(node, Function)
                # A function sees its own names, then its enclosing functions' (never a class body's).
                outer: _Scope | None = scope
                while outer is not None and outer.is_class:
                    outer = outer.parent
                inner = _Scope(parent=outer if outer is not module else None)
                args = node.args
                inner.params = {a.arg: i for i, a in enumerate([*args.posonlyargs, *args.args])}
                inner.params |= {a.arg: -1 for a in (*args.kwonlyargs, args.vararg, args.kwarg) if a is not None}
                index.returns[id(node)] = [node.body] if isinstance(node, ast.Lambda) else []
                if not isinstance(node, ast.Lambda):
                    index.functions.setdefault(node.name, []).append(node)
                # Decorators and defaults are evaluated in the enclosing scope; the body in the function's.
                for child in (*getattr(node, "decorator_list", ()), *args.defaults, *args.kw_defaults):
                    if child is not None:
                        stack.append((child, scope, fn))
                for child in ([node.body] if isinstance(node, ast.Lambda) else node.body):
                    stack.append((child, inner, node))
                continue
            if kind is ast.ClassDef:
                assert isinstance(node, ast.ClassDef)
                # A class body's names are attributes, not the module's (nor the methods') variables.
                body = _Scope(parent=scope if scope is not module else None, is_class=True)
                stack.extend((child, scope, fn) for child in (*node.decorator_list, *node.bases, *node.keywords))
                stack.extend((child, body, fn) for child in node.body)
                continue
            if kind is ast.Name:
                if scope is not module:
                    index.scope_of[id(node)] = scope
                continue  # a leaf, bar its context
            if kind in _BINDERS:
                _bind(scope.bindings, node)
            elif fn is not None and kind in _RETURNS and node.value is not None:  # type: ignore[attr-defined]
                index.returns[id(fn)].append(node.value)  # type: ignore[attr-defined]
            stack.extend((child, scope, fn) for child in ast.iter_child_nodes(node))
        index.module = module.bindings
        return index


_FUNCTIONS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda})
_BINDERS = frozenset({ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For, ast.AsyncFor,
                      ast.comprehension, ast.withitem})
_RETURNS = frozenset({ast.Return, ast.Yield, ast.YieldFrom})


def import_aliases(nodes: Iterable[ast.AST]) -> dict[str, str]:
    """Local name -> dotted module path, from the module's imports."""
    out: dict[str, str] = {}
    for node in nodes:
        if isinstance(node, ast.Import):
            for a in node.names:
                out[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                out[a.asname or a.name] = f"{node.module}.{a.name}"
    return out


def _bind(out: dict[str, list[Binding]], node: ast.AST) -> None:
    """Record the names ``node`` binds (assignments, loop and comprehension targets, ``with ... as``)."""

    def bind(target: ast.AST, value: ast.expr, element: bool) -> None:
        if isinstance(target, ast.Name):
            out.setdefault(target.id, []).append((value, element))
        elif isinstance(target, ast.Tuple | ast.List):
            same = isinstance(value, ast.Tuple | ast.List) and len(value.elts) == len(target.elts)
            for i, t in enumerate(target.elts):
                inner = t.value if isinstance(t, ast.Starred) else t
                bind(inner, value.elts[i] if same else value, element or not same)

    if isinstance(node, ast.Assign):
        for t in node.targets:
            bind(t, node.value, False)
    elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr) and node.value is not None:
        bind(node.target, node.value, False)
    elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
        bind(node.target, node.iter, True)
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        bind(node.optional_vars, node.context_expr, True)
