"""The structure judge's checks on JavaScript/TypeScript units. Pure: a parsed source in,
observations out. The same rules as ``_structure_rules`` where the language allows:

- ``naming``: one-letter names the unit binds (its parameters, variables, loop and ``catch``
  variables; a callback's parameters are idiomatic, as a Python lambda's) other than
  ``i j k n x y z _ e``; function names in camelCase (PascalCase allowed: constructors,
  components), classes in PascalCase;
- ``swallowed-exception``: an empty ``catch {}`` or ``.catch(() => {})``; ``broad-except``: a
  ``catch`` that neither rethrows, logs nor reads the error (every JavaScript ``catch`` catches
  everything, so dropping the error unread is what loses it);
- ``special-case``: ``if (param === <data literal>) return <data literal>``;
- ``open-without-with``: ``fs.openSync``/``fs.promises.open`` in a unit with no ``finally`` (the
  handle leaks on the error path) unless the handle is returned or declared with ``using``;
- ``object-as-map`` (JavaScript only): a plain ``{}`` written with computed keys (``hits[key] =
  ...``, ``delete hits[key]``): keys such as ``__proto__`` or ``constructor`` read inherited
  properties; a ``Map`` (or ``Object.create(null)``) is the dictionary;
- ``io_call``: the I/O a unit performs (console, files, network, processes), for ``io-in-logic``.

Mutable default arguments do not exist in JavaScript (defaults are evaluated per call); type
annotations are checked in TypeScript files only (``annotated``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from bouts import jsast
from bouts.jsast import JsNode, JsSource
from bouts.judges.quality._js_changes import JsUnit

Observation = tuple[str, int, str]
CONVENTIONAL_SHORT = frozenset("ijknxyz_e")
CAMEL = re.compile(r"^[$_]?[A-Za-z][A-Za-z0-9$]*$")
PASCAL = re.compile(r"^_?[A-Z][A-Za-z0-9]*$")
_TRIVIAL = (0, 1, -1, "", None, True, False)
_TAG = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_LOGGING = frozenset({"error", "warn", "warning", "log", "exception", "critical", "fatal", "info", "debug", "trace"})
_OPENERS = frozenset({"fs.openSync", "fs.open", "fs.promises.open", "fs/promises.open", "fsPromises.open",
                      "fs.opendirSync", "fs.opendir"})
_IO_NAMES = re.compile(r"^(console\.|process\.(stdout|stderr|stdin)\.|fs(/promises)?\.|fetch$|child_process\.|"
                       r"http\.|https\.|net\.|readline\.|dgram\.)")
_BINDERS = frozenset({"variable_declarator", "catch_clause", "for_in_statement"})


def _binding_names(src: JsSource, pattern: JsNode | None) -> Iterator[JsNode]:
    return jsast.bound_names(src, pattern)


def naming(src: JsSource, unit: JsUnit) -> Iterator[Observation]:
    fn = unit.fn
    if fn.name is not None:
        name = fn.name.lstrip("#")
        if name != "constructor" and (not CAMEL.match(name) or "_" in name.strip("_")):
            yield "naming", fn.line, f"function '{fn.name}' is not camelCase"
    bound: list[tuple[str, int]] = []
    for param in fn.params:
        bound += [(src.text(n), n.line) for n in _binding_names(src, param)]
    for node in jsast.owned(src, fn, unit.units):
        if node.type in jsast.CLASS_TYPES and node.named:
            class_name = src.field(node, "name")
            if class_name is not None and not PASCAL.match(src.text(class_name)):
                yield "naming", node.line, f"class '{src.text(class_name)}' is not PascalCase"
        elif node.type in _BINDERS:
            target = src.field(node, "name") or src.field(node, "parameter") or src.field(node, "left")
            bound += [(src.text(n), n.line) for n in _binding_names(src, target)]
    seen: set[str] = set()
    for bound_name, line in bound:
        if len(bound_name) == 1 and bound_name not in CONVENTIONAL_SHORT and bound_name not in seen:
            seen.add(bound_name)
            yield "naming", line, f"'{bound_name}' is a one-letter name: say what it holds"


def class_names(src: JsSource, judged: frozenset[int], units: frozenset[int]) -> Iterator[Observation]:
    """Classes declared on judged lines outside any unit (those inside one are ``naming``'s)."""
    i = 0
    while i < len(src.nodes):
        node = src.nodes[i]
        if node.index in units:
            i = node.stop
            continue
        if node.type in jsast.CLASS_TYPES and node.named and node.line in judged:
            name = src.field(node, "name")
            if name is not None and not PASCAL.match(src.text(name)):
                yield "naming", node.line, f"class '{src.text(name)}' is not PascalCase"
        i += 1


def error_handling(src: JsSource, unit: JsUnit) -> Iterator[Observation]:
    for node in jsast.owned(src, unit.fn, unit.units):
        if node.type == "catch_clause":
            body = src.field(node, "body")
            statements = src.named_children(body) if body is not None else []
            if not statements or all(s.type == "empty_statement" for s in statements):
                yield "swallowed-exception", node.line, "exception swallowed: the catch does nothing"
            elif not _handles(src, node):
                yield "broad-except", node.line, "catch neither rethrows, logs nor reads the error: the error is lost"
        elif node.type == "call_expression":
            callee = src.field(node, "function")
            prop = src.field(callee, "property") if callee is not None and callee.type == "member_expression" else None
            args = src.field(node, "arguments")
            first = src.named_children(args)[:1] if args is not None else []
            if prop is not None and src.text(prop) == "catch" and first and _empty_callback(src, first[0]):
                yield "swallowed-exception", node.line, "rejection swallowed: .catch() does nothing"


def _handles(src: JsSource, clause: JsNode) -> bool:
    """Rethrows, logs, or reads the caught error."""
    param = src.field(clause, "parameter")
    names = {src.text(n) for n in _binding_names(src, param)}
    body = src.field(clause, "body")
    for node in src.subtree(body) if body is not None else ():
        if node.type == "throw_statement":
            return True
        if node.type == "identifier" and src.text(node) in names:
            return True
        if node.type == "call_expression":
            callee = src.field(node, "function")
            text = src.text(callee, 200) if callee is not None else ""
            if text.rsplit(".", 1)[-1] in _LOGGING or text in ("reject", "next", "done", "callback", "cb"):
                return True
    return False


def _empty_callback(src: JsSource, node: JsNode) -> bool:
    if node.type not in jsast.FUNCTION_TYPES:
        return False
    body = src.field(node, "body")
    return body is not None and body.type == "statement_block" and not src.named_children(body)


def _data_literal(src: JsSource, node: JsNode) -> bool:
    """A number or string that is data (a price, an id), not a trivial value or a symbolic tag."""
    if node.type not in ("number", "string", "template_string", "unary_expression"):
        return False
    value = _scalar(src, node)
    if value is None or value in _TRIVIAL or isinstance(value, bool):
        return False
    return not (isinstance(value, str) and _TAG.match(value))


def _scalar(src: JsSource, node: JsNode) -> object:
    if node.type == "number":
        return jsast.number_value(src.text(node))
    if node.type == "unary_expression":
        arg = src.field(node, "argument")
        op = src.field(node, "operator")
        value = jsast.number_value(src.text(arg)) if arg is not None and arg.type == "number" else None
        return -value if value is not None and op is not None and op.type == "-" else value
    return jsast.string_value(src, node)


def special_cases(src: JsSource, unit: JsUnit) -> Iterator[Observation]:
    """``if (param === <data literal>) return <data literal>;`` (either operand order)."""
    params = {src.text(n) for p in unit.fn.params for n in _binding_names(src, p)}
    for node in jsast.owned(src, unit.fn, unit.units):
        if node.type != "if_statement":
            continue
        condition = src.field(node, "condition")
        inner = src.named_children(condition) if condition is not None else []
        test = inner[0] if len(inner) == 1 else None
        if test is None or test.type != "binary_expression":
            continue
        op = src.field(test, "operator")
        if op is None or op.type not in ("==", "==="):
            continue
        left, right = src.field(test, "left"), src.field(test, "right")
        if left is None or right is None:
            continue
        name, literal = (left, right) if left.type == "identifier" else (right, left)
        first = src.field(node, "consequence")
        if first is not None and first.type == "statement_block":
            statements = src.named_children(first)
            first = statements[0] if statements else None
        value = src.named_children(first)[:1] if first is not None and first.type == "return_statement" else []
        if name.type == "identifier" and src.text(name) in params and _data_literal(src, literal) \
                and value and _data_literal(src, value[0]):
            yield ("special-case", node.line,
                   f"answers {src.text(name)} === {src.text(literal, 40)} with the constant {src.text(value[0], 40)}")


def resources(src: JsSource, unit: JsUnit, names: list[str | None], aliases: dict[str, str]) -> Iterator[Observation]:
    """A file opened with ``fs.openSync``/``fs.promises.open`` in a unit without ``finally``."""
    owned = list(jsast.owned(src, unit.fn, unit.units))
    if any(n.type == "finally_clause" for n in owned):
        return
    for node in owned:
        if node.type != "call_expression":
            continue
        callee = src.field(node, "function")
        name = jsast.resolve(names[callee.index], aliases) if callee is not None else ""
        if name not in _OPENERS:
            continue
        parent = src.parent(node)
        while parent is not None and parent.type == "await_expression":
            parent = src.parent(parent)
        if parent is not None and parent.type == "return_statement":
            continue  # a factory handing the handle to its caller
        declaration = src.parent(parent) if parent is not None else None
        if declaration is not None and src.text(declaration, 6).startswith(("using", "await ")):
            continue  # ``using fh = ...`` / ``await using`` closes it
        yield ("open-without-with", node.line,
               f"'{name}(...)' without a finally that closes it: the handle leaks on errors")


def object_as_map(src: JsSource, unit: JsUnit, plain_objects: set[str]) -> Iterator[Observation]:
    """``name[key] = ...`` / ``delete name[key]`` where ``name`` was bound to ``{}``."""
    for node in jsast.owned(src, unit.fn, unit.units):
        if node.type != "subscript_expression":
            continue
        obj, index = src.field(node, "object"), src.field(node, "index")
        if obj is None or index is None or obj.type != "identifier" or src.text(obj) not in plain_objects:
            continue
        if index.type in ("string", "number"):
            continue
        parent = src.parent(node)
        written = parent is not None and (
            parent.type in ("assignment_expression", "augmented_assignment_expression") and node.field == "left"
            or parent.type == "unary_expression" and src.text(parent, 6).startswith("delete"))
        if written:
            yield ("object-as-map", node.line,
                   f"'{src.text(obj)}' is a plain object used as a map (keys like __proto__ or constructor "
                   "read inherited properties): use a Map")


def plain_objects(src: JsSource) -> set[str]:
    """Names bound to an empty object literal ``{}`` anywhere in the file."""
    out = set()
    for node in src.nodes:
        if node.type == "variable_declarator":
            target, value = src.field(node, "name"), src.field(node, "value")
            if target is not None and value is not None and target.type == "identifier" \
                    and value.type == "object" and not src.named_children(value):
                out.add(src.text(target))
    return out


def io_call(src: JsSource, unit: JsUnit, names: list[str | None], aliases: dict[str, str]) -> str | None:
    for node in jsast.owned(src, unit.fn, unit.units):
        if node.type == "call_expression":
            callee = src.field(node, "function")
            name = jsast.resolve(names[callee.index], aliases) if callee is not None else ""
            if name and _IO_NAMES.match(name):
                return f"{name}()"
    return None


def annotated(src: JsSource, unit: JsUnit) -> bool:
    """TypeScript: every parameter has a type (``this``-typed and destructured-with-type included)."""
    return all(p.type in ("comment",) or src.field(p, "type") is not None for p in unit.fn.params)
