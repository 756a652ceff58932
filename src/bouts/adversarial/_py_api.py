"""The submission's public Python API and who calls whom: pure, sources (``str``) in.

A target deep in a private helper is probed through the public entries that reach it: the call
graph is resolved by name (same module, ``from x import y`` inside the submission, ``self.m``),
and parameters are followed when passed on by name. Objects are built with the simplest
constructor arguments the source admits; a class that cannot be built that way is skipped.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from bouts._pyast import literal_value
from bouts._pyast import parse as parse_python
from bouts.adversarial._model import Entry, Param

SETUP_VERB = re.compile(r"^(add|create|register|put|set|insert|new|push|open|deposit|receive|load|append|store|save)")
CONCURRENCY_MODULES = frozenset({"threading", "concurrent", "multiprocessing", "asyncio", "queue"})
CONCURRENCY_WORDS = re.compile(r"thread|concurren|parallel|Lock\(|shared", re.I)
SKIP_BASES = re.compile(r"Exception|Error|Warning|Enum|Protocol|TypedDict|NamedTuple|ABC")
SIMPLE_TYPES = re.compile(r"^(int|float|str|bool|bytes|list|dict|set|tuple|Decimal|None|Optional|Sequence|Mapping|"
                          r"Iterable|[a-z]+\[.*\]|.*\|.*)$")  # fmt: skip
MAX_DEPTH = 4
HANDLE_NAME = re.compile(
    r"^(db|database|conn|connection|con|cur|cursor|session|sess|engine|client|pool|tx|txn|transaction|uow|"
    r"sock|socket|transport|channel|redis|loop|executor)$|_(db|database|conn|connection|cursor|session|engine|"
    r"client|pool)$",
    re.I,
)  # fmt: skip
HANDLE_TYPE = re.compile(r"(Database|DB|Connection|Conn|Cursor|Session|Engine|Client|Pool|Transport|Socket|Redis|"
                         r"EventLoop|Executor)\b")  # fmt: skip


def is_handle(p: Param) -> bool:
    """Whether ``p`` is an infrastructure handle (a database, connection, session, client, ...):
    no value a test can invent is a real one, and a plain value only fails on plumbing
    (``init_schema(db=0)``), so it is never fuzzed and an entry that needs one is not called."""
    return bool(HANDLE_NAME.search(p.name) or (p.annotation and HANDLE_TYPE.search(p.annotation)))


@dataclass
class Function:
    """One function or method of the submission."""

    key: str
    """``module:func`` or ``module:Class.method``."""
    node: ast.FunctionDef | ast.AsyncFunctionDef
    file: str
    module: str
    cls: str | None
    params: list[Param]
    calls: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    """(callee key, callee parameter -> this function's parameter)."""


@dataclass
class Api:
    """Functions, classes and public entries of the submission."""

    functions: dict[str, Function] = field(default_factory=dict)
    entries: dict[str, Entry] = field(default_factory=dict)
    concurrent_classes: set[str] = field(default_factory=set)
    """``module:Class`` of classes likely used from several threads."""
    optional_returns: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    modules: dict[str, tuple[str, ast.Module, dict[str, str]]] = field(default_factory=dict)
    """Module → (file, tree, local name → ``module:name`` of its ``from`` imports)."""
    exported: set[str] = field(default_factory=set)
    """``module:name`` of the public API."""


def module_name(rel: str) -> str | None:
    """``ledger/core.py`` → ``ledger.core``; None when not importable from the code root."""
    parts = rel[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) if parts and all(p.isidentifier() for p in parts) else None


def params_of(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[Param]:
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    n_default = len(a.defaults)
    out = [Param(x.arg, ast.unparse(x.annotation) if x.annotation else None, i >= len(positional) - n_default)
           for i, x in enumerate(positional)]  # fmt: skip
    out += [Param(x.arg, ast.unparse(x.annotation) if x.annotation else None, d is not None, True)
            for x, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)]  # fmt: skip
    return [p for p in out if p.name not in ("self", "cls")] if out and out[0].name in ("self", "cls") else out


def _ctor(cls: ast.ClassDef) -> list[Param] | None:
    """The constructor's parameters, or None when the class cannot be built with plain values."""
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is not None:
        params = params_of(init)
    else:
        fields = [n for n in cls.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
                  and "ClassVar" not in ast.unparse(n.annotation)]  # fmt: skip
        params = [Param(f.target.id, ast.unparse(f.annotation), f.value is not None) for f in fields]  # type: ignore[union-attr]
    for p in params:
        plain = not p.annotation or SIMPLE_TYPES.match(p.annotation.replace(" ", ""))
        if not p.has_default and (is_handle(p) or not plain):
            return None  # needs an object we cannot invent (a connection, another class)
    return params


def _imports(tree: ast.Module, module: str, is_package: bool) -> dict[str, str]:
    """Local name → ``module:name`` for ``from x import y`` (relative imports resolved)."""
    out: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")
                keep = len(parts) - node.level + (1 if is_package else 0)
                base = ".".join([*parts[:keep], *([base] if base else [])])
            for alias in node.names:
                out[alias.asname or alias.name] = f"{base}:{alias.name}"
    return out


def _exports(trees: Mapping[str, tuple[str, ast.Module, dict[str, str]]]) -> set[str]:
    """``module:name`` of the public API: what each package's ``__init__`` exports (its
    ``__all__`` if it has one, else its public imports and definitions); for a module outside any
    package, its public names. A package's other modules are its internals."""
    out: set[str] = set()
    for module, (rel, tree, imports) in trees.items():
        in_package = "/" in rel and not rel.endswith("__init__.py")
        if in_package:
            continue
        defined = {n.name: f"{module}:{n.name}" for n in tree.body
                   if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}  # fmt: skip
        names = {**imports, **defined}
        listed = next(
            (literal_value(n.value) for n in tree.body if isinstance(n, ast.Assign)
             and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)
             and isinstance(n.value, ast.List | ast.Tuple)),
            None,
        )  # fmt: skip
        chosen = listed if listed is not None else [n for n in names if not n.startswith("_")]
        out |= {names[n] for n in chosen if n in names}
    return out


def build_api(sources: Mapping[str, str]) -> Api:
    """Parse every module, index functions, resolve calls, choose public entries."""
    api = Api()
    trees: dict[str, tuple[str, ast.Module, dict[str, str]]] = {}
    for rel, text in sorted(sources.items()):
        module = module_name(rel)
        if module is None:
            api.notes.append(f"{rel}: not importable from the code root; not probed")
            continue
        try:
            tree = parse_python(text)
        except (SyntaxError, ValueError) as exc:
            api.notes.append(f"{rel}: does not parse ({exc}); not analysed")
            continue
        trees[module] = (rel, tree, _imports(tree, module, rel.endswith("__init__.py")))
    exported = _exports(trees)
    api.modules, api.exported = trees, exported
    classes: dict[str, ast.ClassDef] = {}
    for module, (rel, tree, _) in trees.items():
        threaded = any(
            (isinstance(n, ast.Import) and any(a.name.split(".")[0] in CONCURRENCY_MODULES for a in n.names))
            or (isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] in CONCURRENCY_MODULES)
            for n in ast.walk(tree)
        )
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                _add(api, module, None, node, rel)
            elif isinstance(node, ast.ClassDef):
                classes[f"{module}:{node.name}"] = node
                if threaded or CONCURRENCY_WORDS.search(ast.unparse(node)):
                    api.concurrent_classes.add(f"{module}:{node.name}")
                for item in node.body:
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                        _add(api, module, node.name, item, rel)
    for fn in api.functions.values():
        _resolve_calls(api, fn, trees[fn.module][2])
    for fn in api.functions.values():
        entry = _entry(fn, classes, exported)
        if entry is not None:
            api.entries[fn.key] = entry
    return api


def _add(api: Api, module: str, cls: str | None, node: ast.FunctionDef | ast.AsyncFunctionDef, rel: str) -> None:
    key = f"{module}:{cls}.{node.name}" if cls else f"{module}:{node.name}"
    api.functions[key] = Function(key, node, rel, module, cls, params_of(node))
    returns = ast.unparse(node.returns) if node.returns else ""
    if "None" in returns and returns != "None" or "Optional" in returns:
        api.optional_returns.add(node.name)


def _resolve_calls(api: Api, fn: Function, imports: Mapping[str, str]) -> None:
    own = {p.name for p in fn.params}
    for call in (n for n in ast.walk(fn.node) if isinstance(n, ast.Call)):
        f = call.func
        if isinstance(f, ast.Name):
            key = f"{fn.module}:{f.id}" if f"{fn.module}:{f.id}" in api.functions else imports.get(f.id, "")
        elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self" and fn.cls:
            key = f"{fn.module}:{fn.cls}.{f.attr}"
        else:
            continue
        callee = api.functions.get(key)
        if callee is None:
            continue
        mapping: dict[str, str] = {}
        for i, arg in enumerate(call.args):
            if isinstance(arg, ast.Name) and arg.id in own and i < len(callee.params):
                mapping[callee.params[i].name] = arg.id
        for kw in call.keywords:
            if kw.arg and isinstance(kw.value, ast.Name) and kw.value.id in own:
                mapping[kw.arg] = kw.value.id
        fn.calls.append((key, mapping))


def _entry(fn: Function, classes: Mapping[str, ast.ClassDef], exported: set[str]) -> Entry | None:
    name = fn.node.name
    owner = fn.cls or name
    public = not owner.startswith("_") and f"{fn.module}:{owner}" in exported
    if (
        not public
        or name.startswith("_")
        or fn.node.decorator_list
        and any(
            ast.unparse(d) in ("property", "staticmethod", "classmethod") or ast.unparse(d).endswith(".setter")
            for d in fn.node.decorator_list
        )
    ):
        return None
    if any(is_handle(p) and not p.has_default for p in fn.params):
        return None  # cannot be called with plain values: it needs a real connection, session, ...
    if fn.cls is None:
        return Entry(fn.module, name, tuple(fn.params))
    cls = classes[f"{fn.module}:{fn.cls}"]
    if any(SKIP_BASES.search(ast.unparse(b)) for b in cls.bases):
        return None
    ctor = _ctor(cls)
    if ctor is None:
        return None
    setup = tuple(
        (m.name, tuple(params_of(m))) for m in cls.body if isinstance(m, ast.FunctionDef) and SETUP_VERB.match(m.name)
    )
    return Entry(fn.module, f"{fn.cls}.{name}", tuple(fn.params), tuple(ctor), setup)


def reach(api: Api, entry_key: str) -> list[tuple[str, dict[str, str], int]]:
    """Functions reachable from an entry: (key, callee param → entry param, depth), nearest first."""
    entry = api.functions[entry_key]
    start = {p.name: p.name for p in entry.params}
    out: list[tuple[str, dict[str, str], int]] = []
    seen: set[tuple[str, frozenset[tuple[str, str]]]] = set()
    frontier = [(entry_key, start, 0)]
    while frontier:
        key, mapping, depth = frontier.pop(0)
        state = (key, frozenset(mapping.items()))
        if state in seen:
            continue
        seen.add(state)
        out.append((key, mapping, depth))
        if depth >= MAX_DEPTH:
            continue
        for callee, argmap in api.functions[key].calls:
            frontier.append((callee, {cp: mapping[mp] for cp, mp in argmap.items() if mp in mapping}, depth + 1))
    return out
