"""Dangerous calls reached by computed names, in JavaScript/TypeScript (issue 37). Pure: text in, findings out.

Semgrep and ESLint see ``eval(x)``, ``new Function(x)`` and ``require("child_process").exec(x)`` by
name. The same code runs as ``globalThis["ev" + "al"](x)``, ``(0, eval)(x)``, ``const e = eval``,
``(function(){}).constructor("...")``, ``[].constructor.constructor(...)``, or
``require("child_" + "process")``. Over the shared syntax tree (``bouts.jsast``) this module folds
constant strings (``+``, template literals, ``split/reverse/join``, ``String.fromCharCode``,
``atob``, ``toLowerCase``, ``replace``, ``slice``…, through ``const`` names bound once) and reports:

- ``eval``/``Function`` reached through the global object (``globalThis``, ``window``, ``global``,
  ``self``), taken as a value, or the Function constructor reached as ``.constructor`` of a function
  (CWE-95, critical, as the plain call);
- ``require``/``import()`` of a computed name that folds to ``child_process`` (CWE-78, critical) or
  ``vm`` (CWE-95), and ``process.binding`` (the native spawn behind ``child_process``, CWE-78);
- a global object indexed by a key that is not constant (CWE-470, high).

See docs/security.md ("Computed names").
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable

from bouts.jsast import (
    JsNode,
    JsSource,
    NotAnalysed,
    aliases,
    declared,
    dialect_for,
    dotted_names,
    number_value,
    parse,
    resolve,
    string_value,
)
from bouts.judges.security._findings import ToolFinding, normalise
from bouts.judges.security._severity import severity_for

RULE_SINK = "bouts.javascript.computed-name-call"
RULE_LOOKUP = "bouts.javascript.dynamic-lookup"
GLOBALS = frozenset({"globalThis", "window", "global", "self"})
"""The global object's names, when the file does not declare them itself (``const self = this``)."""
CODE_SINKS = frozenset({"eval", "Function", "AsyncFunction", "GeneratorFunction", "setTimeout", "setInterval"})
"""Named on a global object by a computed key: code from a string. (``setTimeout`` only with a string,
which a computed-name call does not show: counted, as hiding the name shows intent.)"""
MODULE_SINKS: dict[str, tuple[int, str]] = {
    "child_process": (78, "runs shell commands"), "vm": (95, "runs a string as code"),
}
MAX_LEN = 4096
_FUNCTIONS = frozenset({"function_expression", "function", "arrow_function", "generator_function",
                        "class", "function_declaration", "generator_function_declaration", "method_definition"})
_UNKNOWN = object()


class _Folder:
    """Constant values of a source's expressions, bottom-up, ``const`` names followed (a few rounds)."""

    def __init__(self, src: JsSource) -> None:
        self.src = src
        self.values: list[object] = [_UNKNOWN] * len(src.nodes)
        self.env: dict[str, object] = {}
        counts = declared(src)
        binders = [n for n in src.nodes if n.type == "variable_declarator"]
        for _ in range(3):
            for node in reversed(src.nodes):
                self.values[node.index] = self._fold(node)
            for decl in binders:
                name, value = src.field(decl, "name"), src.field(decl, "value")
                if name is not None and value is not None and name.type == "identifier":
                    ident = src.text(name)
                    if counts[ident] <= 1 and self.values[value.index] is not _UNKNOWN:
                        self.env[ident] = self.values[value.index]

    def value(self, node: JsNode | None) -> object:
        return _UNKNOWN if node is None else self.values[node.index]

    def _fold(self, node: JsNode) -> object:
        try:
            out = self._fold_node(node)
        except (ValueError, TypeError, IndexError, KeyError, OverflowError, binascii.Error, UnicodeError):
            return _UNKNOWN
        if out is None or isinstance(out, str | list) and len(out) > MAX_LEN:
            return _UNKNOWN
        return out

    def _fold_node(self, node: JsNode) -> object:
        src, kind = self.src, node.type
        if kind == "string":
            return string_value(src, node)
        if kind == "template_string":
            parts: list[str] = []
            for child in src.named_children(node):
                if child.type == "string_fragment":
                    parts.append(src.text(child))
                elif child.type == "escape_sequence":
                    value = string_value(src, node)
                    return value if value is not None else _UNKNOWN
                elif child.type == "template_substitution":
                    inner = src.named_children(child)
                    v = self.value(inner[0]) if inner else _UNKNOWN
                    if v is _UNKNOWN:
                        return _UNKNOWN
                    parts.append(_js_str(v))
            return "".join(parts)
        if kind == "number":
            return number_value(src.text(node, 40))
        if kind == "identifier":
            return self.env.get(src.text(node, 200), _UNKNOWN)
        if kind == "parenthesized_expression":
            inner = src.named_children(node)
            return self.value(inner[-1]) if inner else _UNKNOWN
        if kind == "array":
            items = [self.value(c) for c in src.named_children(node)]
            return _UNKNOWN if any(i is _UNKNOWN for i in items) else items
        if kind == "binary_expression":
            op = src.field(node, "operator")
            left, right = self.value(src.field(node, "left")), self.value(src.field(node, "right"))
            if op is None or src.text(op) != "+" or _UNKNOWN in (left, right):
                return _UNKNOWN
            if isinstance(left, str) or isinstance(right, str):
                return _js_str(left) + _js_str(right)
            return left + right  # type: ignore[operator]
        if kind == "call_expression":
            return self._call(node)
        return _UNKNOWN

    def _call(self, node: JsNode) -> object:
        src = self.src
        callee, args_node = src.field(node, "function"), src.field(node, "arguments")
        args = [self.value(a) for a in src.named_children(args_node)] if args_node is not None else []
        if callee is None or any(a is _UNKNOWN for a in args):
            return _UNKNOWN
        if callee.type == "identifier" and src.text(callee) == "atob" and len(args) == 1:
            return base64.b64decode(str(args[0])).decode("latin-1")
        if callee.type != "member_expression":
            return _UNKNOWN
        obj, prop = src.field(callee, "object"), src.field(callee, "property")
        method = src.text(prop) if prop is not None else ""
        if obj is not None and src.text(obj) == "String" and method == "fromCharCode":
            return "".join(chr(int(a)) for a in args)  # type: ignore[call-overload]
        base = self.value(obj)
        if base is _UNKNOWN:
            return _UNKNOWN
        table: dict[str, Callable[[], object]] = {}
        if isinstance(base, str):
            table = {
                "split": lambda: list(base) if args == [""] else base.split(str(args[0])) if args else [base],
                "toLowerCase": base.lower, "toUpperCase": base.upper, "trim": base.strip,
                "concat": lambda: base + "".join(_js_str(a) for a in args),
                "replace": lambda: base.replace(str(args[0]), str(args[1]), 1),
                "replaceAll": lambda: base.replace(str(args[0]), str(args[1])),
                "slice": lambda: base[slice(*(int(a) for a in args))],  # type: ignore[call-overload]
                "substring": lambda: base[slice(*(int(a) for a in args))],  # type: ignore[call-overload]
                "toString": lambda: base,
                "repeat": lambda: base * int(args[0]) if len(base) * int(args[0]) <= MAX_LEN else _UNKNOWN,
                "charAt": lambda: base[int(args[0])],  # type: ignore[call-overload]
            }
        elif isinstance(base, list):
            table = {
                "reverse": lambda: base[::-1],
                "join": lambda: (str(args[0]) if args else ",").join(_js_str(v) for v in base),
                "concat": lambda: base + [x for a in args for x in (a if isinstance(a, list) else [a])],
            }
        return table[method]() if method in table else _UNKNOWN


def _js_str(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return ",".join(_js_str(v) for v in value)
    return str(value)


def javascript_findings(rel: str, text: str) -> list[ToolFinding]:
    """The computed-name findings of one JavaScript/TypeScript file (none when it is not analysed)."""
    dialect = dialect_for(rel)
    if dialect is None:
        return []
    src = parse(text, dialect)
    if isinstance(src, NotAnalysed):
        return []
    folder = _Folder(src)
    dotted = dotted_names(src)
    table = aliases(src, dotted)
    counts = declared(src)
    globals_here = frozenset(g for g in GLOBALS if counts[g] == 0)
    hits: dict[tuple[str, int, int], tuple[str, int, int, str]] = {}

    def hit(rule: str, cwe: int, node: JsNode, message: str) -> None:
        hits.setdefault((rule, node.line, cwe), (rule, cwe, node.line, f"{message}: {src.text(node, 80)}"))

    def name_of(node: JsNode | None) -> str:
        return resolve(dotted[node.index], table) if node is not None else ""

    for node in src.nodes:
        kind = node.type
        parent = src.parent(node)
        if kind == "subscript_expression":
            obj, index = src.field(node, "object"), src.field(node, "index")
            if obj is not None and name_of(obj) in globals_here and index is not None:
                key = folder.value(index)
                if key is _UNKNOWN:
                    hit(RULE_LOOKUP, 470, node, "the global object indexed by a key that is not constant")
                elif key in CODE_SINKS and index.type != "string":
                    hit(RULE_SINK, 95, node, f"{key} (runs a string as code) reached by a computed name")
        elif kind == "member_expression":
            obj, prop = src.field(node, "object"), src.field(node, "property")
            attr = src.text(prop, 40) if prop is not None else ""
            if attr in ("eval", "Function") and obj is not None and name_of(obj) in globals_here:
                hit(RULE_SINK, 95, node, f"{attr} (runs a string as code) reached through the global object")
            elif attr == "constructor" and obj is not None and _is_function(src, obj):
                hit(RULE_SINK, 95, node, "the Function constructor (runs a string as code) reached as .constructor")
        elif kind == "identifier" and src.text(node, 20) in ("eval", "Function") and node.field != "name":
            callee = parent is not None and parent.type in ("call_expression", "new_expression") and node.field in (
                "function", "constructor")
            declared_here = parent is not None and (parent.type == "formal_parameters" or (
                parent.type == "variable_declarator" and node.field == "name"))
            if parent is not None and (parent.type == "unary_expression" or _compared(src, parent) or (
                    parent.type == "member_expression" and node.field == "object")):
                continue  # typeof eval, x instanceof Function, Function.call.bind(...): asked about, not taken
            if not callee and not declared_here and (parent is None or parent.type != "member_expression"
                                                     or node.field != "property"):
                hit(RULE_SINK, 95, node, f"{src.text(node)} (runs a string as code) taken as a value")
        elif kind in ("call_expression",):
            callee, args = src.field(node, "function"), src.field(node, "arguments")
            called = name_of(callee) if callee is not None else ""
            first = src.named_children(args)[:1] if args is not None else []
            is_import = callee is not None and callee.type == "import"
            if (called == "require" or called.endswith(".require") or is_import) and first:
                spec = folder.value(first[0])
                if isinstance(spec, str) and first[0].type != "string":
                    module = spec.removeprefix("node:")
                    if module in MODULE_SINKS:
                        cwe, what = MODULE_SINKS[module]
                        hit(RULE_SINK, cwe, node, f"{module} ({what}) loaded by a computed name")
            elif called in ("process.binding", "process._linkedBinding"):
                hit(RULE_SINK, 78, node, "a native binding of the process (spawn without child_process)")
    lines = text.splitlines()
    return [
        ToolFinding(tool="bouts", rule=f"bouts:{rule}", cwe=cwe, severity=severity_for(cwe, "high"), file=rel,
                    line=line, end_line=line, message=message,
                    snippet=normalise(lines[line - 1], rel) if 0 < line <= len(lines) else "")
        for rule, cwe, line, message in sorted(hits.values(), key=lambda h: (h[2], h[0], h[3]))
    ]


def _compared(src: JsSource, node: JsNode) -> bool:
    op = src.field(node, "operator") if node.type == "binary_expression" else None
    return op is not None and src.text(op) in ("instanceof", "===", "!==", "==", "!=", "in")


def _is_function(src: JsSource, node: JsNode) -> bool:
    """A function or class written in place (``(function(){})``, ``(() => 0)``, ``[].constructor``'s
    ``.constructor``): its ``.constructor`` is the Function constructor."""
    while node.type == "parenthesized_expression":
        inner = src.named_children(node)
        if not inner:
            return False
        node = inner[-1]
    if node.type in _FUNCTIONS:
        return True
    if node.type == "member_expression":
        prop = src.field(node, "property")
        return prop is not None and src.text(prop, 20) == "constructor"
    if node.type == "call_expression":  # Object.getPrototypeOf(async function () {})
        callee, args = src.field(node, "function"), src.field(node, "arguments")
        inner = src.named_children(args) if args is not None else []
        return (callee is not None and src.text(callee, 40) in ("Object.getPrototypeOf", "Reflect.getPrototypeOf")
                and bool(inner) and _is_function(src, inner[0]))
    return False
