"""Read a test module's syntax tree: its tests, the behaviour and category each declares, how many
cases it expands to, and whether it reads the seed. Pure: source text in, data out; the test code
is never imported or run.

Conventions (docs/calibration.md):
- **behaviour**: ``@pytest.mark.behaviour("receive")`` on a test or class, or
  ``pytestmark = pytest.mark.behaviour(...)``; otherwise the name: ``test_<behaviour>`` for a
  visible test, ``test_<behaviour>__<variant>`` for a hidden one.
- **category**: ``@pytest.mark.behaviour("receive", category="edge")`` (or ``behaviour(category=...)``
  alone); otherwise a name heuristic over the variant, then the behaviour (:data:`EDGE_WORDS`,
  :data:`INTEGRATION_WORDS`); otherwise ``functionality``.
- **seeded**: takes the ``bouts_seed`` fixture or reads ``BOUTS_SEED``, directly or through a helper
  or fixture defined in the same module.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import cast, get_args

from bouts._pyast import parse as parse_python
from bouts.calibration.report import Category

CATEGORIES: tuple[Category, ...] = get_args(Category)
EDGE_WORDS = frozenset(
    [
        "raises",
        "raise",
        "rejects",
        "reject",
        "rejected",
        "invalid",
        "negative",
        "zero",
        "empty",
        "past",
        "beyond",
        "boundary",
        "overflow",
        "large",
        "huge",
        "scale",
        "10000",
        "non",
        "duplicate",
        "unknown",
        "missing",
        "error",
        "errors",
        "limit",
        "bad",
        "malformed",
    ]
)
INTEGRATION_WORDS = frozenset(
    [
        "then",
        "after",
        "workflow",
        "e2e",
        "integration",
        "round",
        "trip",
        "trips",
        "sequence",
        "interleaved",
        "whole",
        "cover",
        "lifecycle",
    ]
)
_RANDOM_FUNCS = frozenset(
    ["random", "randint", "randrange", "choice", "choices", "shuffle", "sample", "uniform", "gauss", "getrandbits"]
)
_MARKS = ("pytest.mark.", "mark.")


@dataclass(frozen=True)
class TestInfo:
    """One test function (or method) as written."""

    __test__ = False
    name: str
    """``test_x`` or ``TestClass::test_x``."""
    line: int
    behaviour: str
    category: Category
    category_declared: bool
    cases: int
    """1, or the product of the literal parametrize lists."""
    seeded: bool
    unseeded: tuple[str, ...] = ()
    """Randomness that does not come from the seed (``random.shuffle``, ``uuid.uuid4``...)."""
    kinds: frozenset[str] = frozenset()
    """The hidden-test kinds SPEC §3 names that this test (or a helper it calls) shows by its code or
    name: ``order``, ``scale``, ``invalid`` (see :func:`_kinds`); ``value_swap`` is decided against the
    visible tests by the lint."""
    literals: frozenset[str] = frozenset()
    """The test's own constant values (``repr``), docstrings and marker arguments left out: the lint
    compares a hidden test's with its behaviour's visible tests' to see values swapped."""


@dataclass
class _Facts:
    seeded: bool = False
    unseeded: list[str] = field(default_factory=list)
    refs: set[str] = field(default_factory=set)
    kinds: set[str] = field(default_factory=set)


KINDS = ("value_swap", "order", "scale", "invalid")
"""SPEC §3's hidden-test kinds: value swap, order sensitivity, 10,000-record scale, invalid input."""
SCALE = 10_000
ORDER_WORDS = frozenset(["order", "ordered", "unordered", "reverse", "reversed", "shuffle", "shuffled", "permutation",
                         "permuted", "sorted", "unsorted"])  # fmt: skip
ORDER_CALLS = frozenset(["reversed", "sorted", "shuffle", "sort", "sample", "permutations"])
INVALID_WORDS = frozenset(["invalid", "reject", "rejects", "rejected", "raises", "negative", "malformed", "bad",
                           "error", "errors", "illegal", "unknown", "wrong", "refused", "refuses"])  # fmt: skip
CLIENT_ERRORS = frozenset(range(400, 430))
"""An HTTP client-error status a test expects (``== 422``): invalid input, answered as such."""
SWAP_WORDS = frozenset(["swap", "swapped", "other", "different", "values"])
SCALE_WORDS = frozenset(["scale", "large", "bulk", "10000", "10k"])


def _name_kinds(name: str) -> set[str]:
    words = set(name.removeprefix("test_").replace("__", "_").lower().split("_"))
    vocabularies = (("order", ORDER_WORDS), ("invalid", INVALID_WORDS), ("value_swap", SWAP_WORDS),
                    ("scale", SCALE_WORDS))  # fmt: skip
    return {kind for kind, vocab in vocabularies if words & vocab}


def _kinds(node: ast.AST) -> set[str]:
    """The kinds a function's code shows: ``scale`` (an integer literal of 10,000 or more, or a power
    reaching it), ``order`` (reversing, sorting or shuffling, a ``[::-1]`` slice), ``invalid``
    (``pytest.raises``, an expected 4xx status)."""
    out: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and type(sub.value) is int and sub.value >= SCALE:
            out.add("scale")
        elif isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Pow):
            base, exp = sub.left, sub.right
            if (isinstance(base, ast.Constant) and isinstance(exp, ast.Constant) and type(base.value) is int
                    and type(exp.value) is int and 0 <= exp.value <= 12 and base.value ** exp.value >= SCALE):
                out.add("scale")  # fmt: skip
        elif isinstance(sub, ast.Call):
            callee = _dotted(sub.func).rpartition(".")[2]
            if callee in ORDER_CALLS:
                out.add("order")
            elif callee == "raises":
                out.add("invalid")
        elif isinstance(sub, ast.Slice) and isinstance(sub.step, ast.UnaryOp) and isinstance(sub.step.op, ast.USub):
            out.add("order")
        elif isinstance(sub, ast.Compare) and any(
            isinstance(c, ast.Constant) and type(c.value) is int and c.value in CLIENT_ERRORS
            for c in (sub.left, *sub.comparators)
        ):
            out.add("invalid")
    return out


def _literals(node: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    found = {repr(sub.value) for stmt in body for sub in ast.walk(stmt)
             if isinstance(sub, ast.Constant) and sub.value is not None and type(sub.value) is not bool}  # fmt: skip
    for call in _markers(node.decorator_list, "parametrize"):  # parametrised values are the test's values
        found |= {repr(sub.value) for arg in call.args[1:] for sub in ast.walk(arg) if isinstance(sub, ast.Constant)}
    return frozenset(found)


class MarkerError(ValueError):
    """A ``behaviour`` marker that is not a string literal or names an unknown category."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def split_name(name: str) -> tuple[str, str | None]:
    """``test_cancel__reverse_order`` → ``("cancel", "reverse_order")``; no variant → ``None``."""
    bare = name.removeprefix("test_")
    base, sep, variant = bare.partition("__")
    return base, (variant if sep else None)


def guess_category(name: str) -> Category:
    """The name heuristic: the variant's words decide first, then the behaviour's; an edge word
    outranks an integration word (``page_past_end_is_empty`` is an edge case)."""
    base, variant = split_name(name)
    for part in (variant, base):
        words = set((part or "").split("_"))
        if words & EDGE_WORDS:
            return "edge"
        if words & INTEGRATION_WORDS or "end_to_end" in (part or ""):
            return "integration"
    return "functionality"


def parse_tests(source: str, *, filename: str = "<test>") -> list[TestInfo]:
    """The tests of one module. Raises ``SyntaxError`` or :class:`MarkerError`."""
    tree = parse_python(source, filename=filename)
    facts = {n.name: _facts(n) for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for m in cls.body:
            if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef):
                facts.setdefault(m.name, _facts(m))
    _close(facts)
    seeds_module = _module_seeds_random(tree)
    module_mark = _pytestmark(tree.body)
    found: list[TestInfo] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            found.append(_test(node, node.name, [module_mark], facts, seeds_module))
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            outer = [module_mark, _pytestmark(node.body), *_markers(node.decorator_list, "behaviour")]
            for m in node.body:
                if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef) and m.name.startswith("test"):
                    found.append(_test(m, f"{node.name}::{m.name}", outer, facts, seeds_module))
    return found


def _test(
    node: ast.FunctionDef | ast.AsyncFunctionDef, name: str, outer: list[ast.Call | None],
    facts: dict[str, _Facts], seeds_module: bool,
) -> TestInfo:  # fmt: skip
    marks = [m for m in outer if m is not None] + _markers(node.decorator_list, "behaviour")
    behaviour, category = split_name(node.name)[0], None
    for mark in marks:  # outermost first: the most specific marker wins
        b, c = _read_behaviour(mark)
        behaviour, category = b or behaviour, c or category
    own = facts[node.name]
    unseeded = () if seeds_module else tuple(own.unseeded)
    return TestInfo(
        name=name, line=node.lineno, behaviour=behaviour,
        category=category or guess_category(node.name), category_declared=category is not None,
        cases=_cases(node), seeded=own.seeded, unseeded=unseeded,
        kinds=frozenset(own.kinds | _name_kinds(node.name)), literals=_literals(node),
    )  # fmt: skip


def _read_behaviour(call: ast.Call) -> tuple[str | None, Category | None]:
    name: str | None = None
    if call.args:
        arg = call.args[0]
        if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)) or len(call.args) > 1:
            raise MarkerError("behaviour() takes one string literal", call.lineno)
        name = arg.value
    category: Category | None = None
    for kw in call.keywords:
        if kw.arg != "category":
            raise MarkerError(f"behaviour() has no keyword '{kw.arg}'", call.lineno)
        value = kw.value.value if isinstance(kw.value, ast.Constant) else None
        if value not in CATEGORIES:
            raise MarkerError(f"category must be one of {', '.join(CATEGORIES)}", call.lineno)
        category = cast(Category, value)
    return name, category


def _dotted(expr: ast.expr) -> str:
    if isinstance(expr, ast.Attribute):
        return f"{_dotted(expr.value)}.{expr.attr}"
    return expr.id if isinstance(expr, ast.Name) else ""


def _markers(exprs: list[ast.expr], mark: str) -> list[ast.Call]:
    calls: list[ast.Call] = []
    for e in exprs:
        if isinstance(e, ast.List | ast.Tuple):
            calls += _markers(list(e.elts), mark)
        elif isinstance(e, ast.Call) and _dotted(e.func) in {p + mark for p in _MARKS}:
            calls.append(e)
    return calls


def _pytestmark(body: list[ast.stmt]) -> ast.Call | None:
    for stmt in body:
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in stmt.targets):
            calls = _markers([stmt.value], "behaviour")
            return calls[0] if calls else None
    return None


def _cases(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    n = 1
    for call in _markers(node.decorator_list, "parametrize"):
        values = (
            call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "argvalues"), None)
        )
        if isinstance(values, ast.List | ast.Tuple | ast.Set):
            n *= max(1, len(values.elts))
    return n


def _facts(node: ast.FunctionDef | ast.AsyncFunctionDef) -> _Facts:
    f = _Facts()
    params = [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]
    f.refs.update(params)
    f.seeded = "bouts_seed" in params
    f.kinds = _kinds(node)
    for sub in ast.walk(node):
        if (
            isinstance(sub, ast.Constant)
            and sub.value == "BOUTS_SEED"
            or isinstance(sub, ast.Name)
            and sub.id == "bouts_seed"
        ):
            f.seeded = True
        elif isinstance(sub, ast.Call):
            callee = _dotted(sub.func)
            f.refs.add(callee)
            if _is_unseeded(callee, sub):
                f.unseeded.append(f"line {sub.lineno}: {callee}()")
    return f


def _is_unseeded(callee: str, call: ast.Call) -> bool:
    mod, _, fn = callee.rpartition(".")
    if mod == "random" and fn in _RANDOM_FUNCS:
        return True
    # uuid4 / os.urandom / secrets make unique names (a temp database), not test data: not flagged.
    return callee in {"random.Random", "Random", "random.seed"} and not call.args


def _close(facts: dict[str, _Facts]) -> None:
    """Propagate seed use and unseeded randomness through helpers and fixtures of the module."""
    changed = True
    while changed:
        changed = False
        for f in facts.values():
            for ref in f.refs & facts.keys():
                other = facts[ref]
                if other.seeded and not f.seeded:
                    f.seeded = changed = True
                new = [u for u in other.unseeded if u not in f.unseeded]
                if new:
                    f.unseeded += new
                    changed = True
                if not other.kinds <= f.kinds:  # a helper's kinds are its caller's
                    f.kinds |= other.kinds
                    changed = True


def _module_seeds_random(tree: ast.Module) -> bool:
    """``random.seed(<something>)`` anywhere: the module's global generator is seeded on purpose."""
    return any(isinstance(n, ast.Call) and _dotted(n.func) == "random.seed" and bool(n.args) for n in ast.walk(tree))
