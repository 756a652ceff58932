"""Structured literals: lists, tuples, sets and dicts of literals, compared by shape and content.

A hard-coded solution rarely writes a distinctive *scalar*: a league table is made of team names
and small numbers, each of which any honest program writes. What gives it away is the *structure*:
the visible test's exact input ``[("Ajax", "Benfica", 2, 1)]`` stored as a dict key, or its exact
expected table stored as the value. This module gives such a literal a normalised key so that

- a list and a tuple with the same elements are one value (``tuple(results)`` is the usual key);
- a set, a ``frozenset(...)`` and, for a sequence of records, the set of its records are one value
  (``frozenset(results)`` ignores the order);
- a dict is its set of items;
- a string that spells a container (``repr(results)``, ``str(results)``, ``json.dumps(results)``) is
  the container it spells;
- scalars keep ``_literals.key_of``'s normalisation (``"19.99"``, ``19.99``, ``Decimal("19.99")``).

Only *distinctive* structures are evidence (``distinctive_structure``): an empty container, a pair
of small numbers or a short list of flags is written by every program.
"""

from __future__ import annotations

import ast
import contextlib
import json
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from bouts._pyast import parse as parse_python
from bouts.judges.integrity._literals import callee, distinctive, key_of, raise_conditions

SKey = tuple
"""``("seq", (...))``, ``("set", frozenset(...))``, ``("map", frozenset({(k, v), ...}))``, a scalar
``LitKey`` (``("num", "2")``, ``("str", "Ajax")``) or ``("const", "True" | "False" | "None")``."""

CONTAINERS = frozenset({"seq", "set", "map"})
_SCALAR_CALLS = frozenset({"Decimal", "Fraction", "float", "int", "str"})
_SET_CALLS = frozenset({"frozenset", "set"})
_SEQ_CALLS = frozenset({"tuple", "list"})
_MAP_CALLS = frozenset({"dict", "OrderedDict", "MappingProxyType"})
_PARSE_CALLS = frozenset({"loads", "literal_eval"})
STORING_CALLS = _SET_CALLS | _SEQ_CALLS | _MAP_CALLS | _PARSE_CALLS | _SCALAR_CALLS
"""Calls whose literal argument is stored as a value (``frozenset({...})``, ``json.loads("[...]")``);
the literal arguments of any other call are data handed to it (``print([...])``, ``Field(examples=[...])``)."""
_MAX_DEPTH = 40
"""Nesting read in a value ``json.loads`` gave back, and in a ``case`` pattern."""
_MAX_STRING_DEPTH = 3
"""A string spelling a container that holds strings spelling containers...: read this many levels."""
_MAX_PARSED_CHARS = 50_000


def is_container(key: SKey | None) -> bool:
    return key is not None and key[0] in CONTAINERS


def node_key(node: ast.AST, memo: dict[int, SKey | None] | None = None, strings: int = 0) -> SKey | None:
    """The normalised key of a literal expression; None when ``node`` is not written out in full.

    ``memo`` (by node id, for one syntax tree) makes reading every node of a tree linear: each
    literal's key is built once from its children's. The parser bounds the nesting depth;
    ``strings`` counts the strings-spelling-containers this tree was read from.
    """
    if memo is None:
        return _node_key(node, {}, strings)
    if (found := memo.get(id(node), _MISSING)) is not _MISSING:
        return found  # type: ignore[return-value]
    key = memo[id(node)] = _node_key(node, memo, strings)
    return key


_MISSING = object()


def _node_key(node: ast.AST, memo: dict[int, SKey | None], strings: int) -> SKey | None:
    if isinstance(node, ast.Constant):
        return value_key(node.value, strings)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = node.operand.value if isinstance(node.operand, ast.Constant) else None
        if isinstance(value, int | float) and not isinstance(value, bool):
            return key_of(-value if isinstance(node.op, ast.USub) else value)
        return None
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        elements = []
        for e in node.elts:
            if (k := node_key(e, memo, strings)) is None:
                return None
            elements.append(k)
        return ("set", frozenset(elements)) if isinstance(node, ast.Set) else ("seq", tuple(elements))
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            return None  # ``{**other}``
        items = []
        for k, v in zip(node.keys, node.values, strict=True):
            kk = node_key(k, memo, strings) if k is not None else None
            vk = node_key(v, memo, strings) if kk is not None else None
            if kk is None or vk is None:
                return None
            items.append((kk, vk))
        return ("map", frozenset(items))
    if isinstance(node, ast.Call) and not node.keywords and len(node.args) <= 1:
        return _call_key(callee(node.func), node.args[0] if node.args else None, memo, strings)
    return None


def _call_key(name: str, arg: ast.expr | None, memo: dict[int, SKey | None], strings: int) -> SKey | None:
    if arg is None:
        return {"frozenset": ("set", frozenset()), "set": ("set", frozenset()), "tuple": ("seq", ()),
                "list": ("seq", ()), "dict": ("map", frozenset())}.get(name)
    if name in _SCALAR_CALLS:
        inner = node_key(arg, memo, strings)
        return inner if inner is not None and not is_container(inner) else None
    if name in _PARSE_CALLS:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return _parsed(arg.value, strings + 1)
        return None
    inner = node_key(arg, memo, strings)
    if inner is None or not is_container(inner):
        return None
    kind, items = inner
    if name in _SET_CALLS:
        return ("set", frozenset(k for k, _ in items) if kind == "map" else frozenset(items))
    if name in _SEQ_CALLS and kind == "seq":
        return inner
    if name in _MAP_CALLS:
        if kind == "map":
            return inner
        if kind == "seq" and all(e[0] == "seq" and len(e[1]) == 2 for e in items):
            return ("map", frozenset((e[1][0], e[1][1]) for e in items))
    return None


def value_key(value: object, strings: int = 0, depth: int = 0) -> SKey | None:
    """The key of a Python value (a constant, or what ``json.loads`` gave back); ``strings`` as in
    ``node_key``, ``depth`` the nesting inside a ``json.loads`` value."""
    if isinstance(value, bool) or value is None:
        return ("const", repr(value))
    if isinstance(value, str):
        parsed = _parsed(value, strings + 1)
        return parsed if parsed is not None else key_of(value)
    if isinstance(value, int | float):
        return key_of(value)
    if depth > _MAX_DEPTH:
        return None
    if isinstance(value, list | tuple):
        elements = [value_key(e, strings, depth + 1) for e in value]
        return None if any(e is None for e in elements) else ("seq", tuple(elements))
    if isinstance(value, dict):
        items = [(value_key(k, strings, depth + 1), value_key(v, strings, depth + 1)) for k, v in value.items()]
        return None if any(k is None or v is None for k, v in items) else ("map", frozenset(items))
    return None


def _parsed(text: str, strings: int) -> SKey | None:
    """The container a string spells as a Python literal (``repr``/``str``) or as JSON, if any."""
    s = text.strip()
    if strings > _MAX_STRING_DEPTH or not 2 <= len(s) <= _MAX_PARSED_CHARS:
        return None
    if s[0] not in "[({" or s[-1] not in "])}":
        return None
    try:
        key = node_key(parse_python(s, mode="eval").body, None, strings)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        key = None
    if is_container(key):
        return key
    try:
        key = value_key(json.loads(s), strings)
    except (ValueError, RecursionError):
        return None
    return key if is_container(key) else None


def scalar_leaves(key: SKey) -> Iterator[SKey]:
    """The scalar values inside a structure (booleans and None left out: they carry no answer)."""
    kind = key[0]
    if kind in ("seq", "set"):
        for e in key[1]:
            yield from scalar_leaves(e)
    elif kind == "map":
        for k, v in key[1]:
            yield from scalar_leaves(k)
            yield from scalar_leaves(v)
    elif kind != "const":
        yield key


def sub_structures(key: SKey) -> Iterator[SKey]:
    """``key`` and every container nested in it."""
    if not is_container(key):
        return
    yield key
    kind, items = key
    for item in items:
        if kind == "map":
            yield from sub_structures(item[0])
            yield from sub_structures(item[1])
        else:
            yield from sub_structures(item)


def set_form(key: SKey) -> SKey | None:
    """A sequence of records as the set of its records (``frozenset(results)``, sorted copies)."""
    if key[0] == "seq" and len(key[1]) >= 2 and all(is_container(e) for e in key[1]):
        return ("set", frozenset(key[1]))
    return None


def distinctive_structure(key: SKey) -> bool:
    """Specific enough that writing it is evidence: a container holding a distinctive scalar and
    something else, or at least four scalars with at least three different values (so ``[]``,
    ``(0, 0)``, ``[1, 1, 1, 1]`` and ``{"a": 1}`` never count)."""
    if not is_container(key):
        return False
    leaves = list(scalar_leaves(key))
    if len(leaves) >= 2 and any(distinctive(k) for k in leaves):
        return True
    return len(leaves) >= 4 and len(set(leaves)) >= 3


def harvested(keys: Iterator[SKey]) -> frozenset[SKey]:
    """Every distinctive structure in ``keys`` and inside them, plus the set form of each."""
    out: set[SKey] = set()
    for key in keys:
        for sub in sub_structures(key):
            out.add(sub)
            if (form := set_form(sub)) is not None:
                out.add(form)
    return frozenset(k for k in out if distinctive_structure(k))


def show_structure(key: SKey, limit: int = 90) -> str:
    """A short Python-like rendering of a structure for a finding's message."""
    text = _render(key)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _ordered(kind: str, items) -> list:
    """The items of a container in a stable order (sets and dicts hash strings differently per run)."""
    if kind == "seq":
        return list(items)
    if kind == "map":
        return sorted(items, key=lambda kv: (_render(kv[0]), _render(kv[1])))
    return sorted(items, key=_render)


def _render(key: SKey) -> str:
    kind = key[0]
    if kind == "seq":
        return "[" + ", ".join(_render(e) for e in key[1]) + "]"
    if kind == "set":
        return "{" + ", ".join(sorted(_render(e) for e in key[1])) + "}"
    if kind == "map":
        return "{" + ", ".join(sorted(f"{_render(k)}: {_render(v)}" for k, v in key[1])) + "}"
    if kind == "const":
        return key[1]
    return repr(key[1]) if kind == "str" else key[1]


# -- reading a module -------------------------------------------------------------------------

Context = str
"""Where a structure sits: ``key`` (a dict key), ``value`` (a dict value), ``member`` (of a set),
``compare`` (an operand of ``==``/``in``/``is`` or a ``case`` pattern), ``stored`` (anything else:
assigned, returned, yielded)."""


@dataclass(frozen=True)
class Occurrence:
    """A structure written in a module, where it sits, and the node a finding cites for it."""

    key: SKey
    context: Context
    anchor: ast.AST
    """The outermost literal, comparison or pattern it belongs to: one finding per anchor."""
    origin: int
    """``id`` of the literal node it was read from (a name's literal is read at each comparison)."""


Matcher = Callable[[SKey, Context], bool]
_COMPARE_OPS = (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)
_LITERAL_NODES = (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Call, ast.Constant)


def docstring_ids(tree: ast.Module) -> set[int]:
    return {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)
    }


def bindings(
    scope: ast.AST, nested: bool, memo: dict[int, SKey | None] | None = None
) -> dict[str, list[ast.expr]]:
    """Names bound to a written-out literal in ``scope`` (its top-level statements only unless
    ``nested``): ``results = [...]`` in a test, ``_SEEN = frozenset({...})`` in a solution."""
    out: dict[str, list[ast.expr]] = {}
    nodes = ast.walk(scope) if nested else iter(getattr(scope, "body", []))
    for node in nodes:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if node_key(value, memo) is None:
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                out.setdefault(target.id, []).append(value)
    return out


def structure_counts(tree: ast.Module | None) -> Counter[SKey]:
    """How often a module writes each structure, docstrings aside: every outermost literal (and
    ``case`` pattern) with all the structures nested in it, including those a string spells."""
    counts: Counter[SKey] = Counter()
    if tree is None:
        return counts
    skip = docstring_ids(tree)
    memo: dict[int, SKey | None] = {}
    stack: list[ast.AST] = [tree]
    with contextlib.suppress(RecursionError):
        while stack:
            node = stack.pop()
            if id(node) in skip:
                continue
            key = None
            if isinstance(node, ast.match_case):
                key = _pattern_key(node.pattern)
            elif isinstance(node, _LITERAL_NODES) and not (
                isinstance(node, ast.Constant) and not (isinstance(node.value, str) and node.value.strip()[:1] in "[({")
            ):
                key = node_key(node, memo)
            if is_container(key):
                counts.update(sub_structures(key))
                if not isinstance(node, ast.match_case):
                    continue  # the nested literals are counted with it
            stack.extend(ast.iter_child_nodes(node))
    return counts


def occurrences(tree: ast.Module, matches: Matcher) -> list[Occurrence]:
    """The structures of ``tree`` that ``matches`` accepts in their context, outermost first (a
    match is not searched further inside), with docstrings, the messages of ``raise``/``assert``
    statements (their conditions are read) and the literal arguments of ordinary calls left out."""
    scanner = _Scanner(tree, matches)
    with contextlib.suppress(RecursionError):  # a pathological nesting depth: what was found stands
        scanner.visit(tree, "stored", None)
    return scanner.found


class _Scanner:
    def __init__(self, tree: ast.Module, matches: Matcher) -> None:
        self.skip = docstring_ids(tree)
        self.matches = matches
        self.memo: dict[int, SKey | None] = {}
        self.module_names = bindings(tree, nested=False, memo=self.memo)
        self.names: list[dict[str, list[ast.expr]]] = []
        self.found: list[Occurrence] = []

    def visit(self, node: ast.AST, ctx: Context, anchor: ast.AST | None) -> None:
        if id(node) in self.skip:
            return
        if isinstance(node, ast.Assert | ast.Raise):
            # Their messages describe; the condition of an assert, or of ``raise A if cond else B``,
            # decides (a failure raised on exactly the test's input answers a pytest.raises test).
            tests = [node.test] if isinstance(node, ast.Assert) else list(raise_conditions(node))
            for test in tests:
                self.visit(test, "stored", None)
            return
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            self.names.append(bindings(node, nested=True, memo=self.memo))
            for child in ast.iter_child_nodes(node):
                self.visit(child, "stored", None)
            self.names.pop()
            return
        if isinstance(node, ast.Compare):
            self._compare(node)
            return
        if isinstance(node, ast.match_case):
            key = _pattern_key(node.pattern)
            if is_container(key):
                self.record(key, "compare", node.pattern, id(node.pattern))
            for child in (node.guard, *node.body):
                if child is not None:
                    self.visit(child, "stored", None)
            return
        if isinstance(node, ast.Call) and callee(node.func) not in STORING_CALLS:
            self.visit(node.func, "stored", None)
            for arg in (*node.args, *(kw.value for kw in node.keywords)):
                if node_key(arg, self.memo) is None:  # a literal handed to a call is data, not a stored answer
                    self.visit(arg, "stored", None)
            return
        if isinstance(node, _LITERAL_NODES):
            key = node_key(node, self.memo)
            if is_container(key):
                self.record(key, ctx, anchor or node, id(node))
                return
        anchor_here = anchor or node
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values, strict=True):
                if k is not None:
                    self.visit(k, "key", anchor_here)
                self.visit(v, "value", anchor_here)
        elif isinstance(node, ast.Set):
            for e in node.elts:
                self.visit(e, "member", anchor_here)
        elif isinstance(node, ast.List | ast.Tuple):
            for e in node.elts:
                self.visit(e, ctx, anchor)
        else:
            for child in ast.iter_child_nodes(node):
                self.visit(child, "stored", None)

    def record(self, key: SKey, ctx: Context, anchor: ast.AST, origin: int) -> None:
        """Record ``key`` if it matches, else look inside it (dict keys and set members change context)."""
        if self.matches(key, ctx):
            self.found.append(Occurrence(key, ctx, anchor, origin))
            return
        kind, items = key[0], key[1] if is_container(key) else ()
        for item in _ordered(kind, items):
            if kind == "map":
                for sub, sub_ctx in ((item[0], "key"), (item[1], "value" if ctx != "compare" else ctx)):
                    if is_container(sub):
                        self.record(sub, sub_ctx, anchor, origin)
            elif is_container(item):
                self.record(item, "member" if kind == "set" and ctx != "compare" else ctx, anchor, origin)

    def _compare(self, node: ast.Compare) -> None:
        if not any(isinstance(op, _COMPARE_OPS) for op in node.ops):
            for child in ast.iter_child_nodes(node):
                self.visit(child, "stored", None)
            return
        for operand in (node.left, *node.comparators):
            literals = [operand] if node_key(operand, self.memo) is not None else self._resolve(operand)
            if not literals:
                self.visit(operand, "stored", None)
            for literal in literals:
                key = node_key(literal, self.memo)
                if is_container(key):
                    self.record(key, "compare", node, id(literal))

    def _resolve(self, operand: ast.expr) -> list[ast.expr]:
        if not isinstance(operand, ast.Name):
            return []
        for scope in reversed(self.names):
            if operand.id in scope:
                return scope[operand.id]
        return self.module_names.get(operand.id, [])


def _pattern_key(pattern: ast.pattern, depth: int = 0) -> SKey | None:
    """``case [("Ajax", "Benfica", 2, 1)]:`` as a structure; None for patterns that capture."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(pattern, ast.MatchValue):
        return node_key(pattern.value)
    if isinstance(pattern, ast.MatchSingleton):
        return value_key(pattern.value)
    if isinstance(pattern, ast.MatchSequence):
        elements = [_pattern_key(p, depth + 1) for p in pattern.patterns]
        return None if any(e is None for e in elements) else ("seq", tuple(elements))
    if isinstance(pattern, ast.MatchMapping) and pattern.rest is None:
        keys = [node_key(k) for k in pattern.keys]
        values = [_pattern_key(p, depth + 1) for p in pattern.patterns]
        if any(k is None for k in keys) or any(v is None for v in values):
            return None
        return ("map", frozenset(zip(keys, values, strict=True)))
    return None
