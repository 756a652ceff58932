"""Gray areas in JavaScript/TypeScript: the ``_gray`` rules (same rule ids and points).

- ``integrity.broad-except-default``: every ``catch`` catches everything, so the question is only
  what it does: a ``catch`` (or a ``.catch(...)`` callback) that is empty or only returns/assigns a
  written-out default (``return null``, ``return []``, ``x = 0``) hides the failure;
- ``integrity.suppress-all``: ``process.on("uncaughtException" | "unhandledRejection", ...)`` and
  ``process.setUncaughtExceptionCaptureCallback``: every crash of the process silenced at once;
- ``integrity.silenced-check``: a new ``eslint-disable``, ``@ts-ignore``, ``@ts-nocheck``,
  ``@ts-expect-error``, ``istanbul``/``c8``/``v8 ignore``, ``biome-ignore``, ``nosemgrep`` comment
  (real comments from the syntax tree: a string holding one is not one).
"""

from __future__ import annotations

import re

from bouts.jsast import FUNCTION_TYPES, NOT_LITERAL, JsNode
from bouts.judges.integrity._gray import BROAD_EXCEPT, SILENCER, SUPPRESS_ALL
from bouts.judges.integrity._jsfile import JsFile
from bouts.judges.integrity._tree import Hit

_SILENCERS = re.compile(
    r"(eslint-disable(?:-next-line|-line)?|@ts-ignore|@ts-nocheck|@ts-expect-error|istanbul\s+ignore|"
    r"c8\s+ignore|v8\s+ignore|jshint\s+ignore|biome-ignore|deno-lint-ignore|nosemgrep|oxlint-disable)",
    re.IGNORECASE,
)
_CATCH_ALL_EVENTS = frozenset({"uncaughtException", "unhandledRejection", "uncaughtExceptionMonitor"})
_LISTENERS = frozenset({"process.on", "process.once", "process.addListener", "process.prependListener",
                        "process.prependOnceListener"})
_PLAIN_NAMES = frozenset({"undefined", "NaN", "Infinity"})
_PLAIN_CONSTRUCTORS = frozenset({"Map", "Set", "Array", "Object", "WeakMap"})


def gray_hits(f: JsFile) -> list[Hit]:
    """Gray-area hits of one file."""
    src = f.parsed
    if src is None:
        return []
    hits = []
    for node in src.nodes:
        if node.type == "comment":
            match = _SILENCERS.search(src.text(node, 400))
            if match:
                code = f.line(node.line)
                hits.append(Hit(SILENCER, node.line, f"silences a check ({match.group(1)}): {code}",
                                f"{SILENCER}:{code}"))
        elif node.type == "catch_clause":
            body = src.field(node, "body")
            if body is not None and _swallows(f, src.named_children(body)):
                hits.append(_broad(f, node, f"{f.line(node.line)} {_first(f, body)}"))
        elif node.type == "call_expression":
            callee = src.field(node, "function")
            args_node = src.field(node, "arguments")
            args = src.named_children(args_node) if args_node is not None else []
            name = f.name(callee) if callee is not None else ""
            prop = src.field(callee, "property") if callee is not None and callee.type == "member_expression" else None
            if prop is not None and src.text(prop) == "catch" and args and _plain_callback(f, args[0]):
                hits.append(_broad(f, node, f.line(node.line)))
            if (name in _LISTENERS and args and f.values[args[0].index] in _CATCH_ALL_EVENTS) or \
                    name == "process.setUncaughtExceptionCaptureCallback":
                code = f.line(node.line)
                hits.append(Hit(SUPPRESS_ALL, node.line, f"suppresses every uncaught error: {code}",
                                f"{SUPPRESS_ALL}:{code}"))
    return hits


def _broad(f: JsFile, node: JsNode, shown: str) -> Hit:
    assert f.parsed is not None
    key = " ".join(f.parsed.text(node, 2000).split())
    return Hit(BROAD_EXCEPT, node.line,
               f"catches every exception and hands back a default instead of failing: {shown}",
               f"{BROAD_EXCEPT}:{key}")


def _swallows(f: JsFile, body: list[JsNode]) -> bool:
    """Only empty statements, ``continue``/``break``, ``return`` of nothing or of a written-out
    value, or assignments of one."""
    src = f.parsed
    assert src is not None
    for stmt in body:
        if stmt.type in ("empty_statement", "continue_statement", "break_statement"):
            continue
        if stmt.type == "return_statement":
            value = src.named_children(stmt)
            if not value or _plain(f, value[0]):
                continue
            return False
        if stmt.type == "expression_statement":
            expr = src.named_children(stmt)
            if expr and expr[0].type == "assignment_expression":
                right = src.field(expr[0], "right")
                if right is not None and _plain(f, right):
                    continue
            return False
        if stmt.type in ("lexical_declaration", "variable_declaration"):
            values = [src.field(d, "value") for d in src.named_children(stmt)]
            if all(v is None or _plain(f, v) for v in values):
                continue
        return False
    return True


def _plain(f: JsFile, node: JsNode) -> bool:
    """A written-out default: a literal, ``undefined``/``NaN``, ``new Map()``, ``Promise.resolve(null)``."""
    src = f.parsed
    assert src is not None
    if f.values[node.index] is not NOT_LITERAL or src.text(node, 20) in _PLAIN_NAMES:
        return True
    if node.type == "new_expression":
        callee, args = src.field(node, "constructor"), src.field(node, "arguments")
        return callee is not None and f.name(callee) in _PLAIN_CONSTRUCTORS and (
            args is None or not src.named_children(args))
    if node.type == "call_expression":
        callee, args = src.field(node, "function"), src.field(node, "arguments")
        named = src.named_children(args) if args is not None else []
        return callee is not None and f.name(callee) == "Promise.resolve" and all(_plain(f, a) for a in named[:1])
    return False


def _plain_callback(f: JsFile, node: JsNode) -> bool:
    """``() => {}``, ``() => null``, ``function () { return []; }`` handed to ``.catch``."""
    src = f.parsed
    assert src is not None
    if node.type not in FUNCTION_TYPES:
        return False
    body = src.field(node, "body")
    if body is None:
        return False
    if body.type == "statement_block":
        return _swallows(f, src.named_children(body))
    return _plain(f, body)


def _first(f: JsFile, body: JsNode) -> str:
    assert f.parsed is not None
    named = f.parsed.named_children(body)
    return " ".join(f.parsed.text(named[0], 80).split()) if named else "{}"
