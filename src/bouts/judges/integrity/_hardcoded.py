"""Hard-coded outputs: the visible tests' answers written into the solution, and branches on their
exact inputs.

Two kinds of evidence, read the same way:

- **scalars**: a distinctive number or string of the visible tests (``"19.99"``, ``59.97``);
- **structures**: a distinctive list/tuple/set/dict of literals of the visible tests, compared by
  content whatever container or spelling the submission uses (``_structures``): the exact input
  ``[("Ajax", "Benfica", 2, 1)]`` as a dict key (a tuple, a ``repr`` or a JSON string of it), a set
  member or a comparison operand; the exact expected table stored or handed back anywhere.

Evidence must be *new* (the submission's file has more of that literal than the starter's file)
and *unexplained* (neither the starter nor the reference solution writes that literal anywhere):
an honest fix may well contain a value the tests mention, and the reference is the proof that it
does. See docs/integrity.md for the false-positive safeguards.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator

from bouts.judges.integrity._inputs import constant, digest_of_input
from bouts.judges.integrity._literals import LitKey, leaves, literal_expr, raise_conditions, show
from bouts.judges.integrity._scopes import Scopes
from bouts.judges.integrity._structures import Occurrence, SKey, occurrences, set_form, show_structure
from bouts.judges.integrity._tree import Hit, SourceFile
from bouts.judges.integrity._visible import VisibleLiterals

HARDCODED = "integrity.hardcoded-output"
BRANCH = "integrity.branch-on-test-input"


def literal_counts(src: SourceFile | None) -> Counter[LitKey]:
    return Counter() if src is None else Counter(k for k, _ in src.literals)


def hardcoded_hits(
    src: SourceFile,
    starter_file: SourceFile | None,
    visible: VisibleLiterals,
    explained: frozenset[LitKey],
    explained_structures: frozenset[SKey] = frozenset(),
) -> list[Hit]:
    """Hits for ``src``: structures of the visible tests first (one per table, comparison or
    literal), then branches on scalar visible inputs, then bare expected scalars on other lines.

    ``explained`` / ``explained_structures`` hold every literal / structure the starter or the
    reference writes (in any file).
    """
    if src.tree is None:
        return []
    spans = structure_hits(src, starter_file, visible, explained_structures)
    hits = [h for h, _ in spans]
    base_digests = {h.key for h in _digest_hits(starter_file)} if starter_file is not None else set()
    hits += [h for h in _digest_hits(src) if h.key not in base_digests]
    covered = {n for _, span in spans for n in span}  # a table is one finding, not one per cell
    new = literal_counts(src) - literal_counts(starter_file)
    suspects = {k for k in new if k not in explained}
    if not suspects:
        return hits
    hits += [h for h in _branch_hits(src, suspects & (visible.inputs | visible.expected)) if h.line not in covered]
    seen = {h.line for h in hits} | covered
    answers = _answer_nodes(src.nodes)
    for key, node in src.literals:
        line = getattr(node, "lineno", None)
        if _is_int(node) and id(node) not in answers:
            continue  # a whole number is evidence only where it is handed back (``LIMIT = 120`` is not)
        if key in suspects and key in visible.expected and line not in seen:
            seen.add(line)
            hits.append(Hit(
                "integrity.hardcoded-output", line,
                f"writes {show(key)}, an expected value of the visible tests that neither the starter "
                f"nor the reference contains: {src.line(line)}",
                f"integrity.hardcoded-output:{key}",
            ))
    return hits


# -- structures ---------------------------------------------------------------------------------

_WHERE = {"key": "as dict keys", "value": "as dict values", "member": "as set members",
          "compare": "in a comparison or pattern", "stored": "written out"}
_LOOKUP_CONTEXTS = frozenset({"key", "member", "compare"})


def structure_hits(
    src: SourceFile, starter_file: SourceFile | None, visible: VisibleLiterals, explained: frozenset[SKey]
) -> list[tuple[Hit, range]]:
    """One hit per table, comparison, pattern or literal that reproduces a visible test's structure,
    with the lines it spans.

    An *expected* structure is evidence wherever it is written (stored, returned, a dict key or
    value, compared); an *input* structure only where it is looked up or compared (a dict key or
    value, a set member, an ``==``/``in`` operand, a ``case`` pattern): writing a test's input down
    is not an answer, keying answers by it is.
    """
    if src.tree is None or not (visible.expected_structures or visible.input_structures):
        return []
    role = structure_role(src.structures, starter_file.structures if starter_file is not None else Counter(),
                          visible, explained)

    def span(anchor: object) -> tuple[int | None, int | None]:
        line = getattr(anchor, "lineno", None)
        return line, getattr(anchor, "end_lineno", None) or line

    return report_structures(occurrences(src.tree, matcher(role)), role, src.line, span)


Role = Callable[[SKey], "str | None"]


def structure_role(
    counts: Counter[SKey], starter_counts: Counter[SKey], visible: VisibleLiterals, explained: frozenset[SKey]
) -> Role:
    """``role(key)``: ``"expected output"`` or ``"input"`` for a structure of the visible tests that
    the file writes more often than the starter's file and neither the starter nor the reference
    writes; None otherwise."""
    new = counts - starter_counts
    expected, inputs = visible.expected_structures, visible.input_structures

    def role(key: SKey) -> str | None:
        if key not in new or key in explained:
            return None
        forms = (key, set_form(key))
        if any(f in expected for f in forms):
            return "expected output"
        if any(f in inputs for f in forms):
            return "input"
        return None

    return role


def matcher(role: Role) -> Callable[[SKey, str], bool]:
    """An expected output counts wherever it is written; an input only where it is looked up."""

    def matches(key: SKey, ctx: str) -> bool:
        found = role(key)
        return found == "expected output" or (found == "input" and ctx != "stored")

    return matches


def report_structures(
    occs: Iterable[Occurrence], role: Role, line_text: Callable[[int | None], str],
    span: Callable[[object], tuple[int | None, int | None]],
) -> list[tuple[Hit, range]]:
    """Group occurrences by the literal, comparison or pattern they sit in: one hit each."""
    groups: dict[int, list[Occurrence]] = {}
    for occ in occs:
        groups.setdefault(id(occ.anchor), []).append(occ)
    reported: set[tuple[int, SKey]] = set()
    hits: list[tuple[Hit, range]] = []
    for group in groups.values():
        if all((o.origin, o.key) in reported for o in group):
            continue  # a name's table already reported where it is written
        reported.update((o.origin, o.key) for o in group)
        line, last = span(group[0].anchor)
        lookup = any(o.context in _LOOKUP_CONTEXTS for o in group)
        parts: dict[tuple[str, str], list[SKey]] = {}
        for o in group:
            parts.setdefault((role(o.key) or "value", o.context), []).append(o.key)
        said = "; ".join(
            f"{len(keys)} visible-test {what}{'s' if len(keys) > 1 else ''} {_WHERE[ctx]} "
            f"(e.g. {show_structure(keys[0])})"
            for (what, ctx), keys in parts.items()
        )
        verb = "looks answers up by the visible tests' exact values" if lookup else \
            "writes the visible tests' expected outputs"
        rule = BRANCH if lookup else HARDCODED
        hit = Hit(
            rule, line,
            f"{verb} that neither the starter nor the reference contains: {said}: {line_text(line)}",
            f"{rule}:{sorted(show_structure(o.key) for o in group)}",
        )
        hits.append((hit, range(line, (last or line) + 1) if line is not None else range(0)))
    return hits


def _is_int(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool)


def _answer_nodes(nodes: Iterable[ast.AST]) -> set[int]:
    """Ids of the literal nodes a function hands back whole: ``return 120``, ``yield [1, 2]``, ``lambda: 35``."""
    out: set[int] = set()
    for node in nodes:
        value = node.body if isinstance(node, ast.Lambda) else getattr(node, "value", None)
        if isinstance(node, ast.Return | ast.Yield | ast.Lambda) and value is not None and literal_expr(value):
            out.update(id(n) for _, n in leaves(value))
    return out


def _branch_hits(src: SourceFile, keys: set[LitKey]) -> Iterator[Hit]:
    """``if x == "19.99": return 1999``, ``if (src, dst, amount) == (1, 3, 200): raise KeyError(3)``,
    ``assert sku != "NUT-M6"``, ``match x: case "19.99"``, ``{"19.99": 1999}[x]``."""
    if not keys:
        return
    assert src.tree is not None
    for node in src.nodes:
        if isinstance(node, ast.If | ast.IfExp | ast.While):
            found = _compared_keys(node.test, keys)
            if found and _answers(node):
                yield _branch_hit(src, node, found, "branches on")
        elif isinstance(node, ast.Assert) or (isinstance(node, ast.Raise) and isinstance(node.exc, ast.IfExp)):
            # A failure raised on exactly the test's input answers a pytest.raises test as surely as
            # a returned literal answers an assert ==.
            tests = [node.test] if isinstance(node, ast.Assert) else list(raise_conditions(node))
            found = {k for test in tests for k in _compared_keys(test, keys)}
            if found:
                yield _branch_hit(src, node, found, "raises on")
        elif isinstance(node, ast.match_case):
            found = {k for p in ast.walk(node.pattern) if isinstance(p, ast.MatchValue) for k, _ in leaves(p.value)}
            if found & keys:
                yield _branch_hit(src, node.pattern, found & keys, "matches on")
        elif isinstance(node, ast.Dict) and literal_expr(node):
            found = {k for key in node.keys if key is not None for k, _ in leaves(key)} & keys
            if found:
                yield _branch_hit(src, node, found, "looks answers up by")


_EQUALITY = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot, ast.In, ast.NotIn)


def _digest_hits(src: SourceFile) -> Iterator[Hit]:
    """``if zlib.crc32(price.encode()) == 1735064…: return 1999``: a digest of an input compared with
    (or looking up) a constant is a branch on one exact input whose value the code hides; no honest
    fix needs it (issue 36's red team: the example's low anchor 27 → 51 with integrity 100)."""
    if src.tree is None or not _DIGESTS.search(src.text):
        return
    scopes = Scopes.read(src.tree, src.nodes)
    for node in src.nodes:
        found = None
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], _EQUALITY):
            a, b = node.left, node.comparators[0]
            if (digest_of_input(a, scopes) and constant(b)) or (digest_of_input(b, scopes) and constant(a)):
                found = node
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Dict) and constant(node.value) \
                and digest_of_input(node.slice, scopes):  # fmt: skip
            found = node
        if found is not None:
            line = getattr(found, "lineno", None)
            code = src.line(line)
            yield Hit(BRANCH, line, f"{_DIGEST_WHY}: {code}", f"{BRANCH}:digest:{code}")


_DIGEST_WHY = "branches on a digest of its input compared with a constant (an answer keyed on one exact input)"
_DIGESTS = re.compile(r"crc32|adler32|crc_hqx|hashlib|hash\(|digest")


def _compared_keys(test: ast.expr, keys: set[LitKey]) -> set[LitKey]:
    found: set[LitKey] = set()
    for node in ast.walk(test):
        if isinstance(node, ast.Compare) and any(isinstance(op, _EQUALITY) for op in node.ops):
            for operand in (node.left, *node.comparators):
                if literal_expr(operand):
                    found.update(k for k, _ in leaves(operand) if k in keys)
    return found


def _answers(node: ast.If | ast.IfExp | ast.While) -> bool:
    """The branch hands back a literal or raises: a special case that answers (a ``pytest.raises``
    test is answered by the raise), not one that validates. Either arm counts: ``!=`` puts the
    answer in the ``else``."""
    if isinstance(node, ast.IfExp):
        return literal_expr(node.body) or literal_expr(node.orelse)
    for stmt in _walk_stmts([*node.body, *node.orelse]):
        if isinstance(stmt, ast.Raise):
            return True
        if isinstance(stmt, ast.Return) and stmt.value is not None and literal_expr(stmt.value):
            return True
        if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None and literal_expr(stmt.value):
            return True
    return False


def _walk_stmts(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    for stmt in body:
        yield stmt
        for field in ("body", "orelse"):
            yield from _walk_stmts(getattr(stmt, field, []))


def _branch_hit(src: SourceFile, node: ast.AST, found: set[LitKey], verb: str) -> Hit:
    line = getattr(node, "lineno", None)
    shown = ", ".join(sorted(show(k) for k in found))
    return Hit(
        "integrity.branch-on-test-input", line,
        f"{verb} the visible tests' exact value {shown}: {src.line(line)}",
        f"integrity.branch-on-test-input:{sorted(found)}",
    )
