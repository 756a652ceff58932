"""Per-function checks of the structure judge. Pure: a function's syntax tree in, observations out.

Each check yields ``(rule, line, message)``; the judge decides what each costs. Why each exists:

- ``naming``: a one-letter name other than the conventional ``i j k n x y z _ e`` makes a reader
  trace the assignment to learn what it holds; functions are snake_case and classes CapWords (PEP 8).
- ``bare-except`` / ``swallowed-exception`` / ``broad-except``: an error that is silently dropped
  becomes a wrong answer later, far from its cause.
- ``special-case``: ``if price == "19.99": return 1999`` answers one input with a constant: code that
  passes the example, not the rule.
- ``open-without-with``: a file opened outside ``with`` leaks its handle on the error path.
- ``mutable-default``: a ``[]``/``{}`` default is shared between calls.
- ``io_call``: feeds ``io-in-logic``: a function that both decides and does I/O cannot be tested
  without the disk or the network (STYLE: pure core, I/O at the edges).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from bouts.judges.quality._changes import FunctionNode

Observation = tuple[str, int, str]
CONVENTIONAL_SHORT = frozenset("ijknxyz_e")
SNAKE = re.compile(r"^_{0,2}[a-z][a-z0-9_]*_{0,2}$")
CAPWORDS = re.compile(r"^_?[A-Z][A-Za-z0-9]*$")
_TRIVIAL = (0, 1, -1, "", None, True, False)
_TAG = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HANDLING_CALLS = frozenset({"exception", "error", "warning", "warn", "critical", "log", "fatal"})
_OPENERS = frozenset({"open", "fdopen", "NamedTemporaryFile", "TemporaryFile", "urlopen"})
_MUTABLE_CALLS = frozenset({"list", "dict", "set", "defaultdict", "bytearray"})
_IO_CALLS = frozenset({"open", "print", "input", "urlopen", "fdopen", "read_text", "write_text", "read_bytes",
                       "write_bytes", "Popen", "check_output"})
_IO_MODULES = frozenset({"requests", "httpx", "socket", "subprocess", "urllib", "sqlite3", "shutil"})


def naming(fn: FunctionNode) -> Iterator[Observation]:
    """Cryptic one-letter names bound in the function, and a function name that is not snake_case."""
    if not SNAKE.match(fn.name) and not (fn.name.startswith("visit_") or fn.name.startswith("test")):
        yield "naming", fn.lineno, f"function '{fn.name}' is not snake_case"
    seen: set[str] = set()
    params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]
    bound = [(p, fn.lineno) for p in params]
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.append((node.id, node.lineno))
        elif isinstance(node, ast.ClassDef) and not CAPWORDS.match(node.name):
            yield "naming", node.lineno, f"class '{node.name}' is not CapWords"
    for name, line in bound:
        if len(name) == 1 and name not in CONVENTIONAL_SHORT and name not in seen:
            seen.add(name)
            yield "naming", line, f"'{name}' is a one-letter name: say what it holds"


def _handles(handler: ast.ExceptHandler) -> bool:
    """Does the handler re-raise or log (so the error is not lost)?"""
    for node in ast.walk(handler):
        if isinstance(node, ast.Raise):
            return True
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in _HANDLING_CALLS:
                return True
    return False


def _is_broad(type_: ast.expr | None) -> bool:
    names = type_.elts if isinstance(type_, ast.Tuple) else [type_]
    return any(isinstance(n, ast.Name) and n.id in ("Exception", "BaseException") for n in names)


def error_handling(fn: FunctionNode) -> Iterator[Observation]:
    """Handlers that drop errors: bare ``except:``, a body of only ``pass``/``...``/``continue``,
    or ``except Exception`` that neither re-raises nor logs."""
    for node in ast.walk(fn):
        if not isinstance(node, ast.ExceptHandler):
            continue
        empty = all(isinstance(s, ast.Pass | ast.Continue)
                    or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)) for s in node.body)
        if node.type is None:
            yield "bare-except", node.lineno, "bare 'except:' also catches KeyboardInterrupt and SystemExit"
        if empty:
            yield "swallowed-exception", node.lineno, "exception swallowed: the handler does nothing"
        elif (node.type is None or _is_broad(node.type)) and not _handles(node):
            yield "broad-except", node.lineno, "broad except neither re-raises nor logs: the error is lost"


def _data_literal(node: ast.expr) -> bool:
    """A constant that is data (a price, an id), not a trivial value or a symbolic tag."""
    if not isinstance(node, ast.Constant) or node.value in _TRIVIAL or isinstance(node.value, bool):
        return False
    return not (isinstance(node.value, str) and _TAG.match(node.value))


def special_cases(fn: FunctionNode) -> Iterator[Observation]:
    """``if <parameter> == <data literal>: return <data literal>`` (either operand order)."""
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    for node in ast.walk(fn):
        if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
            continue
        test = node.test
        if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq | ast.Is):
            continue
        left, right = test.left, test.comparators[0]
        operands = (left, right) if isinstance(left, ast.Name) else (right, left)
        name, literal = operands
        first = node.body[0]
        if (isinstance(name, ast.Name) and name.id in params and _data_literal(literal)
                and isinstance(first, ast.Return) and first.value is not None and _data_literal(first.value)):
            yield ("special-case", node.lineno,
                   f"answers {name.id} == {ast.unparse(literal)} with the constant {ast.unparse(first.value)}")


def resources(fn: FunctionNode) -> Iterator[Observation]:
    """Files opened outside a ``with`` (and not handed straight back to the caller)."""
    managed: set[int] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.With | ast.AsyncWith):
            managed.update(id(item.context_expr) for item in node.items)
        elif isinstance(node, ast.Return) and node.value is not None:
            managed.add(id(node.value))  # a factory that returns the open handle
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and id(node) not in managed:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in _OPENERS:
                yield "open-without-with", node.lineno, f"'{name}(...)' outside 'with': the handle leaks on errors"


def mutable_defaults(fn: FunctionNode) -> Iterator[Observation]:
    """Defaults that are mutable objects, created once and shared by every call."""
    for default in [*fn.args.defaults, *(d for d in fn.args.kw_defaults if d is not None)]:
        mutable = isinstance(default, ast.List | ast.Dict | ast.Set | ast.ListComp | ast.DictComp | ast.SetComp)
        if isinstance(default, ast.Call) and getattr(default.func, "id", "") in _MUTABLE_CALLS:
            mutable = True
        if mutable:
            shown = ast.unparse(default)[:40]
            yield "mutable-default", default.lineno, f"mutable default '{shown}' is shared between calls"


def annotated(fn: FunctionNode, is_method: bool) -> bool:
    """Are every parameter (``self``/``cls`` aside) and the return annotated? (``__init__`` needs no return.)"""
    args = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
    if is_method and args and args[0].arg in ("self", "cls"):
        args = args[1:]
    extra = [a for a in (fn.args.vararg, fn.args.kwarg) if a is not None]
    if any(a.annotation is None for a in [*args, *extra]):
        return False
    return fn.returns is not None or fn.name == "__init__"


def io_call(fn: FunctionNode) -> str | None:
    """The first I/O the function performs itself (file, console, network, process), if any."""
    for node in ast.walk(fn):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in _IO_CALLS:
            return f"{func.id}()"
        if isinstance(func, ast.Attribute):
            base = func.value
            if func.attr in _IO_CALLS or (isinstance(base, ast.Name) and base.id in _IO_MODULES):
                return f"{ast.unparse(func)[:40]}()"
    return None
