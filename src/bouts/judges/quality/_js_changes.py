"""What a JavaScript/TypeScript submission changed: the ``_changes`` model, read with tree-sitter.

The unit of judgement is still the function, but a JavaScript module nests functions where
Python uses classes: a factory returning an object of methods, named helpers inside it, callbacks.
So every *named* function is a unit of its own (``createLimiter``, ``createLimiter.hit``,
``createLimiter.live``), like a Python method, and anonymous functions (callbacks, IIFEs, default
values) belong to the unit around them, like a Python lambda; an anonymous function at module
level (``export default () => ...``, a route handler) is a unit of its own. A unit owns its code
minus its nested units (``jsast.owned``).

A unit is changed when its own code differs from the starter's unit of the same qualified name
(comments, whitespace and positions ignored; a nested unit counts as one opaque token), so editing
``hit`` does not make ``createLimiter`` the agent's. Judged lines are the lines changed units own
plus the module-level lines a line diff shows as added or replaced; written lines weigh in full,
inherited ones ``INHERITED_SHARE``, as for Python.
"""

from __future__ import annotations

from dataclasses import dataclass

from bouts import jsast
from bouts.jsast import JsFunction, JsSource
from bouts.models.view import ViewFile

JS_SUFFIXES = tuple(jsast.SUFFIXES)
"""Files the quality judges read in a JavaScript/TypeScript challenge."""


@dataclass(frozen=True)
class JsUnit:
    """A named function (any depth) or an anonymous one at module level, with the code it owns."""

    file: str
    qualname: str
    fn: JsFunction
    start: int
    end: int
    changed: bool
    owned: frozenset[int]
    """Lines of the unit not inside a nested unit."""
    units: frozenset[int]
    """Node indices of every unit of the file (what ``jsast.owned`` leaves out)."""


def unit_functions(src: JsSource) -> list[tuple[str, JsFunction]]:
    """(qualified name, function) of every unit of a source, outer before inner."""
    functions = jsast.functions(src)
    is_unit = [False] * len(functions)
    out = []
    for i, fn in enumerate(functions):
        enclosing = fn.enclosing
        while enclosing >= 0 and not is_unit[enclosing]:
            enclosing = functions[enclosing].enclosing
        if fn.name is None and enclosing >= 0:
            continue  # a callback: part of the unit around it
        is_unit[i] = True
        if fn.name is not None:
            out.append((fn.qualname, fn))
        else:
            parent = src.parent(fn.node)
            out.append(("default" if parent is not None and parent.type == "export_statement" else "<anonymous>", fn))
    return out


def fingerprint(src: JsSource, fn: JsFunction, units: frozenset[int]) -> str:
    """The unit's own code without positions, comments or whitespace; a nested unit is one token."""
    nodes = src.nodes
    parts = []
    i = fn.node.index
    while i < fn.node.stop:
        node = nodes[i]
        if node.index in units and node.index != fn.node.index:
            parts.append("<unit>")
            i = node.stop
            continue
        if node.type != "comment":
            parts.append(f"{node.type}={src.text(node, 200)}" if not node.children else node.type)
        i += 1
    return "\x00".join(parts)


def parse_js(raw: ViewFile) -> JsSource | jsast.NotAnalysed:
    assert raw.text is not None
    return jsast.parse(raw.text, jsast.dialect_for(raw.rel) or "javascript")


def js_units(
    rel: str, src: JsSource, before: dict[tuple[str, int], str] | None
) -> tuple[list[JsUnit], dict[tuple[str, int], str]]:
    """The file's units, each marked changed against ``before`` (the starter's fingerprints; None
    when nothing is changed), and this file's own fingerprints."""
    named = unit_functions(src)
    indices = frozenset(fn.node.index for _, fn in named)
    seen: dict[str, int] = {}
    prints: dict[tuple[str, int], str] = {}
    units = []
    for qualname, fn in named:
        seen[qualname] = seen.get(qualname, 0) + 1
        key = (qualname, seen[qualname])
        prints[key] = fingerprint(src, fn, indices)
        changed = before is not None and before.get(key) != prints[key]
        units.append(JsUnit(rel, qualname, fn, fn.line, fn.end_line, changed,
                            frozenset(jsast.owned_lines(src, fn, indices)), indices))
    return units, prints
