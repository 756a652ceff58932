"""Find the five targets inside one Python function: pure, ``ast`` in, targets out.

Deliberately simple, position-based data flow (no control-flow graph): a parameter counts as
checked once it appears in a test (``if``/``while``/``assert``), an ``isinstance`` or a call to a
function named like a check, on or before the line of the use. Everything is probed anyway —
``guarded`` only records what the analyser believed — because checks are often incomplete.
See ``docs/adversarial.md`` for what this finds and what it misses.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from bouts.adversarial._model import Target, TargetKind

ARITH = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
CHECK_CALL = re.compile(r"(^|_)(check|valid|validate|ensure|require|verify|assert|sanitize|clean)", re.I)
CONVERSIONS = frozenset({"int", "float", "Decimal", "complex", "Fraction"})
TYPED_BUILTINS = frozenset({"sum", "min", "max"})
"""Builtins whose failure on a wrong or empty argument is not simply a ``TypeError`` at the call.
Iteration, ``len``, ``sorted``, ``iter``, ``reversed`` and ``enumerate`` are not weak-type sinks:
Python's own answer to a wrong type there is a ``TypeError`` raised at that use, before anything
else happens, which is what a deliberate check raises too, so no caller can tell the difference
and a probe could only punish the absence of a redundant check (docs/adversarial.md)."""
SQL_CALLS = frozenset({"execute", "executemany", "executescript", "raw", "text"})
PATH_CALLS = frozenset({"open", "Path", "PurePath", "remove", "unlink", "rmtree", "rename", "listdir",
                        "makedirs", "mkdir", "read_text", "write_text", "read_bytes", "write_bytes"})  # fmt: skip
MATCHERS = frozenset({"match", "search", "fullmatch"})
LOCKISH = re.compile(r"lock|mutex|sem|cond|transaction|atomic|session\.begin", re.I)
VERSIONISH = re.compile(r"(^|_)ver(sion)?s?($|_)", re.I)
VERSION_LITERAL = re.compile(r"^v?\d+(\.\d+)+$")
CASEISH = re.compile(r"email|host|domain|ext|suffix|header|user|login|scheme|protocol|currency|country|locale", re.I)
PATHISH = re.compile(r"path|file|dir|folder|root", re.I)
BROAD = frozenset({"Exception", "BaseException", "*"})


@dataclass(frozen=True)
class Ctx:
    caught: frozenset[str] = frozenset()
    """Exception names caught by enclosing ``try`` statements ('*' for a bare except)."""
    locked: bool = False
    """Inside a ``with`` whose context manager looks like a lock or a transaction."""
    in_test: bool = False
    """Inside the test expression of an if/while/assert: a check, never a sink."""


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _direct_names(node: ast.AST) -> set[str]:
    """Names in ``node`` outside nested calls (``x[i + 1]`` has ``i``; ``x[f(i)]`` has none)."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Call):
        return set()
    return {n for child in ast.iter_child_nodes(node) for n in _direct_names(child)}


def _validated(test: ast.AST) -> set[str]:
    """Names a test validates. ``x == "19.99"`` is a special case, not a check of ``x``."""
    special = {
        n.id
        for c in ast.walk(test)
        if isinstance(c, ast.Compare) and all(isinstance(op, ast.Eq | ast.NotEq) for op in c.ops)
        and any(isinstance(s, ast.Constant) for s in (c.left, *c.comparators))
        for n in ast.walk(c) if isinstance(n, ast.Name)
    }  # fmt: skip
    elsewhere = {
        n.id
        for c in ast.walk(test)
        if not (isinstance(c, ast.Compare) and all(isinstance(op, ast.Eq | ast.NotEq) for op in c.ops))
        for n in ast.iter_child_nodes(c) if isinstance(n, ast.Name)
    }  # fmt: skip
    return (_names(test) - special) | elsewhere


def _call_name(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _caught(handler: ast.ExceptHandler) -> set[str]:
    if handler.type is None:
        return {"*"}
    elts = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return {e.id if isinstance(e, ast.Name) else e.attr if isinstance(e, ast.Attribute) else "?" for e in elts}


def walk(node: ast.AST, ctx: Ctx = Ctx()) -> Iterator[tuple[ast.AST, Ctx]]:
    """Every node under ``node`` (nested functions excluded) with its guard context."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        here = ctx
        yield child, here
        if isinstance(child, ast.Try):
            caught = frozenset(n for h in child.handlers for n in _caught(h))
            for stmt in child.body:
                yield stmt, Ctx(ctx.caught | caught, ctx.locked, ctx.in_test)
                yield from walk(stmt, Ctx(ctx.caught | caught, ctx.locked, ctx.in_test))
            for part in (*child.handlers, *child.orelse, *child.finalbody):
                yield from walk(part, ctx)
            continue
        if isinstance(child, ast.With | ast.AsyncWith):
            lockish = any(LOCKISH.search(ast.unparse(item.context_expr)) for item in child.items)
            inner = Ctx(ctx.caught, ctx.locked or lockish, ctx.in_test)
            for stmt in child.body:
                yield stmt, inner
                yield from walk(stmt, inner)
            continue
        if isinstance(child, ast.If | ast.While | ast.Assert | ast.IfExp):
            test = Ctx(ctx.caught, ctx.locked, True)
            yield from walk(child.test, test)
            yield child.test, test
            for part in ast.iter_child_nodes(child):
                if part is not child.test:
                    yield part, ctx
                    yield from walk(part, ctx)
            continue
        yield from walk(child, here)


def _guarded(ctx: Ctx, *needed: str) -> bool:
    return bool(ctx.caught & BROAD) or all(n in ctx.caught for n in needed)


class FunctionScan:
    """The targets of one function (``qualname`` is ``module:Class.method`` or ``module:func``)."""

    def __init__(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, file: str, qualname: str,
                 optional_returns: frozenset[str] = frozenset()) -> None:  # fmt: skip
        self.fn, self.file, self.qualname = fn, file, qualname
        args = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
        self.is_method = bool(args) and args[0].arg in ("self", "cls")
        self.params = {a.arg: (ast.unparse(a.annotation) if a.annotation else None) for a in args}
        self.params.pop("self", None)
        self.params.pop("cls", None)
        self.optional_returns = optional_returns
        self.nodes = list(walk(fn))
        self.checks: dict[str, int] = {}
        for node, ctx in self.nodes:
            for name in self._checked_names(node, ctx):
                self.checks[name] = min(self.checks.get(name, node.lineno), node.lineno)  # type: ignore[attr-defined]
        self.targets: list[Target] = []

    def _checked_names(self, node: ast.AST, ctx: Ctx) -> set[str]:
        if isinstance(node, ast.If | ast.While | ast.Assert | ast.IfExp):
            return _validated(node.test)
        if isinstance(node, ast.Call) and (CHECK_CALL.search(_call_name(node)) or _call_name(node) == "isinstance"):
            return {n for a in node.args for n in _names(a)}
        if isinstance(node, ast.For) and any(isinstance(n, ast.Raise) for n in ast.walk(node)):
            return _names(node.iter)  # e.g. ``for what, value in (("page", page), ...): if ...: raise``
        return set()

    def _param(self, node: ast.AST | None) -> str | None:
        return node.id if isinstance(node, ast.Name) and node.id in self.params else None

    def _checked(self, name: str, line: int) -> bool:
        return name in self.checks and self.checks[name] <= line

    def add(self, kind: TargetKind, node: ast.AST, sink: str, detail: str, **kw: object) -> None:
        line = getattr(node, "lineno", self.fn.lineno)
        self.targets.append(Target(kind, self.file, line, self.qualname, sink, detail, **kw))  # type: ignore[arg-type]

    def scan(self) -> list[Target]:
        for node, ctx in self.nodes:
            if ctx.in_test:
                continue
            self._inputs(node, ctx)
            self._pattern(node)
        self._nulls()
        return self.targets

    # -- unvalidated inputs and weak type assumptions -----------------------------------------
    def _inputs(self, node: ast.AST, ctx: Ctx) -> None:
        src = lambda: ast.unparse(node)[:80]  # noqa: E731  (only rendered for a hit)
        if isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Del):
            for p in sorted(_direct_names(node.slice) & self.params.keys()):
                guarded = (
                    self._checked(p, node.lineno)
                    or _guarded(ctx, "TypeError", "KeyError")
                    or _guarded(ctx, "TypeError", "IndexError")
                    or _guarded(ctx, "TypeError", "LookupError")
                )
                self.add("unvalidated_input", node, "indexing", f"{p} indexes `{src()}`", param=p, guarded=guarded)
            if (p := self._param(node.value)) and not self._checked(p, node.lineno):
                self.add("weak_type", node, "indexing", f"{p} is indexed without a type check: `{src()}`", param=p)
        elif isinstance(node, ast.BinOp | ast.AugAssign) and isinstance(node.op, ARITH):
            left = node.left if isinstance(node, ast.BinOp) else node.target
            right = node.right if isinstance(node, ast.BinOp) else node.value
            if any(isinstance(s, ast.Constant) and isinstance(s.value, str) or isinstance(s, ast.JoinedStr)
                   for s in (left, right)):  # fmt: skip
                return  # string formatting or concatenation, not arithmetic
            for side in (left, right):
                if (p := self._param(side)) and "str" not in (self.params[p] or ""):
                    guarded = self._checked(p, node.lineno) or _guarded(ctx, "TypeError")
                    self.add("unvalidated_input", node, "arithmetic", f"{p} reaches arithmetic `{src()}`",
                             param=p, guarded=guarded)  # fmt: skip
        elif isinstance(node, ast.Call):
            self._call(node, ctx, src)
        elif isinstance(node, ast.Attribute) and (p := self._param(node.value)) and not self._checked(p, node.lineno):
            self.add("weak_type", node, "attribute", f"{p}.{node.attr} assumes {p}'s type", param=p,
                     guarded=_guarded(ctx, "AttributeError"))  # fmt: skip

    def _call(self, node: ast.Call, ctx: Ctx, src: object) -> None:
        name = _call_name(node)
        args = [*node.args, *(k.value for k in node.keywords)]
        text = ast.unparse(node)[:80]
        if name in SQL_CALLS and node.args and not isinstance(node.args[0], ast.Constant | ast.Name):
            for p in sorted(_names(node.args[0]) & self.params.keys()):
                self.add("unvalidated_input", node, "sql", f"{p} is built into SQL text: `{text}`", param=p,
                         guarded=self._checked(p, node.lineno))  # fmt: skip
        elif name in PATH_CALLS or (name == "join" and "path" in ast.unparse(node.func)):
            for p in sorted({n for a in args for n in _names(a)} & self.params.keys()):
                self.add("unvalidated_input", node, "path", f"{p} reaches a file path: `{text}`", param=p,
                         guarded=self._checked(p, node.lineno))  # fmt: skip
        elif name in CONVERSIONS | TYPED_BUILTINS and isinstance(node.func, ast.Name):
            for p in [q for a in node.args[:1] if (q := self._param(a))]:
                if not self._checked(p, node.lineno):
                    self.add("weak_type", node, "conversion", f"`{text}` assumes {p} converts", param=p,
                             guarded=_guarded(ctx, "TypeError", "ValueError"))  # fmt: skip

    # -- pattern mismatches -------------------------------------------------------------------
    def _pattern(self, node: ast.AST) -> None:
        if isinstance(node, ast.Call) and _call_name(node) == "startswith" and isinstance(node.func, ast.Attribute):
            p = self._param(node.func.value)
            arg = node.args[0] if node.args else None
            if p and PATHISH.search(p) and isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                self.add("pattern_mismatch", node, "path-compare", f"{p}.startswith({arg.value!r}) compares path text",
                         param=p, literal=arg.value)  # fmt: skip
            return
        if not isinstance(node, ast.Compare) or len(node.ops) != 1:
            return
        left, op, right = node.left, node.ops[0], node.comparators[0]
        pl, pr = self._param(left), self._param(right)
        p, other = (pl, right) if pl else (pr, left)
        lit = other.value if isinstance(other, ast.Constant) else None
        text = ast.unparse(node)[:80]
        if isinstance(op, ast.Lt | ast.Gt | ast.LtE | ast.GtE):
            named = [ast.unparse(s) for s in (left, right) if isinstance(s, ast.Name | ast.Attribute)]
            versioned = any(VERSIONISH.search(n.split(".")[-1]) for n in named) or (
                isinstance(lit, str) and VERSION_LITERAL.match(lit)
            )
            if p and versioned and not any(isinstance(s, ast.Call | ast.Tuple) for s in (left, right)):
                both = pl and pr
                self.add("pattern_mismatch", node, "version", f"`{text}` compares versions as strings", param=p,
                         literal=lit if isinstance(lit, str) else None, other_param=pr if both else None)  # fmt: skip
        elif isinstance(op, ast.Eq | ast.NotEq) and p:
            if isinstance(lit, float) and not lit.is_integer():
                why = f"`{text}` compares floats exactly"
                self.add("pattern_mismatch", node, "float", why, param=p, literal=repr(lit))
            elif isinstance(lit, str) and PATHISH.search(p) and "/" in lit:
                self.add("pattern_mismatch", node, "path-compare", f"`{text}` compares path text", param=p, literal=lit)
            elif isinstance(lit, str) and CASEISH.search(p) and any(c.isalpha() for c in lit):
                self.add("pattern_mismatch", node, "case", f"`{text}` is case-sensitive", param=p, literal=lit)

    # -- missing null checks ------------------------------------------------------------------
    def _null_source(self, value: ast.AST) -> tuple[str, str | None] | None:
        """``(what, driving parameter)`` if ``value`` may be None."""
        if not isinstance(value, ast.Call):
            return None
        name = _call_name(value)
        driving = sorted({n for a in value.args for n in _names(a)} & self.params.keys())
        param = driving[-1] if driving else None
        if name == "get" and isinstance(value.func, ast.Attribute) and len(value.args) == 1 and not value.keywords:
            return "dict.get", param
        default = value.args[1] if name == "get" and len(value.args) == 2 else None
        if isinstance(default, ast.Constant) and default.value is None:
            return "dict.get", param
        if name in MATCHERS and isinstance(value.func, ast.Attribute):
            return f"re.{name}", param
        if name in self.optional_returns:
            return "optional-return", param
        return None

    def _nulls(self) -> None:
        sources: dict[str, list[tuple[int, str, str | None]]] = {}
        for node, _ in self.nodes:
            single = isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            if single and (found := self._null_source(node.value)):  # type: ignore[union-attr]
                sources.setdefault(node.targets[0].id, []).append((node.lineno, *found))  # type: ignore[union-attr]
            # Direct chains: ``re.match(...).group()``, ``d.get(k).x``, ``d.get(k)[0]``.
            if isinstance(node, ast.Attribute | ast.Subscript) and (found := self._null_source(node.value)):
                what, param = found
                self.add("missing_null_check", node, what, f"`{ast.unparse(node)[:80]}` uses {what}'s result unchecked",
                         param=param)  # fmt: skip
        guards: dict[str, list[int]] = {}
        for node, ctx in self.nodes:
            if ctx.in_test and isinstance(node, ast.Name):
                guards.setdefault(node.id, []).append(node.lineno)
            if isinstance(node, ast.BoolOp | ast.IfExp):
                for n in _names(node):
                    guards.setdefault(n, []).append(node.lineno)
        seen: set[str] = set()
        for node, ctx in self.nodes:
            if ctx.in_test or not isinstance(node, ast.Attribute | ast.Subscript):
                continue
            var = node.value.id if isinstance(node.value, ast.Name) else None
            if var not in sources or var in seen:
                continue
            before = [s for s in sources[var] if s[0] < node.lineno]
            if not before:
                continue
            line, what, param = before[-1]
            if any(line <= g <= node.lineno for g in guards.get(var, [])):
                continue
            seen.add(var)
            self.add("missing_null_check", node, what, f"{var} (from {what}, line {line}) is used without a None check",
                     param=param)  # fmt: skip


def rmw_attrs(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, int]]:
    """Instance attributes a method updates read-modify-write outside any lock: ``(attr, line)``."""

    def self_attr(node: ast.AST) -> str | None:
        while isinstance(node, ast.Subscript):
            node = node.value
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return node.attr
        return None

    def reads(node: ast.AST) -> set[str]:
        return {a for n in ast.walk(node) if isinstance(n, ast.Attribute) and (a := self_attr(n))}

    derived: dict[str, set[str]] = {}  # local name -> the self attributes its value was read from
    found: list[tuple[str, int]] = []
    for node, ctx in walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            via = {a for n in _names(node.value) for a in derived.get(n, set())}
            derived[node.targets[0].id] = reads(node.value) | via
        if ctx.locked:
            continue
        if isinstance(node, ast.AugAssign) and (attr := self_attr(node.target)):
            found.append((attr, node.lineno))
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if attr := self_attr(target):
                    via_locals = {a for n in _names(node.value) for a in derived.get(n, set())}
                    if attr in reads(node.value) | via_locals:
                        found.append((attr, node.lineno))
    return found
