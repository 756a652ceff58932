"""The structure judge ("quality-structure"): how the changed code is organised and how it fails.

| dimension    | signal                                                         | weight per 100 judged lines |
|--------------|----------------------------------------------------------------|-----------------------------|
| readability  | naming: one-letter names, non-snake_case functions, classes    | 6 each                      |
| architecture | a driver (HTTP/CLI module) function holding logic (CC > 5)     | 15 each                     |
| architecture | a core module importing a driver module (layering inverted)    | 15 each                     |
| architecture | an import cycle the submission's imports close                 | 20 each                     |
| architecture | ``from x import *`` (hides what a module depends on)           | 15 each                     |
| architecture | a function mixing I/O (files, console, network) with logic     | 15 each                     |
| robustness   | bare ``except:`` / swallowed exception / broad except unlogged | 15 / 15 / 10                |
| robustness   | special-cased input answered with a constant                   | 20 each                     |
| idiomaticity | type-annotation coverage of changed public functions           | (1 − coverage) × 40         |
| idiomaticity | ``open()`` outside ``with``; mutable default argument          | 10 each                     |
| readability  | cleverness that hides intent (Python, ``_style.cleverness``)   | 8 each, capped at 30        |
| readability  | a comment restating the line under it (``_style.what_comments``) | 3 each, capped at 15      |

A "driver" is a module whose path names it one (``cli``, ``api``, ``routes``, ``views``, ``handlers``,
``web``, ``server``, ``http``, ``endpoints``, ``__main__``) or that imports a web or CLI framework.
Imports are read from the syntax tree; nothing is imported or run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from bouts import jsast
from bouts.judges.base import JUDGES, Judge, JudgeInput, Verdict
from bouts.judges.quality import _js_metrics as js_metrics
from bouts.judges.quality import _js_structure as js_rules
from bouts.judges.quality import _structure_rules as rules
from bouts.judges.quality._changes import ChangeSet, SourceFile
from bouts.judges.quality._js_changes import JsUnit
from bouts.judges.quality._scoring import Dimension, Hit, judge_changed_code, per_line
from bouts.judges.quality._style import cleverness, what_comments
from bouts.judges.quality.metrics import complexity
from bouts.languages import language

NAME = "quality-structure"
DRIVER_NAMES = frozenset(
    {"cli", "api", "routes", "views", "handlers", "web", "server", "http", "endpoints", "__main__"}
)
FRAMEWORKS = frozenset({"flask", "fastapi", "django", "starlette", "aiohttp", "typer", "click", "argparse",
                        "tornado", "bottle", "falcon", "sanic", "litestar"})
DRIVER_MAX_COMPLEXITY = 5
"""A driver function may branch on its arguments a little; beyond this it is deciding business rules."""
ANNOTATION_POINTS = 40.0
RULES: dict[str, tuple[Dimension, float]] = {
    "naming": ("readability", 6),
    "driver-logic": ("architecture", 15),
    "layering": ("architecture", 15),
    "import-cycle": ("architecture", 20),
    "star-import": ("architecture", 15),
    "io-in-logic": ("architecture", 15),
    "bare-except": ("robustness", 15),
    "swallowed-exception": ("robustness", 15),
    "broad-except": ("robustness", 10),
    "special-case": ("robustness", 20),
    "open-without-with": ("idiomaticity", 10),
    "mutable-default": ("idiomaticity", 10),
    "object-as-map": ("robustness", 10),
    "cleverness": ("readability", 8),
    "what-comment": ("readability", 3),
}
CAPS = {"structure.cleverness": 30.0, "structure.what-comment": 15.0}
"""Cleverness is bounded: at most 30 readability points (7.5 of the judge's score); comments that say
what instead of why at most 15."""


def module_name(rel: str) -> str:
    """``src/pkg/mod.py`` → ``pkg.mod``; ``pkg/__init__.py`` → ``pkg``."""
    parts = rel.removesuffix(".py").split("/")
    if parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def top_imports(f: SourceFile) -> Iterator[tuple[str, int]]:
    """(absolute module name, line) of imports executed at import time (not under TYPE_CHECKING)."""
    assert f.tree is not None
    package = module_name(f.rel).split(".")
    if not f.rel.endswith("__init__.py"):
        package = package[:-1]
    stack = list(f.tree.body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, ast.If) and "TYPE_CHECKING" in ast.unparse(stmt.test):
            continue
        if isinstance(stmt, ast.If | ast.Try):
            stack += [*stmt.body, *stmt.orelse, *getattr(stmt, "finalbody", []),
                      *(s for h in getattr(stmt, "handlers", []) for s in h.body)]
        elif isinstance(stmt, ast.Import):
            yield from ((alias.name, stmt.lineno) for alias in stmt.names)
        elif isinstance(stmt, ast.ImportFrom):
            base = package[: len(package) - stmt.level + 1] if stmt.level else []
            module = ".".join([*base, *([stmt.module] if stmt.module else [])])
            yield module, stmt.lineno
            yield from ((f"{module}.{alias.name}" if module else alias.name, stmt.lineno) for alias in stmt.names)


def is_driver(f: SourceFile) -> bool:
    parts = f.rel.removesuffix(".py").split("/")
    if DRIVER_NAMES & set(parts):
        return True
    return f.tree is not None and any(m.split(".")[0] in FRAMEWORKS for m, _ in top_imports(f))


def import_cycles(changes: ChangeSet) -> Iterator[tuple[list[str], str, int]]:
    """Cycles among the submission's modules that an import on a judged line closes."""
    files = {module_name(f.rel): f for f in changes.files if f.tree is not None}
    edges: dict[str, list[tuple[str, int]]] = {m: [] for m in files}
    for mod, f in files.items():
        edges[mod] = [(target, line) for target, line in top_imports(f) if target in files and target != mod]
    for component in _strongly_connected({m: [t for t, _ in e] for m, e in edges.items()}):
        if len(component) < 2:
            continue
        members = set(component)
        closing = [(files[m].rel, line) for m in component for t, line in edges[m]
                   if t in members and line in files[m].judged]
        if closing:
            yield sorted(component), closing[0][0], closing[0][1]


def _strongly_connected(graph: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (a hostile tree can hold thousands of modules)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            targets = graph[node]
            if i < len(targets):
                work.append((node, i + 1))
                nxt = targets[i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                out.append(component)
    return out


def structure_hits(changes: ChangeSet) -> list[Hit]:
    """Every structure hit of the change set, by the language's own rules (the language seam)."""
    hits: list[Hit] = language(changes.language).part("quality.structure")(changes)
    return hits


def py_structure_hits(changes: ChangeSet) -> list[Hit]:
    """Python (the language seam's ``quality.structure``)."""
    hits: list[Hit] = []

    def add(rule: str, file: str, line: int, message: str) -> None:
        dimension, weight = RULES[rule]
        hits.append(Hit(f"structure.{rule}", dimension, message, per_line(weight, changes, file, line), file, line))

    drivers = {module_name(f.rel) for f in changes.files if f.tree is not None and is_driver(f)}
    public: list[tuple[SourceFile, int, bool, str]] = []
    for f in changes.changed:
        if f.tree is None:
            continue
        driver = module_name(f.rel) in drivers
        for stmt in f.tree.body:
            if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names) and stmt.lineno in f.judged:
                add("star-import", f.rel, stmt.lineno, f"'from {stmt.module} import *' hides what this module uses")
        for line, comment in what_comments(f):  # seed 000: comments explain why, not what
            add("what-comment", f.rel, line, f"the comment '# {comment}' says what the line under it does, not why")
        top = [s for s in f.tree.body if not isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
        for line, message in cleverness(ast.Module(body=top, type_ignores=[]), f.tree):
            if line in f.judged:
                add("cleverness", f.rel, line, f"module level: {message}")
        if not driver:
            for target, line in top_imports(f):
                if target in drivers and line in f.judged:
                    add("layering", f.rel, line, f"core module {module_name(f.rel)} imports driver module {target}")
        for unit in (u for u in f.units if u.changed):
            fn = unit.node
            for check in (rules.naming, rules.error_handling, rules.special_cases, rules.resources,
                          rules.mutable_defaults):
                for rule, line, message in check(fn):
                    add(rule, f.rel, line, f"{unit.qualname}: {message}")
            for line, message in cleverness(fn):
                if line in f.judged:
                    add("cleverness", f.rel, line, f"{unit.qualname}: {message}")
            cc = complexity(unit)
            if driver and cc > DRIVER_MAX_COMPLEXITY:
                add("driver-logic", f.rel, unit.start,
                    f"{unit.qualname} sits in a driver module but holds logic (complexity {cc}): move it to the core")
            elif not driver and cc > DRIVER_MAX_COMPLEXITY and (io := rules.io_call(fn)):
                add("io-in-logic", f.rel, unit.start,
                    f"{unit.qualname} mixes I/O ({io}) with logic (complexity {cc}): keep I/O at the edges")
            if not any(part.startswith("_") and part != "__init__" for part in unit.qualname.split(".")):
                public.append((f, fn.lineno, rules.annotated(fn, "." in unit.qualname), unit.qualname))
    for component, file, line in import_cycles(changes):
        add("import-cycle", file, line, f"import cycle: {' → '.join(component + component[:1])}")
    if public:
        for f, line, ok, qualname in public:
            if not ok:
                share = changes.share(f.rel, line)
                hits.append(Hit("structure.annotations", "idiomaticity",
                                f"{qualname}: public function not fully type-annotated "
                                f"({sum(ok for *_, ok, _ in public)}/{len(public)} changed public functions are)",
                                ANNOTATION_POINTS / len(public) * share, f.rel, line))
    return hits


JS_FRAMEWORKS = frozenset({"express", "fastify", "koa", "@hapi/hapi", "hapi", "restify", "hono", "commander",
                           "yargs", "meow", "cac", "minimist", "http", "https", "next", "@nestjs/core"})


def js_module_name(rel: str) -> str:
    """``src/lib/util.mjs`` → ``src/lib/util``; ``src/lib/index.js`` → ``src/lib``."""
    stem = rel.rsplit(".", 1)[0]
    return stem.removesuffix("/index") if stem.endswith("/index") else stem


def js_imports(f: SourceFile, modules: set[str]) -> Iterator[tuple[str, int]]:
    """(module, line) of the submission modules a JavaScript file loads at import time (``import``,
    ``export ... from``, top-level ``require``; ``import()`` is deferred, like a ``TYPE_CHECKING`` import)."""
    assert f.js is not None
    here = f.rel.rsplit("/", 1)[0] if "/" in f.rel else ""
    for imp in jsast.imports(f.js):
        if imp.kind == "dynamic" or not imp.module.startswith("."):
            continue
        parts = [p for p in here.split("/") if p]
        for seg in imp.module.split("/"):
            if seg == "..":
                parts = parts[:-1]
            elif seg not in ("", "."):
                parts.append(seg)
        target = js_module_name("/".join(parts)) if "." in (parts[-1] if parts else "") else "/".join(parts)
        if target in modules:
            yield target, imp.node.line


def js_is_driver(f: SourceFile) -> bool:
    parts = js_module_name(f.rel).split("/")
    if (DRIVER_NAMES | {"bin"}) & set(parts):
        return True
    return f.js is not None and any(i.module.split("/")[0] in JS_FRAMEWORKS or i.module in JS_FRAMEWORKS
                                    for i in jsast.imports(f.js))


def js_structure_hits(changes: ChangeSet) -> list[Hit]:
    """The structure rules on a JavaScript/TypeScript change set (``_js_structure``)."""
    hits: list[Hit] = []

    def add(rule: str, file: str, line: int, message: str) -> None:
        dimension, weight = RULES[rule]
        hits.append(Hit(f"structure.{rule}", dimension, message, per_line(weight, changes, file, line), file, line))

    readable = [f for f in changes.files if f.js is not None]
    modules = {js_module_name(f.rel) for f in readable}
    drivers = {js_module_name(f.rel) for f in readable if js_is_driver(f)}
    graph: dict[str, list[tuple[str, int]]] = {js_module_name(f.rel): [] for f in readable}
    public: list[tuple[SourceFile, int, bool, str]] = []
    for f in readable:
        src = f.js
        assert src is not None
        me = js_module_name(f.rel)
        edges = [(t, line) for t, line in js_imports(f, modules) if t in modules and t != me]
        graph[me] = edges
        if not f.judged:
            continue
        if me not in drivers:
            for target, line in edges:
                if target in drivers and line in f.judged:
                    add("layering", f.rel, line, f"core module {me} imports driver module {target}")
        names = jsast.dotted_names(src)
        aliases = jsast.aliases(src, names)
        plain = js_rules.plain_objects(src)
        all_units = frozenset(u.fn.node.index for u in f.units if isinstance(u, JsUnit))
        for rule, line, message in js_rules.class_names(src, f.judged, all_units):
            add(rule, f.rel, line, message)
        typescript = jsast.dialect_for(f.rel) != "javascript"
        for unit in (u for u in f.units if u.changed):
            assert isinstance(unit, JsUnit)
            for rule, line, message in (
                *js_rules.naming(src, unit), *js_rules.error_handling(src, unit), *js_rules.special_cases(src, unit),
                *js_rules.resources(src, unit, names, aliases), *js_rules.object_as_map(src, unit, plain),
            ):
                add(rule, f.rel, line, f"{unit.qualname}: {message}")
            cc = js_metrics.complexity(src, unit)
            if me in drivers and cc > DRIVER_MAX_COMPLEXITY:
                add("driver-logic", f.rel, unit.start,
                    f"{unit.qualname} sits in a driver module but holds logic (complexity {cc}): move it to the core")
            elif me not in drivers and cc > DRIVER_MAX_COMPLEXITY and (
                    io := js_rules.io_call(src, unit, names, aliases)):
                add("io-in-logic", f.rel, unit.start,
                    f"{unit.qualname} mixes I/O ({io}) with logic (complexity {cc}): keep I/O at the edges")
            if typescript and unit.fn.name and not unit.fn.name.startswith(("_", "#")):
                public.append((f, unit.start, js_rules.annotated(src, unit), unit.qualname))
    by_module = {js_module_name(f.rel): f for f in readable}
    for component in _strongly_connected({m: [t for t, _ in e] for m, e in graph.items()}):
        members = set(component)
        closing = [(by_module[m].rel, line) for m in sorted(component) for t, line in graph[m]
                   if len(component) > 1 and t in members and line in by_module[m].judged]
        if closing:
            add("import-cycle", closing[0][0], closing[0][1], f"import cycle: {' → '.join(sorted(component))}")
    for f, line, ok, qualname in public:
        if not ok:
            hits.append(Hit("structure.annotations", "idiomaticity",
                            f"{qualname}: public function's parameters not fully typed "
                            f"({sum(ok for *_, ok, _ in public)}/{len(public)} changed public functions are)",
                            ANNOTATION_POINTS / len(public) * changes.share(f.rel, line), f.rel, line))
    return hits


class StructureJudge:
    """Layering, import cycles, naming, annotations, error handling and resources of changed code."""

    name = NAME
    component = "code_quality"

    def judge(self, inp: JudgeInput) -> Verdict:
        return judge_changed_code(
            self.name, inp, structure_hits, lambda: {"quality-structure rules": "2026.3"}, CAPS
        )


@JUDGES.register(NAME)
def make_structure_judge() -> Judge:
    """Offline code-quality judge: layering, cycles, naming, annotations, swallowed errors, open files."""
    return StructureJudge()
