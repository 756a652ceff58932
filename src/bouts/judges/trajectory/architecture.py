"""The architecture half of strategy: heuristics over the submission's Python code against ``starter/``.

Five heuristics, each counting only what the submission *introduced* (the starter's own debts are not
the agent's): complexity growth (radon cyclomatic complexity above 10 in a new or grown function),
coupling (new import edges beyond an allowance of 3), duplication (new repeated 4-statement blocks),
unused new abstractions (new functions/classes nothing refers to) and hard-coded special cases
(``if x == <literal>: return <literal>``). ``analyse`` is pure (sources in); ``read_sources`` picks them
from the submission view. docs/trajectory-judges.md#architecture gives the constants and their reasons.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from radon.complexity import cc_visit_ast

from bouts._pyast import parse as parse_python
from bouts.models.view import FileTree
from bouts.scoring.trajectory_math import ArchitecturePenalty

CC_LIMIT, CC_POINTS, CC_CAP = 10, 3.0, 30.0
IMPORT_ALLOWANCE, IMPORT_POINTS, IMPORT_CAP = 3, 2.0, 20.0
DUP_WINDOW, DUP_MIN_NODES, DUP_POINTS, DUP_CAP = 4, 20, 4.0, 20.0
UNUSED_POINTS, UNUSED_CAP = 5.0, 20.0
SPECIAL_POINTS, SPECIAL_CAP = 10.0, 30.0


@dataclass(frozen=True)
class Observation:
    """One thing a heuristic saw, for a finding."""

    heuristic: str
    file: str
    line: int
    message: str


def read_sources(tree: FileTree) -> dict[str, str]:
    """Python files of ``tree`` (a view's judged code or starter; not tests, none over the cap), by path."""
    return {f.rel: f.text for f in tree.with_suffix((".py",)) if f.text is not None and not _is_test(f.rel)}


def _is_test(rel: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return rel.startswith(("tests/", "test/")) or "/tests/" in rel or name.startswith("test_") or name == "conftest.py"


def _parse(src: str) -> ast.Module | None:
    try:
        return parse_python(src)
    except (SyntaxError, ValueError):
        return None


def _complexity(src: str) -> dict[str, tuple[int, int]]:
    """qualified name → (cyclomatic complexity, line) of every function and method."""
    try:
        blocks = cc_visit_ast(parse_python(src))
    except (SyntaxError, ValueError):
        return {}
    out: dict[str, tuple[int, int]] = {}
    for b in blocks:
        for inner in [b, *getattr(b, "methods", [])]:
            if not hasattr(inner, "methods"):  # functions and methods, not class aggregates
                key = f"{inner.classname}.{inner.name}" if getattr(inner, "classname", None) else inner.name
                out[key] = (inner.complexity, inner.lineno)
    return out


def _imports(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
    return names


def _windows(tree: ast.Module) -> Iterator[tuple[str, int]]:
    """Every run of DUP_WINDOW consecutive statements big enough to matter, as (shape, line)."""
    for node in ast.walk(tree):
        for attr in ("body", "orelse", "finalbody"):
            body = getattr(node, attr, None)
            if not isinstance(body, list) or len(body) < DUP_WINDOW or not isinstance(body[0], ast.stmt):
                continue
            for k in range(len(body) - DUP_WINDOW + 1):
                chunk = body[k : k + DUP_WINDOW]
                if sum(1 for s in chunk for _ in ast.walk(s)) >= DUP_MIN_NODES:
                    yield "\n".join(ast.dump(s) for s in chunk), chunk[0].lineno


def _definitions(tree: ast.Module) -> dict[str, tuple[int, bool]]:
    """name → (line, decorated) of every function, method and class."""
    defs: dict[str, tuple[int, bool]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defs[node.name] = (node.lineno, bool(node.decorator_list))
    return defs


def _references(trees: Mapping[str, ast.Module]) -> Counter[str]:
    refs: Counter[str] = Counter()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                refs[node.id] += 1
            elif isinstance(node, ast.Attribute):
                refs[node.attr] += 1
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
                refs[node.value] += 1  # __all__ entries, getattr(obj, "name")
            elif isinstance(node, ast.alias):
                refs[node.name.rsplit(".", 1)[-1]] += 1
    return refs


def _special_cases(tree: ast.Module) -> Iterator[ast.If]:
    """``if <x> == <literal>: return <literal>`` (or ``in (<literals>)``): an output keyed to one input."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare) or len(node.body) != 1:
            continue
        cmp, ret = node.test, node.body[0]
        literal_side = isinstance(cmp.comparators[0], ast.Constant | ast.Tuple | ast.List | ast.Set)
        if (
            isinstance(cmp.ops[0], ast.Eq | ast.In)
            and literal_side
            and isinstance(ret, ast.Return)
            and isinstance(ret.value, ast.Constant)
            and ret.value.value is not None
        ):
            yield node


def analyse(
    starter: Mapping[str, str], submission: Mapping[str, str]
) -> tuple[list[ArchitecturePenalty], list[Observation]]:
    """Compare the submission's Python sources with the starter's; penalties (capped) and evidence."""
    old_trees = {k: t for k, v in starter.items() if (t := _parse(v)) is not None}
    new_trees = {k: t for k, v in submission.items() if (t := _parse(v)) is not None}
    changed = [k for k in new_trees if starter.get(k) != submission.get(k)]
    seen: dict[str, list[Observation]] = {h: [] for h in ("complexity", "coupling", "duplication", "unused", "special")}

    for f in changed:
        old_cc = _complexity(starter.get(f, ""))
        for fn, (cc, line) in _complexity(submission[f]).items():
            before = old_cc.get(fn, (0, 0))[0]
            if cc > CC_LIMIT and cc > before:
                seen["complexity"].append(Observation("complexity", f, line, f"{fn}: complexity {before} → {cc}"))
        old_imports = _imports(old_trees[f]) if f in old_trees else set()
        for name in sorted(_imports(new_trees[f]) - old_imports):
            seen["coupling"].append(Observation("coupling", f, 1, f"new import of {name}"))
        old_defs = _definitions(old_trees[f]) if f in old_trees else {}
        refs = _references(new_trees)
        for name, (line, decorated) in _definitions(new_trees[f]).items():
            if name in old_defs or decorated or name.startswith("__") or name.startswith("test"):
                continue
            if refs[name] == 0:
                seen["unused"].append(Observation("unused", f, line, f"new {name} is never used"))
        old_special = {ast.dump(n) for t in old_trees.values() for n in _special_cases(t)}
        for node in _special_cases(new_trees[f]):
            if ast.dump(node) not in old_special:
                seen["special"].append(
                    Observation(
                        "special",
                        f,
                        node.lineno,
                        "special case returns a literal for a literal input (hard-coded output)",
                    )
                )

    old_dups = Counter(shape for t in old_trees.values() for shape, _ in _windows(t))
    new_windows = [(shape, f, line) for f, t in new_trees.items() for shape, line in _windows(t)]
    new_dups = Counter(shape for shape, _, _ in new_windows)
    for shape, count in new_dups.items():
        if count >= 2 and count > old_dups.get(shape, 0):
            f, line = next((f, line) for s, f, line in new_windows if s == shape)
            seen["duplication"].append(Observation("duplication", f, line, f"block repeated {count}×"))

    penalties = [
        ArchitecturePenalty(
            "complexity growth",
            len(seen["complexity"]),
            min(CC_CAP, CC_POINTS * sum(int(o.message.rsplit("→ ", 1)[1]) - CC_LIMIT for o in seen["complexity"])),
        ),
        ArchitecturePenalty(
            "new imports",
            len(seen["coupling"]),
            min(IMPORT_CAP, IMPORT_POINTS * max(0, len(seen["coupling"]) - IMPORT_ALLOWANCE)),
        ),
        ArchitecturePenalty(
            "duplication", len(seen["duplication"]), min(DUP_CAP, DUP_POINTS * len(seen["duplication"]))
        ),
        ArchitecturePenalty(
            "unused abstractions", len(seen["unused"]), min(UNUSED_CAP, UNUSED_POINTS * len(seen["unused"]))
        ),
        ArchitecturePenalty(
            "hard-coded special cases", len(seen["special"]), min(SPECIAL_CAP, SPECIAL_POINTS * len(seen["special"]))
        ),
    ]
    return penalties, [o for obs in seen.values() for o in obs]
