"""Hard-coded outputs in JavaScript/TypeScript: the visible tests' answers written into the
solution, and branches on their exact inputs. The same evidence rules as ``_hardcoded`` (new,
unexplained, distinctive; a whole number only where it is handed back), read from a ``JsFile``:

- ``if (price === "19.99") return 1999;``, ``price === "19.99" ? 1999 : ...``, ``switch (price) {
  case "19.99": ... }``, ``["19.99", "5.00"].includes(price)`` guarding an answer;
- a lookup table keyed by a visible input: ``{"19.99": 1999}``, ``new Map([["19.99", 1999]])``;
- a visible test's expected value or table written in new code (``return 59.97``, ``const ROWS = [...]``);
- structures compared by content whatever their spelling (``_js_structures``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from bouts.jsast import FUNCTION_TYPES, NOT_LITERAL, Container, JsNode
from bouts.judges.integrity._hardcoded import BRANCH, HARDCODED, matcher, report_structures, structure_role
from bouts.judges.integrity._js_structures import occurrences
from bouts.judges.integrity._jsfile import JsFile
from bouts.judges.integrity._literals import LitKey, show
from bouts.judges.integrity._structures import SKey
from bouts.judges.integrity._tree import Hit
from bouts.judges.integrity._visible import VisibleLiterals

_EQUALITY = frozenset({"==", "==="})
_MEMBERSHIP = frozenset({"includes", "has"})
_BLOCKS = frozenset({"statement_block", "else_clause", "if_statement", "expression_statement", "switch_body",
                     "switch_case", "switch_default"})


def literal_counts(f: JsFile | None) -> Counter[LitKey]:
    return Counter() if f is None else Counter(k for k, _ in f.literals)


def hardcoded_hits(
    f: JsFile, starter_file: JsFile | None, visible: VisibleLiterals,
    explained: frozenset[LitKey], explained_structures: frozenset[SKey] = frozenset(),
) -> list[Hit]:
    """Hits for ``f``: visible structures first (one per table or comparison), then branches on
    scalar visible values, then bare expected scalars on other lines."""
    if f.parsed is None:
        return []
    spans = _structure_hits(f, starter_file, visible, explained_structures)
    hits = [h for h, _ in spans]
    covered = {n for _, span in spans for n in span}
    new = literal_counts(f) - literal_counts(starter_file)
    suspects = {k for k in new if k not in explained}
    if not suspects:
        return hits
    hits += [h for h in _branch_hits(f, suspects & (visible.inputs | visible.expected)) if h.line not in covered]
    seen = {h.line for h in hits} | covered
    answers = _answer_nodes(f)
    for key, node in f.literals:
        if key[0] == "num" and "." not in key[1] and node.index not in answers:
            continue  # a whole number is evidence only where it is handed back (``LIMIT = 120`` is not)
        if key in suspects and key in visible.expected and node.line not in seen:
            seen.add(node.line)
            hits.append(Hit(
                HARDCODED, node.line,
                f"writes {show(key)}, an expected value of the visible tests that neither the starter "
                f"nor the reference contains: {f.line(node.line)}",
                f"{HARDCODED}:{key}",
            ))
    return hits


def _structure_hits(
    f: JsFile, starter_file: JsFile | None, visible: VisibleLiterals, explained: frozenset[SKey]
) -> list[tuple[Hit, range]]:
    if not (visible.expected_structures or visible.input_structures):
        return []
    role = structure_role(f.structures, starter_file.structures if starter_file is not None else Counter(),
                          visible, explained)

    def span(anchor: object) -> tuple[int | None, int | None]:
        assert isinstance(anchor, JsNode)
        return anchor.line, anchor.end_line

    return report_structures(occurrences(f, matcher(role)), role, f.line, span)


def _answer_nodes(f: JsFile) -> set[int]:
    """Indices of literal nodes handed back whole: ``return 120``, ``yield [1, 2]``, ``() => 35``."""
    src = f.parsed
    assert src is not None
    out: set[int] = set()
    for node in src.nodes:
        value: JsNode | None = None
        if node.type in ("return_statement", "yield_expression"):
            named = src.named_children(node)
            value = named[0] if named else None
        elif node.type == "arrow_function":
            body = src.field(node, "body")
            value = body if body is not None and body.type != "statement_block" else None
        if value is not None and f.values[value.index] is not NOT_LITERAL:
            out.update(n.index for n in src.subtree(value))
    return out


def _branch_hits(f: JsFile, keys: set[LitKey]) -> Iterator[Hit]:
    """``if (x === "19.99") return 1999``, ``x === "19.99" ? 1999 : ...``, ``case "19.99":``,
    ``{"19.99": 1999}``, ``new Map([["19.99", 1999]])``."""
    if not keys:
        return
    src = f.parsed
    assert src is not None
    by_node = {node.index: key for key, node in f.literals}
    for node in src.nodes:
        if f.skipped[node.index]:
            continue
        if node.type in ("if_statement", "ternary_expression", "while_statement"):
            condition = src.field(node, "condition")
            found = _compared(f, condition, keys, by_node) if condition is not None else set()
            if found and _answers(f, node):
                yield _hit(f, node, found, "branches on")
        elif node.type == "switch_case":
            value = src.field(node, "value")
            found = {by_node[n.index] for n in src.subtree(value) if n.index in by_node} & keys if value else set()
            if found:
                yield _hit(f, value or node, found, "matches on")
        elif node.type in ("object", "new_expression", "call_expression") and _lookup_table(f, node):
            found = _table_keys(f, node, by_node) & keys
            if found:
                yield _hit(f, node, found, "looks answers up by")


def _compared(f: JsFile, condition: JsNode, keys: set[LitKey], by_node: dict[int, LitKey]) -> set[LitKey]:
    """Suspect literals compared with ``==``/``===`` (or ``[...].includes(x)``) in a condition."""
    src = f.parsed
    assert src is not None
    found: set[LitKey] = set()
    for node in src.walk(condition, skip=FUNCTION_TYPES):
        operands: list[JsNode] = []
        if node.type == "binary_expression":
            op = src.field(node, "operator")
            if op is not None and op.type in _EQUALITY:
                operands = [n for n in (src.field(node, "left"), src.field(node, "right")) if n is not None]
        elif node.type == "call_expression":
            callee = src.field(node, "function")
            if callee is not None and callee.type == "member_expression":
                prop, receiver = src.field(callee, "property"), src.field(callee, "object")
                if prop is not None and receiver is not None and src.text(prop) in _MEMBERSHIP:
                    operands = [receiver]
        for operand in operands:
            if f.values[operand.index] is not NOT_LITERAL:
                found.update(by_node[n.index] for n in src.subtree(operand) if n.index in by_node)
    return found & keys


def _answers(f: JsFile, node: JsNode) -> bool:
    """The branch hands back a literal: returns one, or assigns one (a special case that answers)."""
    src = f.parsed
    assert src is not None
    if node.type == "ternary_expression":
        consequence = src.field(node, "consequence")
        return consequence is not None and f.values[consequence.index] is not NOT_LITERAL
    body = src.field(node, "consequence") or src.field(node, "body")
    if body is None:
        return False
    for stmt in src.walk(body, skip=FUNCTION_TYPES):
        if stmt.type == "return_statement":
            value = src.named_children(stmt)
            if value and f.values[value[0].index] is not NOT_LITERAL:
                return True
        elif stmt.type in ("assignment_expression", "variable_declarator"):
            value_node = src.field(stmt, "right") or src.field(stmt, "value")
            if value_node is not None and f.values[value_node.index] is not NOT_LITERAL:
                return True
    return False


def _lookup_table(f: JsFile, node: JsNode) -> bool:
    """A literal object, ``new Map([[k, v], ...])`` or ``Object.fromEntries([[k, v], ...])``."""
    value = f.values[node.index]
    if not isinstance(value, Container) or value.kind not in ("object", "map"):
        return False
    if node.type == "object":
        return True
    assert f.parsed is not None
    callee = f.parsed.field(node, "constructor") or f.parsed.field(node, "function")
    return callee is not None and f.name(callee) in ("Map", "Object.fromEntries")


def _table_keys(f: JsFile, node: JsNode, by_node: dict[int, LitKey]) -> set[LitKey]:
    """The scalar keys of a literal object, or the first element of each ``[k, v]`` entry."""
    src = f.parsed
    assert src is not None
    heads: list[JsNode] = []
    if node.type == "object":
        heads = [k for pair in src.named_children(node) if (k := src.field(pair, "key")) is not None]
    else:
        args = src.field(node, "arguments")
        table = src.named_children(args)[:1] if args is not None else []
        for entry in src.named_children(table[0]) if table and table[0].type == "array" else []:
            heads += src.named_children(entry)[:1] if entry.type == "array" else []
    return {by_node[n.index] for head in heads for n in src.subtree(head) if n.index in by_node}


def _hit(f: JsFile, node: JsNode, found: set[LitKey], verb: str) -> Hit:
    shown = ", ".join(sorted(show(k) for k in found))
    return Hit(
        BRANCH, node.line, f"{verb} the visible tests' exact value {shown}: {f.line(node.line)}",
        f"{BRANCH}:{sorted(found)}",
    )
