"""The metrics of ``metrics`` measured on JavaScript/TypeScript units (tree-sitter, never run).

Same thresholds, costs and caps as for Python; what differs is how each is counted:

- **complexity**: 1 + each ``if``, ``for``/``for...of``/``for...in``, ``while``, ``do``, ``catch``,
  ``case``, ``?:``, ``&&``, ``||``, ``??`` and ``&&=``/``||=``/``??=`` in the unit's own code,
  callbacks included (as radon counts a Python function's closures), nested units not;
- **length**: the unit's own lines after its first, without blank lines, comment lines and lines
  that only close brackets (``}``, ``});``): Python has no closing braces to count;
- **nesting**: blocks (``if``, loops, ``try``, ``switch``, ``with``) inside blocks; an ``else if``
  continues its chain rather than nesting, and a callback adds no level (as a Python lambda);
- **parameters**: more than ``MAX_PARAMS`` (5: Python's 6 counts ``self``); a destructured options
  object is one parameter;
- **unreachable**: a statement after ``return``/``throw``/``break``/``continue`` in the same block,
  hoisted function declarations aside;
- **dead code**: an import on a judged line whose names are never used; a changed named function,
  not exported, whose name appears nowhere else in the submission.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from bouts import jsast
from bouts.jsast import JsNode, JsSource
from bouts.judges.quality._changes import ChangeSet, SourceFile
from bouts.judges.quality._js_changes import JsUnit

MAX_PARAMS = 5
_DECISIONS = frozenset({"if_statement", "for_statement", "for_in_statement", "while_statement", "do_statement",
                        "catch_clause", "ternary_expression"})
_LOGICAL = frozenset({"&&", "||", "??", "&&=", "||=", "??="})
_BLOCKS = frozenset({"if_statement", "for_statement", "for_in_statement", "while_statement", "do_statement",
                     "try_statement", "switch_statement", "with_statement"})
_JUMPS = frozenset({"return_statement", "throw_statement", "break_statement", "continue_statement"})
_HOISTED = frozenset({"function_declaration", "generator_function_declaration", "empty_statement", "comment"})
_NOT_CODE = re.compile(r"^\s*(//|/\*|\*|$)|^\s*[)\]}>;,]+\s*$")
_PUNCTUATION = frozenset("(){}[],;:.'\"`")
_ATOMS = frozenset({"string", "template_string", "regex", "number"})
_READS = frozenset({"identifier", "shorthand_property_identifier", "type_identifier"})


def source_of(f: SourceFile) -> JsSource:
    assert f.js is not None
    return f.js


def complexity(src: JsSource, unit: JsUnit) -> int:
    total = 1
    for node in jsast.owned(src, unit.fn, unit.units):
        if node.type in _DECISIONS or node.type == "switch_case" and src.field(node, "value") is not None:
            total += 1
        elif node.type in ("binary_expression", "augmented_assignment_expression"):
            op = src.field(node, "operator")
            total += op is not None and op.type in _LOGICAL
    return total


def body_length(src: JsSource, unit: JsUnit) -> int:
    """Own lines after the first that hold code (not blank, not comments, not closing brackets)."""
    lines = src.lines
    return sum(1 for n in unit.owned if n != unit.start and n <= len(lines) and not _NOT_CODE.match(lines[n - 1]))


def nesting(src: JsSource, unit: JsUnit) -> int:
    depth: dict[int, int] = {unit.fn.node.index: 0}
    deepest = 0
    for node in jsast.owned(src, unit.fn, unit.units):
        level = depth.get(node.parent, 0)
        if node.type in _BLOCKS:
            parent = src.nodes[node.parent]
            chained = node.type == "if_statement" and parent.type == "else_clause"
            level += 0 if chained else 1
            deepest = max(deepest, level)
        depth[node.index] = level
    return deepest


def parameters(unit: JsUnit) -> int:
    return sum(1 for p in unit.fn.params if p.type not in ("comment", "this"))


def unreachable(src: JsSource, unit: JsUnit) -> Iterator[int]:
    for node in jsast.owned(src, unit.fn, unit.units):
        if node.type not in ("statement_block", "switch_case", "switch_default", "program"):
            continue
        body = src.named_children(node)
        if node.type != "statement_block":
            body = src.fields(node, "body")
        for before, after in zip(body, body[1:], strict=False):
            if before.type in _JUMPS and after.type not in _HOISTED:
                yield after.line
                break


def tokens(unit: JsUnit, src: JsSource) -> list[tuple[str, int]]:
    """(token, line) of the unit's body: node types in source order, names and literals reduced to
    their kind, punctuation and comments left out, a string or template one token."""
    body = unit.fn.body
    if body is None:
        return []
    out: list[tuple[str, int]] = []
    nodes = src.nodes
    i = body.index
    while i < body.stop:
        node = nodes[i]
        if node.index in unit.units and node.index != unit.fn.node.index:
            out.append(("unit", node.line))
            i = node.stop
            continue
        if node.type != "comment" and not (not node.named and node.type in _PUNCTUATION):
            out.append((node.type, node.line))
        i = node.stop if node.type in _ATOMS else i + 1
    return out


def dead_code(changes: ChangeSet) -> Iterator[tuple[str, str, int]]:
    """Unused imports on judged lines; changed named functions, not exported, used nowhere."""
    used: dict[str, int] = {}
    for f in changes.files:
        if f.js is None:
            continue
        for node in f.js.nodes:
            if node.type in ("identifier", "property_identifier", "shorthand_property_identifier",
                             "shorthand_property_identifier_pattern", "type_identifier"):
                name = f.js.text(node, 200)
                used[name] = used.get(name, 0) + 1
            elif node.type == "string_fragment":
                for word in re.findall(r"[A-Za-z_$][\w$]*", f.js.text(node, 200)):
                    used[word] = used.get(word, 0) + 1
    for f in changes.changed:
        src = f.js
        if src is None:
            continue
        uses = Counter(src.text(n, 200) for n in src.nodes if n.type in _READS)
        for imp in jsast.imports(src):
            if imp.kind != "import" or imp.node.line not in f.judged:
                continue
            own = Counter(src.text(n, 200) for n in src.subtree(imp.node) if n.type in _READS)
            for local, _ in imp.names:
                if uses[local] - own[local] <= 0:
                    yield f"unused import '{local}'", f.rel, imp.node.line
        for unit in f.units:
            assert isinstance(unit, JsUnit)
            fn = unit.fn
            if not unit.changed or fn.exported or fn.name is None or not _declared(src, fn.node):
                continue
            if used.get(fn.name, 0) <= 1:
                yield f"function '{unit.qualname}' is never used", f.rel, unit.start


def _declared(src: JsSource, node: JsNode) -> bool:
    """A function declaration or ``const f = () => ...``: a name only this module can use."""
    if node.type in ("function_declaration", "generator_function_declaration"):
        return True
    parent = src.parent(node)
    return parent is not None and parent.type == "variable_declarator"
