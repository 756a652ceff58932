"""Names: dotted names of expressions, imports (``import``, ``require``, ``import()``) and the
aliases they bind.

``dotted_names(src)`` gives each identifier, ``this``, member and string-indexed subscript
expression its dotted name (``process.env.CI``; ``process.env["CI"]`` is the same name; optional
chaining ``a?.b`` too; ``require("node:os").hostname`` is ``os.hostname``), bottom-up and linear.
``aliases(src)`` maps the local names a module binds to what they stand for, so
``import { env } from "node:process"`` makes ``env.CI`` read as ``process.env.CI`` and
``const t = require("node:test")`` makes ``t.mock`` read as ``test.mock``.
Module names lose their ``node:`` prefix (``node:assert/strict`` is ``assert/strict``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from bouts.jsast._parse import JsNode, JsSource
from bouts.jsast._values import string_value

_MEMBERS = frozenset({"member_expression", "subscript_expression"})
_WRAPPERS = frozenset({"parenthesized_expression", "non_null_expression", "as_expression", "satisfies_expression"})


@dataclass(frozen=True)
class Import:
    """One module a source loads, and the local names bound to it."""

    module: str
    """The specifier without a ``node:`` prefix (``assert/strict``, ``./util.mjs``)."""
    names: tuple[tuple[str, str], ...]
    """``(local, imported)``: ``imported`` is a name, ``default`` or ``*`` (the whole module)."""
    node: JsNode
    """The ``import``/``export`` statement or the ``require``/``import()`` call."""
    source: JsNode
    """The string node naming the module."""
    kind: str
    """``import``, ``export`` (``export ... from``), ``require`` or ``dynamic`` (``import()``)."""


def module_name(specifier: str) -> str:
    return specifier.removeprefix("node:")


def dotted_names(src: JsSource) -> list[str | None]:
    """The dotted name of every node that has one (else None), by index; aliases not applied."""
    nodes = src.nodes
    names: list[str | None] = [None] * len(nodes)
    for node in reversed(nodes):
        kind = node.type
        if kind in ("identifier", "this", "super", "shorthand_property_identifier"):
            names[node.index] = src.text(node, 200)
        elif kind in _WRAPPERS:
            inner = src.named_children(node)
            names[node.index] = names[inner[0].index] if inner else None
        elif kind in _MEMBERS:
            obj = src.field(node, "object")
            base = names[obj.index] if obj is not None else None
            if base is None:
                continue
            if kind == "member_expression":
                prop = src.field(node, "property")
                attr = src.text(prop, 200) if prop is not None else None
            else:
                index = src.field(node, "index")
                attr = string_value(src, index) if index is not None else None
            if attr is not None and len(base) < 400:
                names[node.index] = f"{base}.{attr}"
        elif kind == "meta_property":  # import.meta, new.target
            names[node.index] = src.text(node, 40).replace(" ", "")
        elif kind == "call_expression":  # require("node:os") is the module: require("node:os").hostname
            callee, args = src.field(node, "function"), src.field(node, "arguments")
            if callee is not None and callee.type == "identifier" and src.text(callee) == "require" and args:
                first = src.named_children(args)[:1]
                spec = string_value(src, first[0]) if first else None
                names[node.index] = module_name(spec) if spec else None
    return names


def imports(src: JsSource) -> list[Import]:
    """Every ``import``/``export ... from`` statement and every ``require("x")``/``import("x")`` call
    with a literal specifier."""
    out: list[Import] = []
    for node in src.nodes:
        if node.type in ("import_statement", "export_statement"):
            source = src.field(node, "source")
            spec = string_value(src, source) if source is not None else None
            if source is not None and spec is not None:
                kind = "import" if node.type == "import_statement" else "export"
                out.append(Import(module_name(spec), _import_names(src, node), node, source, kind))
        elif node.type == "call_expression":
            callee, args = src.field(node, "function"), src.field(node, "arguments")
            if callee is None or args is None:
                continue
            first = src.named_children(args)[:1]
            spec = string_value(src, first[0]) if first else None
            if spec is None:
                continue
            if callee.type == "identifier" and src.text(callee) == "require":
                out.append(Import(module_name(spec), _bound_names(src, node), node, first[0], "require"))
            elif callee.type == "import":
                out.append(Import(module_name(spec), _bound_names(src, node), node, first[0], "dynamic"))
    return out


def _import_names(src: JsSource, statement: JsNode) -> tuple[tuple[str, str], ...]:
    names: list[tuple[str, str]] = []
    for node in src.walk(statement):
        if node.type == "import_clause":
            for child in src.named_children(node):
                if child.type == "identifier":
                    names.append((src.text(child), "default"))
        elif node.type == "namespace_import":
            ids = [c for c in src.named_children(node) if c.type == "identifier"]
            names += [(src.text(ids[0]), "*")] if ids else []
        elif node.type == "import_specifier":
            name, alias = src.field(node, "name"), src.field(node, "alias")
            if name is not None:
                names.append((src.text(alias or name), string_value(src, name) or src.text(name)))
    return tuple(names)


def _bound_names(src: JsSource, call: JsNode) -> tuple[tuple[str, str], ...]:
    """What ``const x = require("m")`` / ``const {a, b: c} = require("m")`` binds (``await import()`` too)."""
    parent = src.parent(call)
    while parent is not None and parent.type in ("await_expression", "parenthesized_expression"):
        parent = src.parent(parent)
    if parent is None or parent.type != "variable_declarator":
        return ()
    target = src.field(parent, "name")
    if target is None:
        return ()
    if target.type == "identifier":
        return ((src.text(target), "*"),)
    if target.type == "object_pattern":
        return tuple(_pattern_names(src, target))
    return ()


def _pattern_names(src: JsSource, pattern: JsNode) -> list[tuple[str, str]]:
    """``{a, b: c, d = 1}`` → ``(a, a), (c, b), (d, d)`` (top level of the pattern only)."""
    out = []
    for child in src.named_children(pattern):
        if child.type == "shorthand_property_identifier_pattern":
            out.append((src.text(child), src.text(child)))
        elif child.type == "pair_pattern":
            key, value = src.field(child, "key"), src.field(child, "value")
            if key is not None and value is not None and value.type == "identifier":
                out.append((src.text(value), string_value(src, key) or src.text(key)))
        elif child.type == "object_assignment_pattern":
            left = src.field(child, "left")
            if left is not None and left.type == "shorthand_property_identifier_pattern":
                out.append((src.text(left), src.text(left)))
    return out


def bound_names(src: JsSource, pattern: JsNode | None) -> Iterator[JsNode]:
    """The identifiers a binding pattern binds (``x``, ``{a, b: c}``, ``[d, ...e]``, ``f = 1``, a
    TypeScript ``x: T``), not the keys or default values inside it (iterative)."""
    stack = [pattern] if pattern is not None else []
    while stack:
        node = stack.pop()
        kind = node.type
        if kind in ("identifier", "shorthand_property_identifier_pattern"):
            yield node
        elif kind in ("object_pattern", "array_pattern", "rest_pattern"):
            stack.extend(reversed(src.named_children(node)))
        elif kind in ("required_parameter", "optional_parameter"):
            stack.extend(n for n in (src.field(node, "pattern"),) if n is not None)
        elif kind == "pair_pattern":
            stack.extend(n for n in (src.field(node, "value"),) if n is not None)
        elif kind in ("assignment_pattern", "object_assignment_pattern"):
            stack.extend(n for n in (src.field(node, "left"),) if n is not None)


def declared(src: JsSource) -> Counter[str]:
    """How many times each name is bound in the file: declarations, parameters, function and class
    names, ``catch`` variables, loop variables and imports."""
    out: Counter[str] = Counter()
    for node in src.nodes:
        kind = node.type
        targets: list[JsNode | None] = []
        if kind == "variable_declarator":
            targets = [src.field(node, "name")]
        elif kind == "formal_parameters":
            targets = list(src.named_children(node))
        elif kind == "arrow_function" or kind == "catch_clause":
            targets = [src.field(node, "parameter")]
        elif kind in ("function_declaration", "generator_function_declaration", "class_declaration",
                      "function_expression", "class"):
            targets = [src.field(node, "name")]
        elif kind == "for_in_statement" and src.field(node, "kind") is not None:
            targets = [src.field(node, "left")]
        elif kind in ("import_specifier", "namespace_import", "import_clause"):
            targets = [src.field(node, "alias") or src.field(node, "name")] if kind == "import_specifier" else \
                [c for c in src.named_children(node) if c.type == "identifier"]
        for target in targets:
            out.update(src.text(n, 200) for n in bound_names(src, target))
    return out


def aliases(src: JsSource, dotted: list[str | None]) -> dict[str, str]:
    """Local name → what it stands for: modules bound by imports (``t`` → ``test``, ``env`` →
    ``process.env``), and names bound to a dotted name (``const e = process.env``, ``const { env }
    = process``). One table per file, not per scope: an import always stands for its module (a
    parameter shadowing it cannot hide it), while a name bound to a dotted name is left out when the
    file binds that name more than once (minified code reusing it): such an alias is ambiguous."""
    out: dict[str, str] = {}
    imported_names: dict[str, str] = {}
    for imp in imports(src):
        module = imp.module
        for local, imported in imp.names:
            imported_names[local] = module if imported in ("*", "default") else f"{module}.{imported}"
    out.update(imported_names)
    for node in src.nodes:
        if node.type != "variable_declarator":
            continue
        target, value = src.field(node, "name"), src.field(node, "value")
        if target is None or value is None or dotted[value.index] is None:
            continue
        base = resolve(dotted[value.index], out)
        if target.type == "identifier" and "." in base:
            out.setdefault(src.text(target), base)
        elif target.type == "object_pattern":
            for local, key in _pattern_names(src, target):
                out.setdefault(local, f"{base}.{key}")
    counts = declared(src)
    return {name: target for name, target in out.items() if name in imported_names or counts[name] <= 1}


def resolve(name: str | None, table: dict[str, str]) -> str:
    """``name`` with its first part replaced by what the alias table says it stands for."""
    if not name:
        return ""
    head, dot, rest = name.partition(".")
    base = table.get(head)
    if base is None:
        return name
    return f"{base}{dot}{rest}" if dot else base
