"""Which expressions of a test file can carry the submission's behaviour ("tainted"). Pure.

The assertion rewriter (``_externalise``) must know, for each side of an assertion, whether it is
the *actual* value (computed by, or from, the submission: observed in the sandbox) or the
*expected* one (a literal, or a computation of the test's own: never sent into the sandbox, taken
from the reference's golden run instead). Getting this wrong one way sends an expected expression
into the sandbox (a leak); the other way stops observing the submission (a false pass), so the
analysis over-approximates: anything it cannot show to be the test's own is tainted.

Tainted: names imported from modules that are neither the standard library nor test tooling;
anything a star import could have brought; functions and classes of the file whose bodies use a
tainted name; fixtures' values (they are set up elsewhere) except a few known plain ones; ``self``;
locals assigned from, iterated over, or passed into a call together with, a tainted value.
"""

from __future__ import annotations

import ast
import builtins
import sys

UNTAINTED_MODULES = frozenset(sys.stdlib_module_names) | {
    "pytest", "_pytest", "hypothesis", "bouts_expect", "pluggy",
}  # fmt: skip
"""Top-level modules whose values are never the submission's."""
PLAIN_FIXTURES = frozenset({"bouts_seed", "tmp_path", "tmp_path_factory", "tmpdir", "request"})
"""Fixtures whose values are the engine's or pytest's own plain data."""
_BUILTINS = frozenset(dir(builtins))


def _top(module: str | None) -> str:
    return (module or "").split(".")[0]


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _targets(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _bound(node: ast.AST) -> set[str]:
    """Every name a definition binds inside itself: parameters, assignments, nested definitions."""
    out = _targets(node)
    for sub in ast.walk(node):
        if isinstance(sub, ast.arg):
            out.add(sub.arg)
        elif (isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and sub is not node) or (
            isinstance(sub, ast.ExceptHandler) and sub.name
        ):
            out.add(sub.name)  # type: ignore[union-attr]
    return out


class ModuleTaint:
    """Module-level facts: tainted globals, and whether unresolved names count as tainted."""

    def __init__(self, tree: ast.Module) -> None:
        self.star = False
        self.tainted: set[str] = set()
        self.defined: set[str] = set()
        bodies: dict[str, tuple[ast.AST, set[str]]] = {}
        assigns: list[tuple[set[str], ast.AST]] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    name = alias.asname or alias.name.split(".")[0]
                    self.defined.add(name)
                    if _top(alias.name) not in UNTAINTED_MODULES:
                        self.tainted.add(name)
            elif isinstance(node, ast.ImportFrom):
                untainted = node.level == 0 and _top(node.module) in UNTAINTED_MODULES
                for alias in node.names:
                    if alias.name == "*":
                        self.star = self.star or not untainted
                        continue
                    name = alias.asname or alias.name
                    self.defined.add(name)
                    if not untainted:
                        self.tainted.add(name)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self.defined.add(node.name)
                bodies[node.name] = (node, _bound(node))
            elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = _targets(node)
                self.defined |= targets
                if node.value is not None:
                    assigns.append((targets, node.value))
            else:
                self.defined |= _targets(node)
        changed = True
        while changed:
            changed = False
            for name, (body, bound) in bodies.items():
                if name not in self.tainted and self.expr_tainted(body, set(), bound):
                    self.tainted.add(name)
                    changed = True
            for targets, value in assigns:
                if not targets <= self.tainted and self.expr_tainted(value, set()):
                    self.tainted |= targets
                    changed = True

    def name_tainted(self, name: str, local: set[str], bound: set[str] = frozenset()) -> bool:  # type: ignore[assignment]
        if name in local or name in self.tainted:
            return True
        if name in bound or name in self.defined or name in _BUILTINS:
            return False
        return self.star  # an unresolved name: only a star import of the submission explains it

    def expr_tainted(self, node: ast.AST, local: set[str], bound: set[str] = frozenset()) -> bool:  # type: ignore[assignment]
        return any(self.name_tainted(n, local, bound) for n in _names_in(node))


class FunctionTaint:
    """Locals of one function that are tainted, by a fixpoint over its body."""

    def __init__(self, module: ModuleTaint, func: ast.FunctionDef | ast.AsyncFunctionDef,
                 parametrized: set[str], enclosing: set[str] = frozenset()) -> None:  # type: ignore[assignment]
        self.module = module
        args = func.args
        params = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
        params += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
        self.bound = set(params) | _bound(func)
        self.local: set[str] = set(enclosing)
        self.exposed: set[str] = set()
        """Names passed as arguments into a call that involves the submission: their values may
        be the submission's doing, but they also often hold the test's own expected data."""
        self.local |= {p for p in params if p not in parametrized and p not in PLAIN_FIXTURES}
        changed = True
        while changed:
            before = len(self.local)
            for node in ast.walk(func):
                self._step(node)
            changed = len(self.local) != before

    def tainted(self, node: ast.AST) -> bool:
        return self.module.expr_tainted(node, self.local, self.bound)

    def _step(self, node: ast.AST) -> None:
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.NamedExpr):
            value = node.value
            if value is not None and self.tainted(value):
                self.local |= _targets(node) if not isinstance(node, ast.NamedExpr) else {node.target.id}
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            if self.tainted(node.iter):
                self.local |= _targets(node.target)
        elif isinstance(node, ast.Try | ast.TryStar | ast.If | ast.While | ast.With | ast.AsyncWith):
            # Control dependence: what a branch, a handler or a ``with`` block binds depends on what the
            # submission did when the guard (the condition, the ``try`` or ``with`` body) involves it
            # (``try: led.get("X") / except KeyError: seen = True / else: seen = False``).
            guard: list[ast.AST] = [node.test] if isinstance(node, ast.If | ast.While) else list(node.body)
            if any(self.tainted(g) for g in guard):
                for part in (*getattr(node, "handlers", ()), *getattr(node, "orelse", ()), *node.body,
                             *getattr(node, "finalbody", ()), *getattr(node, "items", ())):  # fmt: skip
                    self.local |= _targets(part) | {h.name for h in ast.walk(part)
                                                    if isinstance(h, ast.ExceptHandler) and h.name}  # fmt: skip
        elif isinstance(node, ast.withitem):
            if node.optional_vars is not None and self.tainted(node.context_expr):
                self.local |= _targets(node.optional_vars) | _names_in(node.optional_vars)
        elif isinstance(node, ast.Call):
            parts = [*node.args, *(k.value for k in node.keywords)]
            if self.tainted(node.func) or any(self.tainted(p) for p in parts):
                # A call that involves the submission may mutate what it is given.
                if isinstance(node.func, ast.Attribute):
                    self.local |= {n for n in _names_in(node.func.value)}
                for p in parts:
                    if isinstance(p, ast.Name):
                        self.exposed.add(p.id)

    def exposed_in(self, node: ast.AST) -> bool:
        """Whether ``node`` reads a name that was handed to the submission (which may have changed it)."""
        return bool(_names_in(node) & self.exposed)
