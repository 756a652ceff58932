"""Name bindings of a Python module, scope by scope, for the computed-name resolver (``_dynamic``). Pure.

Each function, lambda and class is a scope; a name is looked up in its own scope, then the enclosing
functions', then the module's, then the builtins (``global``/``nonlocal`` send a binding where Python
sends it). Every binding of a name in a scope is kept (the resolver takes the union of their values:
flow-insensitive, so ``e = print; e = eval`` is both). What a name is bound to is an expression, an
import, or ``None`` (a binding whose value cannot be known: a parameter, a loop variable, a ``def``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Import:
    """``import a.b`` binds ``a`` to module ``a``; ``import a.b as c`` and ``from a import b`` bind the
    module or attribute by its dotted path."""

    path: str


Binding = ast.expr | Import | None


@dataclass(eq=False)
class Scope:
    node: ast.AST
    parent: Scope | None
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    is_class: bool = False

    def bind(self, name: str, value: Binding) -> None:
        self.bindings.setdefault(name, []).append(value)

    def module(self) -> Scope:
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def lookup(self, name: str) -> tuple[Scope, list[Binding]] | None:
        """The scope that binds ``name`` for code in this scope, and its bindings; None: a builtin or unbound."""
        scope: Scope | None = self
        first = True
        while scope is not None:
            if name in scope.bindings and (first or not scope.is_class):
                return scope, scope.bindings[name]
            first = False
            scope = scope.parent
        return None


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


class _Binder(ast.NodeVisitor):
    def __init__(self, module: ast.Module) -> None:
        self.root = Scope(module, None)
        self.scope = self.root
        self.of: dict[ast.AST, Scope] = {}
        """The scope every node sits in (a function's decorators and defaults sit outside it)."""
        self.declared: dict[Scope, dict[str, str]] = {}

    def generic_visit(self, node: ast.AST) -> None:
        self.of[node] = self.scope
        super().generic_visit(node)

    def _target(self, target: ast.expr, value: Binding) -> None:
        if isinstance(target, ast.Name):
            self._bind(target.id, value)
        elif isinstance(target, ast.Tuple | ast.List):
            values = value.elts if isinstance(value, ast.Tuple | ast.List) and len(value.elts) == len(target.elts) \
                else [None] * len(target.elts)
            for t, v in zip(target.elts, values, strict=True):
                self._target(t.value if isinstance(t, ast.Starred) else t, None if isinstance(t, ast.Starred) else v)
        elif isinstance(target, ast.Starred):
            self._target(target.value, None)

    def _bind(self, name: str, value: Binding) -> None:
        where = self.declared.get(self.scope, {}).get(name)
        scope = self.scope
        if where == "global":
            scope = self.root
        elif where == "nonlocal" and scope.parent is not None:
            found = scope.parent.lookup(name)
            scope = found[0] if found else scope.parent
        scope.bind(name, value)

    def visit_Global(self, node: ast.Global) -> None:
        self.of[node] = self.scope
        self.declared.setdefault(self.scope, {}).update(dict.fromkeys(node.names, "global"))

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.of[node] = self.scope
        self.declared.setdefault(self.scope, {}).update(dict.fromkeys(node.names, "nonlocal"))

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._target(target, node.value)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self._target(node.target, node.value)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name):
            load = ast.Name(node.target.id, ast.Load())
            self._bind(node.target.id, ast.copy_location(ast.BinOp(load, node.op, node.value), node))
        self.generic_visit(node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self._bind(node.target.id, node.value)
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                self._bind(alias.asname, Import(alias.name))
            else:
                top = alias.name.split(".")[0]
                self._bind(top, Import(top))
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = "." * node.level + (node.module or "")
        for alias in node.names:
            if alias.name != "*":
                self._bind(alias.asname or alias.name, Import(f"{base}.{alias.name}"))
        self.generic_visit(node)

    def _loop_target(self, target: ast.expr) -> None:
        for name in (n for n in ast.walk(target) if isinstance(n, ast.Name)):
            self._bind(name.id, None)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self._loop_target(node.target)
        self.generic_visit(node)

    visit_AsyncFor = visit_For

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            if item.optional_vars is not None:
                self._loop_target(item.optional_vars)
        self.generic_visit(node)

    visit_AsyncWith = visit_With

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self._bind(node.name, None)
        self.generic_visit(node)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self._loop_target(node.target)
        self.generic_visit(node)

    def _enter(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef) -> None:
        self.of[node] = self.scope
        outer = self.scope
        if not isinstance(node, ast.Lambda):
            self._bind(node.name, None)
            for deco in node.decorator_list:
                self.visit(deco)
        inner = Scope(node, outer, is_class=isinstance(node, ast.ClassDef))
        if isinstance(node, ast.ClassDef):
            for expr in (*node.bases, *(k.value for k in node.keywords)):
                self.visit(expr)
        else:
            args = node.args
            positional = [*args.posonlyargs, *args.args]
            defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
            pairs = [*zip(positional, defaults, strict=True), *zip(args.kwonlyargs, args.kw_defaults, strict=True)]
            for arg, default in pairs:
                inner.bind(arg.arg, default)
                if default is not None:
                    self.visit(default)
            for arg in (args.vararg, args.kwarg):
                if arg is not None:
                    inner.bind(arg.arg, None)
        self.scope = inner
        body = node.body if isinstance(node.body, list) else [node.body]
        for stmt in body:
            self.visit(stmt)
        self.scope = outer

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = _enter  # type: ignore[assignment]


def bind(module: ast.Module) -> tuple[Scope, dict[ast.AST, Scope]]:
    """The module's scope tree and the scope each node sits in."""
    binder = _Binder(module)
    binder.visit(module)
    return binder.root, binder.of
