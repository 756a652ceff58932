"""Parsing JavaScript and TypeScript with tree-sitter into a flat, immutable node table.

Submitted code is hostile input. tree-sitter's parser keeps its stacks on the heap and never
recurses in Python, so any nesting parses; what is bounded is what comes after:

- the source size (``MAX_SOURCE_BYTES``), checked before parsing;
- the tree's depth (``MAX_DEPTH``) and size (``MAX_NODES``), checked while the tree is copied
  out with a cursor, which stops at the first node past either bound (a tree-sitter cursor gets
  slower with depth, so the copy stays linear only because it stops early).

Past a bound, ``parse`` returns ``NotAnalysed`` with a reason; it never raises for bad input. The
copy is a tuple of ``JsNode`` in preorder, so a node's subtree is the contiguous slice
``nodes[node.index:node.stop]``: every walk in this package is a loop over that slice, never a
recursion. Real code stays far below the bounds: across the 1,108 JavaScript files of ESLint's
dependency tree (minified bundles included) the deepest tree has 103 levels.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import tree_sitter

Dialect = Literal["javascript", "typescript", "tsx"]
SUFFIXES: Mapping[str, Dialect] = {
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
}  # fmt: skip
"""File suffixes read as JavaScript or TypeScript (``.d.ts`` declaration files included)."""

MAX_SOURCE_BYTES = 512 * 1024
"""Larger sources are not parsed (the judges report them)."""
MAX_DEPTH = 256
"""Deepest node (counting tree-sitter's anonymous tokens) of a tree that is analysed."""
MAX_NODES = 300_000
"""Largest tree (in nodes, tokens included) that is analysed; 256 kB of real code is about 65,000."""


def dialect_for(path: str) -> Dialect | None:
    """The dialect of a file by its suffix, or None when it is not JavaScript or TypeScript."""
    dot = path.rfind(".")
    return SUFFIXES.get(path[dot:].lower()) if dot >= 0 else None


@dataclass(frozen=True, slots=True)
class JsNode:
    """One node of the syntax tree (named nodes and anonymous tokens such as ``===``)."""

    index: int
    """Position in ``JsSource.nodes`` (preorder)."""
    stop: int
    """One past the last node of its subtree: the subtree is ``nodes[index:stop]``."""
    type: str
    """tree-sitter's node type (``if_statement``), or the token itself for anonymous nodes (``===``)."""
    named: bool
    field: str | None
    """The field of the parent this node fills (``condition``, ``left``), if any."""
    parent: int
    """Index of the parent; -1 for the root."""
    children: tuple[int, ...]
    start_byte: int
    end_byte: int
    line: int
    """First line, 1-based."""
    end_line: int
    depth: int


@dataclass(frozen=True)
class NotAnalysed:
    """Why a source was not analysed (too large, nested too deeply, too many nodes)."""

    reason: str
    line: int | None = None


@dataclass(frozen=True, eq=False)
class JsSource:
    """A parsed JavaScript/TypeScript source: its text and its syntax tree as a node table."""

    dialect: Dialect
    data: bytes
    """The UTF-8 source (tree-sitter's offsets are byte offsets into it)."""
    nodes: tuple[JsNode, ...]
    error_lines: tuple[int, ...]
    """Lines of the syntax errors tree-sitter recovered from (``ERROR`` and missing nodes)."""

    @property
    def root(self) -> JsNode:
        return self.nodes[0]

    @functools.cached_property
    def lines(self) -> list[str]:
        """Source lines as tree-sitter numbers them (split on ``\\n`` only)."""
        return [line.rstrip("\r") for line in self.data.decode("utf-8", errors="replace").split("\n")]

    def line_text(self, lineno: int | None, limit: int = 160) -> str:
        """The stripped source line ``lineno`` (1-based), for citing code in a finding."""
        lines = self.lines
        if lineno is None or not 1 <= lineno <= len(lines):
            return ""
        return lines[lineno - 1].strip()[:limit]

    def text(self, node: JsNode, limit: int | None = None) -> str:
        """The source text of ``node`` (at most ``limit`` bytes of it)."""
        end = node.end_byte if limit is None else min(node.end_byte, node.start_byte + limit)
        return self.data[node.start_byte : end].decode("utf-8", errors="replace")

    def children(self, node: JsNode) -> list[JsNode]:
        return [self.nodes[i] for i in node.children]

    def named_children(self, node: JsNode) -> list[JsNode]:
        """Named children, comments left out."""
        nodes = self.nodes
        return [n for i in node.children if (n := nodes[i]).named and n.type != "comment"]

    def field(self, node: JsNode, name: str) -> JsNode | None:
        """The first child filling field ``name``."""
        for i in node.children:
            if self.nodes[i].field == name:
                return self.nodes[i]
        return None

    def fields(self, node: JsNode, name: str) -> list[JsNode]:
        """Every child filling field ``name`` (a ``switch_case`` has one ``body`` per statement)."""
        return [self.nodes[i] for i in node.children if self.nodes[i].field == name]

    def parent(self, node: JsNode) -> JsNode | None:
        return self.nodes[node.parent] if node.parent >= 0 else None

    def ancestors(self, node: JsNode) -> Iterator[JsNode]:
        """Parent, grandparent... up to the root."""
        while node.parent >= 0:
            node = self.nodes[node.parent]
            yield node

    def subtree(self, node: JsNode) -> tuple[JsNode, ...]:
        """``node`` and every node below it, in preorder."""
        return self.nodes[node.index : node.stop]

    def walk(self, node: JsNode, skip: frozenset[str] = frozenset()) -> Iterator[JsNode]:
        """Preorder below ``node`` (``node`` included), not entering nodes whose type is in ``skip``
        (they are yielded, their subtrees are not)."""
        nodes = self.nodes
        i, stop = node.index, node.stop
        while i < stop:
            current = nodes[i]
            yield current
            i = current.stop if (current.type in skip and current.index != node.index) else i + 1


@functools.cache
def _language(dialect: Dialect) -> tree_sitter.Language:
    import tree_sitter

    if dialect == "javascript":
        import tree_sitter_javascript as grammar

        return tree_sitter.Language(grammar.language())
    import tree_sitter_typescript as ts_grammar

    capsule = ts_grammar.language_tsx() if dialect == "tsx" else ts_grammar.language_typescript()
    return tree_sitter.Language(capsule)


def parse(text: str, dialect: Dialect) -> JsSource | NotAnalysed:
    """Parse ``text`` as ``dialect``. Never raises for bad input: past a bound, ``NotAnalysed``.

    Syntax errors do not stop the parse: tree-sitter recovers, and ``JsSource.error_lines``
    says where it had to.
    """
    import tree_sitter

    data = text.encode("utf-8", errors="surrogatepass")
    if len(data) > MAX_SOURCE_BYTES:
        return NotAnalysed(f"larger than {MAX_SOURCE_BYTES // 1024} KiB; not analysed")
    try:
        tree = tree_sitter.Parser(_language(dialect)).parse(data)
    except (ValueError, MemoryError, RuntimeError) as exc:  # the C library refusing the input
        return NotAnalysed(f"the parser failed ({type(exc).__name__}); not analysed")
    if tree is None:
        return NotAnalysed("the parser gave up; not analysed")
    return _copy(tree, dialect, data)


def _copy(tree: tree_sitter.Tree, dialect: Dialect, data: bytes) -> JsSource | NotAnalysed:
    """Copy the tree into a node table with a cursor (iterative), stopping at the first node past
    ``MAX_DEPTH`` or ``MAX_NODES``."""
    rows: list[tuple[str, bool, str | None, int, int, int, int, int, int]] = []
    kids: list[list[int]] = []
    stops: list[int] = []
    errors: list[int] = []
    stack: list[int] = []
    cursor = tree.walk()
    while True:
        node = cursor.node
        assert node is not None
        index = len(rows)
        depth = len(stack)
        line = node.start_point[0] + 1
        if depth > MAX_DEPTH:
            return NotAnalysed(f"nested more than {MAX_DEPTH} levels deep; not analysed", line)
        if index >= MAX_NODES:
            return NotAnalysed(f"more than {MAX_NODES} syntax nodes; not analysed", line)
        parent = stack[-1] if stack else -1
        rows.append((node.type, node.is_named, cursor.field_name, parent, node.start_byte, node.end_byte,
                     line, node.end_point[0] + 1, depth))
        kids.append([])
        stops.append(index + 1)
        if parent >= 0:
            kids[parent].append(index)
        if node.is_error or node.is_missing:
            errors.append(line)
        if cursor.goto_first_child():
            stack.append(index)
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return _freeze(dialect, data, rows, kids, stops, errors)
            stops[stack.pop()] = len(rows)


def _freeze(
    dialect: Dialect, data: bytes, rows: list[tuple[str, bool, str | None, int, int, int, int, int, int]],
    kids: list[list[int]], stops: list[int], errors: list[int],
) -> JsSource:
    nodes = tuple(
        JsNode(i, stops[i], type_, named, field, parent, tuple(kids[i]), start, end, line, end_line, depth)
        for i, (type_, named, field, parent, start, end, line, end_line, depth) in enumerate(rows)
    )
    return JsSource(dialect, data, nodes, tuple(sorted(set(errors))))
