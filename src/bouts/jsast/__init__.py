"""JavaScript and TypeScript syntax trees for the judges: one parser, shared, pure.

Text in, data out: ``parse(text, dialect)`` gives a ``JsSource`` (a flat, immutable table of
tree-sitter nodes in preorder) or ``NotAnalysed`` with the reason (too large, nested too deeply,
too many nodes); it never raises for bad input and nothing here recurses, so hostile nesting
cannot exhaust the stack. Helpers read what the judges need from a ``JsSource``:

- ``functions``: every function with a reader's name (``createLimiter.hit``), its parameters,
  body and enclosing function; ``owned``/``owned_lines``: a function's own code, nested units aside;
- ``literal_values``: the value of every expression written out in full (``Container`` for arrays,
  objects, ``new Set``/``new Map``);
- ``dotted_names``/``aliases``/``resolve``: ``process.env.CI`` however it is spelled or imported;
  ``declared``/``bound_names``: the names a file or a pattern binds;
- ``imports``: ``import``, ``export ... from``, ``require()`` and ``import()``;
- ``comparisons``: binary comparisons with their operator.

Grammars: ``tree-sitter-javascript`` (JSX included) and ``tree-sitter-typescript`` (TS and TSX),
pinned in ``pyproject.toml``. Used by the integrity and quality judges (docs/integrity.md,
docs/quality-judges.md).
"""

from bouts.jsast._functions import (
    CLASS_TYPES,
    COMPARISON_OPERATORS,
    EQUALITY_OPERATORS,
    FUNCTION_TYPES,
    JsFunction,
    comparisons,
    functions,
    owned,
    owned_lines,
)
from bouts.jsast._names import Import, aliases, bound_names, declared, dotted_names, imports, module_name, resolve
from bouts.jsast._parse import (
    MAX_DEPTH,
    MAX_NODES,
    MAX_SOURCE_BYTES,
    SUFFIXES,
    Dialect,
    JsNode,
    JsSource,
    NotAnalysed,
    dialect_for,
    parse,
)
from bouts.jsast._values import NOT_LITERAL, Container, literal_values, number_value, string_value, to_python

__all__ = [
    "CLASS_TYPES",
    "COMPARISON_OPERATORS",
    "EQUALITY_OPERATORS",
    "FUNCTION_TYPES",
    "MAX_DEPTH",
    "MAX_NODES",
    "MAX_SOURCE_BYTES",
    "NOT_LITERAL",
    "SUFFIXES",
    "Container",
    "Dialect",
    "Import",
    "JsFunction",
    "JsNode",
    "JsSource",
    "NotAnalysed",
    "aliases",
    "bound_names",
    "comparisons",
    "declared",
    "dialect_for",
    "dotted_names",
    "functions",
    "imports",
    "literal_values",
    "module_name",
    "number_value",
    "owned",
    "owned_lines",
    "parse",
    "resolve",
    "string_value",
    "to_python",
]
