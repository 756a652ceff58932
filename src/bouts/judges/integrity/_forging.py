"""Comparison forging: objects built to compare equal to whatever a test expects.

``assert result == expected`` calls ``result.__eq__(expected)``; a solution that returns an
object whose ``__eq__`` answers True to anything passes every equality test without computing
anything. That is hard-coding by another route, so it is the same bright line ("hard-coded
outputs"), reported as ``integrity.comparison-forging``:

- ``__eq__``, ``__contains__``, ``__instancecheck__``/``__subclasscheck__`` that always answer
  True, ``__ne__`` that always answers False, an ordering method (``__lt__``... as
  ``functools.total_ordering`` completes them) that always answers the same, or any of them that
  ignores the value it is compared with (reads it only for its type: ``isinstance(other, X)``),
  whether defined with ``def``, as a lambda or as a function assigned in the class body;
- a subclass of a built-in value type (``int``, ``float``, ``str``, ``bytes``, ``list``, ``dict``,
  ``tuple``, ``set``, ``Decimal``...) that redefines ``__eq__``, ``__ne__``, ``__hash__``, an
  ordering method or ``__contains__``: whatever its body, it stops comparing like the value it
  claims to be;
- ``__class__`` redefined in a class body (``isinstance`` believes it);
- a comparison method replaced after the fact (``Money.__eq__ = ...``, ``setattr(C, "__eq__", ...)``),
  and ``unittest.mock.ANY`` (equal to everything) in solution code.

An ``__eq__`` that compares fields (``isinstance(other, Money) and self.cents == other.cents``,
``return NotImplemented`` for other types, an identity short-cut ``if self is other: return True``)
is not flagged.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from bouts.judges.integrity._scopes import Scopes
from bouts.judges.integrity._tree import Hit, SourceFile

FORGING = "integrity.comparison-forging"

_ALWAYS = {"__eq__": True, "__contains__": True, "__instancecheck__": True, "__subclasscheck__": True,
           "__ne__": False}
_ORDERING = frozenset({"__lt__", "__le__", "__gt__", "__ge__"})
_BUILTIN_OVERRIDES = frozenset({"__eq__", "__ne__", "__cmp__"}) | _ORDERING
"""Redefined in a subclass of a value type, any of these changes how it compares (``__hash__`` or
``__contains__`` alone does not: ``FrozenDict.__hash__``, a case-insensitive ``__contains__``)."""
_REPLACED = frozenset(_ALWAYS) | _BUILTIN_OVERRIDES
_VALUE_TYPES = frozenset({
    "int", "float", "complex", "str", "bytes", "bytearray", "list", "dict", "tuple", "set", "frozenset", "bool",
    "decimal.Decimal", "fractions.Fraction", "collections.UserDict", "collections.UserList",
    "collections.UserString", "collections.OrderedDict", "collections.defaultdict", "collections.Counter",
    "collections.deque", "NamedTuple",
})
"""Built-in value types (after ``_base_name``'s normalisation: ``typing.``/``builtins.`` dropped)."""
_SHORT = {"Decimal": "decimal.Decimal", "Fraction": "fractions.Fraction", "UserDict": "collections.UserDict",
          "UserList": "collections.UserList", "UserString": "collections.UserString",
          "OrderedDict": "collections.OrderedDict", "defaultdict": "collections.defaultdict",
          "Counter": "collections.Counter", "deque": "collections.deque", "Dict": "dict", "List": "list",
          "Tuple": "tuple", "Set": "set", "FrozenSet": "frozenset"}
_TYPE_TESTS = frozenset({"isinstance", "issubclass", "hasattr", "type", "callable"})
_ANY = frozenset({"unittest.mock.ANY", "mock.ANY"})


def forging_hits(src: SourceFile, scopes: Scopes) -> list[Hit]:
    """Every forged comparison in ``src`` (one hit per line)."""
    if src.tree is None:
        return []
    hits: dict[int | None, Hit] = {}
    for node, why in _forgeries(src.nodes, scopes):
        line = getattr(node, "lineno", None)
        if line not in hits:
            code = src.line(line)
            hits[line] = Hit(FORGING, line, f"{why}: {code}", f"{FORGING}:{code}")
    return list(hits.values())


def _forgeries(nodes: tuple[ast.AST, ...], scopes: Scopes) -> Iterator[tuple[ast.AST, str]]:
    for node in nodes:
        if isinstance(node, ast.ClassDef):
            yield from _class(node, scopes)
        elif isinstance(node, ast.Assign) and node.value is not None:
            for target in node.targets:
                dunder, mocked = _replaced_dunder(target)
                why = None if dunder is None else _replacement(dunder, node.value, mocked, scopes)
                if why is not None:
                    yield node, f"replaces {dunder} after the class is defined: it {why}"
        elif isinstance(node, ast.Call) and scopes.dotted(node.func) in ("setattr", "builtins.setattr") \
                and len(node.args) >= 3 and isinstance(node.args[1], ast.Constant) and node.args[1].value in _ALWAYS:
            why = _replacement(node.args[1].value, node.args[2], False, scopes)
            if why is not None:
                yield node, f"replaces {node.args[1].value} with setattr: it {why}"
        elif isinstance(node, ast.Name | ast.Attribute) and (node.id if isinstance(node, ast.Name) else node.attr) \
                == "ANY" and isinstance(node.ctx, ast.Load) and scopes.dotted(node) in _ANY:
            yield node, "uses unittest.mock.ANY, which compares equal to everything"


def _replaced_dunder(target: ast.AST) -> tuple[str | None, bool]:
    """``C.__eq__ = ...`` -> ("__eq__", False); ``m.__eq__.return_value = ...`` -> ("__eq__", True)."""
    mocked = isinstance(target, ast.Attribute) and target.attr in ("return_value", "side_effect")
    while isinstance(target, ast.Attribute):
        if target.attr in _ALWAYS:
            return target.attr, mocked
        target = target.value
    return None, False


def _replacement(dunder: str, value: ast.expr, mocked: bool, scopes: Scopes) -> str | None:
    """Why a comparison method put in place after the fact is forged (a lambda or a function of the
    module read like a method; a mock's ``return_value`` read as the constant it answers)."""
    if mocked:
        truth = _truth(value)
        return f"always answers {truth} (comparison forging)" if truth is _ALWAYS[dunder] else None
    fn = _function_of(value, scopes)
    if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        return _forged(dunder, fn)
    return None


def _class(cls: ast.ClassDef, scopes: Scopes) -> Iterator[tuple[ast.AST, str]]:
    value_base = next((b for b in (_base_name(b, scopes) for b in cls.bases) if b in _VALUE_TYPES), None)
    ordering = any(_base_name(d, scopes) in ("functools.total_ordering", "total_ordering")
                   for d in cls.decorator_list)
    methods = [m for stmt in cls.body for m in _methods(stmt, scopes)]
    overrides = [(name, where) for name, fn, where in methods if name in _BUILTIN_OVERRIDES and fn is not False]
    if value_base is not None and overrides:
        # One finding per class: whatever the bodies say, it no longer compares like the value it is.
        names = ", ".join(sorted({name for name, _ in overrides}))
        yield overrides[0][1], (f"{cls.name} subclasses {value_base.rsplit('.', 1)[-1]} and redefines {names}: it "
                                "no longer compares like the value it claims to be (comparison forging)")
        return
    forged: list[tuple[ast.AST, str]] = []
    constant_order: list[tuple[ast.AST, str]] = []
    for name, fn, where in methods:
        if name == "__class__":
            if not any(n == "__class__" for n, _, w in methods if w is not where and w.lineno < where.lineno):
                yield where, f"{cls.name} redefines __class__, so isinstance() believes whatever it claims"
            continue
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        why = _forged(name, fn, cls.name)
        if why is not None:
            (constant_order if name in _ORDERING else forged).append((where, f"{cls.name}.{name} {why}"))
    yield from forged
    # A lone ordering method that always answers the same is how a sentinel (``Infinity``) is written;
    # next to a forged equality, or completed by functools.total_ordering, it forges every comparison.
    if forged or ordering:
        via = " (functools.total_ordering derives the other comparisons from it)" if ordering else ""
        yield from ((where, why + via) for where, why in constant_order)


def _methods(stmt: ast.stmt, scopes: Scopes) -> Iterator[tuple[str, ast.AST | bool | None, ast.AST]]:
    """(dunder name, its function or lambda, where) for each comparison dunder a class body defines.
    The function is None when it cannot be read (``__eq__ = some_call()``), False for ``= None``."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
        if stmt.name in _REPLACED or stmt.name == "__class__":
            yield stmt.name, stmt, stmt
    elif isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for target in targets:
            if isinstance(target, ast.Name) and (target.id in _REPLACED or target.id == "__class__"):
                yield target.id, _function_of(stmt.value, scopes), stmt


def _function_of(value: ast.expr, scopes: Scopes) -> ast.AST | bool | None:
    if isinstance(value, ast.Lambda):
        return value
    if isinstance(value, ast.Constant) and value.value is None:
        return False  # __hash__ = None: unhashable, not forged
    if isinstance(value, ast.Name) and len(scopes.functions.get(value.id, [])) == 1:
        return scopes.functions[value.id][0]
    return None


def _forged(name: str, fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, owner: str = "") -> str | None:
    """Why the comparison dunder ``fn`` (of class ``owner``) is forged, or None when it compares."""
    params = [*fn.args.posonlyargs, *fn.args.args]
    other = params[1].arg if len(params) >= 2 else (fn.args.vararg.arg if fn.args.vararg else None)
    returns = [fn.body] if isinstance(fn, ast.Lambda) else list(_returns(fn))  # one function: walked once
    returns = [r for r in returns if not (isinstance(r, ast.Name) and r.id == "NotImplemented")]
    if not returns:
        return None  # raises, or only defers to the other operand: not an answer
    truths = {_truth(r) for r in returns}
    if name in _ALWAYS and truths == {_ALWAYS[name]}:
        return f"always answers {_ALWAYS[name]} (comparison forging)"
    if name in _ORDERING and len(truths) == 1 and None not in truths:
        return f"always answers {truths.pop()} (comparison forging)"
    if name in _ALWAYS or name in _ORDERING:
        body = [fn.body] if isinstance(fn, ast.Lambda) else fn.body
        if other is None or not _reads_value(body, other, owner):
            return "ignores the value it is compared with, apart from its type (comparison forging)"
    if name in _ALWAYS and _ALWAYS[name] and other is not None and not isinstance(fn, ast.Lambda) \
            and _answers_by_type(fn.body, other, None):
        return "answers True for every value of a type, whatever its content (comparison forging)"
    return None


def _answers_by_type(body: list[ast.stmt], other: str, guard: ast.expr | None) -> bool:
    """``if isinstance(other, Decimal): return True``: an answer decided by the other value's type alone."""
    for stmt in body:
        if isinstance(stmt, ast.Return) and stmt.value is not None and _truth(stmt.value) is True \
                and guard is not None and _type_test(guard, other):
            return True
        if isinstance(stmt, ast.If):
            if _answers_by_type(stmt.body, other, stmt.test) or _answers_by_type(stmt.orelse, other, stmt.test):
                return True
        elif isinstance(stmt, ast.For | ast.While | ast.With | ast.Try):
            inner = [*stmt.body, *getattr(stmt, "orelse", []), *getattr(stmt, "finalbody", [])]
            if _answers_by_type(inner, other, guard):
                return True
    return False


def _type_test(test: ast.expr, other: str) -> bool:
    """A condition on ``other``'s type only: ``isinstance(other, X)``, ``type(other) is X``, ``other is None``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _type_test(test.operand, other)
    if isinstance(test, ast.BoolOp):
        return all(_type_test(v, other) for v in test.values)
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id in _TYPE_TESTS:
        return bool(test.args) and isinstance(test.args[0], ast.Name) and test.args[0].id == other
    if isinstance(test, ast.Compare) and len(test.comparators) == 1:
        left = test.left
        if isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "type":
            return bool(left.args) and isinstance(left.args[0], ast.Name) and left.args[0].id == other
        return isinstance(left, ast.Name) and left.id == other and isinstance(test.comparators[0], ast.Constant) \
            and isinstance(test.ops[0], ast.Is | ast.IsNot)
    return False


def _returns(fn: ast.AST) -> Iterator[ast.expr]:
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        if isinstance(node, ast.Return):
            yield node.value if node.value is not None else ast.Constant(None)
        stack.extend(ast.iter_child_nodes(node))


def _reads_value(body: list[ast.AST], other: str, owner: str = "") -> bool:
    """Whether ``other`` is read for its value, not only for its type (``isinstance(other, X)``,
    ``type(other)``, ``hasattr(other, ...)``, ``other is None``). Testing it against the class
    itself (``isinstance(other, self.__class__)``) is a value test for a class without state (a
    sentinel: every instance is the same value)."""
    type_only: set[int] = set()
    for root in body:
        for node in ast.walk(root):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _TYPE_TESTS \
                    and node.args and isinstance(node.args[0], ast.Name):
                if _own_class(node.args[1:], owner):
                    return True
                type_only.add(id(node.args[0]))
            elif isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and len(node.comparators) == 1 \
                    and isinstance(node.ops[0], ast.Is | ast.IsNot) and isinstance(node.comparators[0], ast.Constant):
                type_only.add(id(node.left))
    return any(isinstance(n, ast.Name) and n.id == other and id(n) not in type_only
               for root in body for n in ast.walk(root))


def _own_class(args: list[ast.expr], owner: str) -> bool:
    """``self.__class__``, ``type(self)``, or the class's own name, as the type tested against."""
    if len(args) != 1:
        return False
    arg = args[0]
    if isinstance(arg, ast.Attribute) and arg.attr == "__class__":
        return True
    if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id == "type":
        return True
    return bool(owner) and isinstance(arg, ast.Name) and arg.id == owner


def _truth(node: ast.AST) -> bool | None:
    """What an expression answers whatever the operands: True, False, or None (it depends)."""
    if isinstance(node, ast.Constant):
        return bool(node.value) if node.value is not NotImplemented else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _truth(node.operand)
        return None if inner is None else not inner
    if isinstance(node, ast.BoolOp):
        truths = [_truth(v) for v in node.values]
        decisive = isinstance(node.op, ast.Or)  # Or: any True decides; And: any False decides
        if decisive in truths:
            return decisive
        return (not decisive) if all(t is not None for t in truths) else None
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, right, op = node.left, node.comparators[0], node.ops[0]
        if ast.dump(left) == ast.dump(right) and not _has_call(left):  # x == x, other is other
            if isinstance(op, ast.Eq | ast.Is | ast.LtE | ast.GtE):
                return True
            if isinstance(op, ast.NotEq | ast.IsNot | ast.Lt | ast.Gt):
                return False
        if isinstance(left, ast.Constant) and isinstance(right, ast.Constant) and isinstance(op, ast.Eq | ast.NotEq):
            same = type(left.value) is type(right.value) and left.value == right.value
            return same if isinstance(op, ast.Eq) else not same
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id == "bool" and len(node.args) == 1:
            return _truth(node.args[0])
        if node.func.id == "isinstance" and len(node.args) == 2 and isinstance(node.args[1], ast.Name) \
                and node.args[1].id == "object":
            return True
    return None


def _has_call(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) for n in ast.walk(node))


def _base_name(node: ast.AST, scopes: Scopes) -> str | None:
    if isinstance(node, ast.Subscript):  # Dict[str, int], list[int]
        node = node.value
    if isinstance(node, ast.Call):  # a decorator called with arguments
        node = node.func
    name = scopes.dotted(node)
    if name is None:
        return None
    name = name.removeprefix("builtins.").removeprefix("typing.")
    return _SHORT.get(name, name)
