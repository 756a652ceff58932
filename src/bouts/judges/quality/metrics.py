"""The metrics judge ("quality-metrics"): numbers measured on the changed functions.

A function over a threshold costs its *share of the judged lines* times a severity that grows with
the excess (capped at 100): a 90-line function that is most of the change costs far more than the
same function inside a large, otherwise tidy change.

| dimension    | signal                                   | threshold | cost                                     |
|--------------|------------------------------------------|-----------|------------------------------------------|
| readability  | function length (non-blank body lines)   | > 50      | share × min(100, 2 × lines over)         |
| readability  | nesting depth of blocks                  | > 3       | share × min(100, 25 × levels over)       |
| architecture | duplication (shared token windows)       | any       | duplicated share of tokens × 100         |
| architecture | parameters                               | > 6       | 4 per parameter over, per 100 lines      |
| robustness   | cyclomatic complexity (radon)            | > 10      | share × min(100, 5 × points over)        |
| robustness   | unreachable statements                   | any       | 10 each, per 100 lines                   |
| idiomaticity | dead code: unused import, unused private | any       | 6 each, per 100 lines                    |
| readability  | inconsistent style (Python, ``_style``)   | a mixed signal | 40 × minority share, per signal      |

Inconsistent style: naming convention of functions and of variables, quote delimiters, string
formatting idiom and indentation width, each a share of the submission's own observations (``_style``
gives the formula; a consistent submission in any one style costs nothing).
Caps per rule: complexity 80, nesting 60, length 60, duplication 60, inconsistent style 40, others 50.
Thresholds follow common practice (radon rank C starts at 11; pylint's max-args is 5, ours is 6
because methods count ``self``). Nothing is executed: radon and ``ast`` read the source.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from importlib.metadata import version
from typing import Any

from radon.complexity import cc_visit_ast

from bouts.judges.base import JUDGES, Judge, JudgeInput, Verdict
from bouts.judges.quality import _js_metrics as js
from bouts.judges.quality._changes import ChangeSet, SourceFile, Unit
from bouts.judges.quality._duplication import find_clones
from bouts.judges.quality._js_changes import JsUnit
from bouts.judges.quality._scoring import Dimension, Hit, judge_changed_code, per_line
from bouts.judges.quality._style import inconsistency
from bouts.languages import language

NAME = "quality-metrics"
MAX_COMPLEXITY = 10
MAX_LENGTH = 50
MAX_NESTING = 3
MAX_PARAMS = 6
_BLOCKS = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.TryStar, ast.With, ast.AsyncWith, ast.Match)
_JUMPS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
CAPS = {"metrics.complexity": 80.0, "metrics.nesting": 60.0, "metrics.length": 60.0, "metrics.duplication": 60.0,
        "metrics.inconsistent-style": 40.0}


def complexity(unit: Unit) -> int:
    """McCabe complexity by radon, nested functions' decisions included (they are the same code)."""
    blocks = cc_visit_ast(ast.Module(body=[unit.node], type_ignores=[]))
    total = 0
    pending = [b for b in blocks if getattr(b, "lineno", None) == unit.node.lineno]
    first = True
    while pending:
        block = pending.pop()
        total += block.complexity if first else block.complexity - 1
        first = False
        pending.extend(getattr(block, "closures", []))
    return max(total, 1)


def nesting(node: ast.AST) -> int:
    """Deepest nesting of compound statements inside ``node`` (iterative)."""
    deepest = 0
    stack: list[tuple[ast.AST, int]] = [(child, 0) for child in ast.iter_child_nodes(node)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, _BLOCKS):
            depth += 1
            deepest = max(deepest, depth)
        stack.extend((child, depth) for child in ast.iter_child_nodes(current))
    return deepest


def body_length(unit: Unit, lines: list[str]) -> int:
    """Non-blank, non-comment lines from the first statement to the end (the ``def`` line excluded)."""
    first = unit.node.body[0].lineno if unit.node.body else unit.end
    return sum(1 for n in range(first, unit.end + 1)
               if n <= len(lines) and lines[n - 1].strip() and not lines[n - 1].lstrip().startswith("#"))


def parameters(unit: Unit) -> int:
    args = unit.node.args
    return len(args.posonlyargs) + len(args.args) + len(args.kwonlyargs) + bool(args.vararg) + bool(args.kwarg)


def unreachable(unit: Unit) -> Iterator[int]:
    """Lines of statements that follow a return/raise/continue/break in the same block."""
    for node in ast.walk(unit.node):
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for before, after in zip(block, block[1:], strict=False):
                if isinstance(before, _JUMPS) and isinstance(after, ast.stmt):
                    yield after.lineno
                    break


def referenced_names(files: tuple[SourceFile, ...]) -> set[str]:
    """Every name, attribute and string constant in the submission (a crude but safe 'is it used')."""
    names: set[str] = set()
    for f in files:
        if f.tree is None:
            continue
        for node in ast.walk(f.tree):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Attribute):
                names.add(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 200:
                names.add(node.value)
    return names


def dead_code(changes: ChangeSet) -> Iterator[tuple[str, str, int]]:
    """(message, file, line) for unused imports on judged lines and new private functions nobody calls."""
    used = referenced_names(changes.files)
    for f in changes.changed:
        if f.tree is None:
            continue
        # Names read in this file, plus words of its strings (quoted annotations, __all__).
        local = {n.id for n in ast.walk(f.tree) if isinstance(n, ast.Name)}
        local |= {w for n in ast.walk(f.tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                  for w in re.findall(r"[A-Za-z_]\w*", n.value[:200])}
        for stmt in f.tree.body:
            if not isinstance(stmt, ast.Import | ast.ImportFrom) or stmt.lineno not in f.judged:
                continue
            if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__" or f.rel.endswith("__init__.py"):
                continue  # __init__ imports are re-exports
            for alias in stmt.names:
                bound = alias.asname or alias.name.split(".")[0]
                if bound != "*" and bound not in local:
                    yield f"unused import '{bound}'", f.rel, stmt.lineno
        for unit in f.units:
            name = unit.node.name
            if unit.changed and name.startswith("_") and not name.startswith("__") and name not in used:
                yield f"private function '{unit.qualname}' is never used", f.rel, unit.start


def function_hits(changes: ChangeSet, f: SourceFile, unit: Unit) -> list[Hit]:
    """Threshold metrics of one changed function."""
    lines = [(line, 1) for line in sorted(set(unreachable(unit)))]
    return _threshold_hits(changes, f, unit, complexity(unit), body_length(unit, f.lines), nesting(unit.node),
                           parameters(unit), MAX_PARAMS, lines)


def _threshold_hits(
    changes: ChangeSet, f: SourceFile, unit: Unit | JsUnit, cc: int, length: int, depth: int,
    params: int, max_params: int, unreachable_lines: list[tuple[int, int]],
) -> list[Hit]:
    """Costs of one changed function's measures (the same for every language)."""
    where = f"{f.rel}:{unit.qualname}"
    share = min(1.0, (length + 1) / max(changes.judged_lines, 1))  # its share of the judged code
    over: list[tuple[str, Dimension, str, float]] = []
    if cc > MAX_COMPLEXITY:
        over.append(("complexity", "robustness", f"cyclomatic complexity {cc} (> {MAX_COMPLEXITY})",
                     5 * (cc - MAX_COMPLEXITY)))
    if length > MAX_LENGTH:
        over.append(("length", "readability", f"{length} lines long (> {MAX_LENGTH})", 2 * (length - MAX_LENGTH)))
    if depth > MAX_NESTING:
        over.append(("nesting", "readability", f"blocks nested {depth} deep (> {MAX_NESTING})",
                     25 * (depth - MAX_NESTING)))
    hits = [Hit(f"metrics.{rule}", dim, f"{where}: {message}", share * min(100.0, severity), f.rel, unit.start)
            for rule, dim, message, severity in over]
    if params > max_params:
        hits.append(Hit("metrics.parameters", "architecture", f"{where}: {params} parameters (> {max_params})",
                        per_line(4 * (params - max_params), changes), f.rel, unit.start))
    for line, _ in unreachable_lines:
        hits.append(Hit("metrics.unreachable", "robustness", f"{where}: statement after return/raise/break",
                        per_line(10, changes, f.rel, line), f.rel, line))
    return hits


def js_function_hits(changes: ChangeSet, f: SourceFile, unit: JsUnit) -> list[Hit]:
    """Threshold metrics of one changed JavaScript/TypeScript unit (``_js_metrics``)."""
    src = js.source_of(f)
    length = js.body_length(src, unit)
    depth = js.nesting(src, unit)
    lines = [(line, 1) for line in sorted(set(js.unreachable(src, unit)))]
    return _threshold_hits(changes, f, unit, js.complexity(src, unit), length, depth,
                           js.parameters(unit), js.MAX_PARAMS, lines)


LanguageMetrics = tuple[list[Hit], list[Any], int, list[tuple[str, str, int]]]
"""What a language's metrics part returns: per-function hits, clones and the token total they are a
share of, dead code (message, file, line)."""


def py_metric_hits(changes: ChangeSet) -> LanguageMetrics:
    """Python (the language seam's ``quality.metrics``): radon and ``ast``."""
    hits = [h for f in changes.changed for u in f.units if u.changed
            for h in function_hits(changes, f, u)]  # type: ignore[arg-type]
    hits += style_hits(changes)
    clones, total = find_clones([u for f in changes.files for u in f.units])
    return hits, clones, total, dead_code(changes)


def style_hits(changes: ChangeSet) -> list[Hit]:
    """Inconsistent style within the submission's judged code (``_style.inconsistency``)."""
    return [Hit("metrics.inconsistent-style", "readability", i.message(),
                i.cost * changes.share(i.observation.file, i.observation.line), i.observation.file,
                i.observation.line)
            for i in inconsistency(changes)]


def js_metric_hits(changes: ChangeSet) -> LanguageMetrics:
    """JavaScript/TypeScript (the language seam's ``quality.metrics``): tree-sitter."""
    hits = [h for f in changes.changed for u in f.units if u.changed
            for h in js_function_hits(changes, f, u)]  # type: ignore[arg-type]
    sources = {f.rel: f.js for f in changes.files if f.js is not None}
    all_units = [u for f in changes.files for u in f.units]
    clones, total = find_clones(all_units, tokenize=lambda u: js.tokens(u, sources[u.file]))
    return hits, clones, total, js.dead_code(changes)


def metric_hits(changes: ChangeSet) -> list[Hit]:
    """Every metrics hit of the change set: the language's own, then duplication and dead code."""
    hits, clones, total, dead = language(changes.language).part("quality.metrics")(changes)
    for clone in clones:
        weighted = sum(changes.share(clone.unit.file, line) for line in clone.token_lines)
        hits.append(Hit("metrics.duplication", "architecture",
                        f"{clone.unit.file}:{clone.unit.qualname}: {clone.covered} of its syntax tokens repeat code in "
                        f"{', '.join(clone.partners)} (lines {min(clone.token_lines)}-{max(clone.token_lines)})",
                        weighted / max(total, 1) * 100, clone.unit.file, min(clone.token_lines)))
    for message, file, line in dead:
        hits.append(Hit("metrics.dead-code", "idiomaticity", message, per_line(6, changes, file, line), file, line))
    return hits


class MetricsJudge:
    """Complexity, length, nesting, parameters, duplication and dead code of the changed functions."""

    name = NAME
    component = "code_quality"

    def judge(self, inp: JudgeInput) -> Verdict:
        return judge_changed_code(
            self.name, inp, metric_hits, lambda: {"radon": version("radon"), "quality-metrics rules": "2026.2"}, CAPS
        )


@JUDGES.register(NAME)
def make_metrics_judge() -> Judge:
    """Offline code-quality judge: complexity, length, nesting, duplication, dead code of changed code."""
    return MetricsJudge()
