"""JavaScript/TypeScript analysis for adversarial generation: pure, source text in, targets and
probes out, through ``bouts.jsast`` (bounded, iterative: hostile code cannot exhaust the stack).

What is read (``docs/adversarial.md``, "JavaScript"):

- the exported API: ``export function f``, ``export const f = (...) =>``, ``export class C`` (its
  methods, built with ``new C(...)``), ``export default``, ``export { f as g }`` and CommonJS
  ``module.exports = {...}`` / ``module.exports.f = ...`` / ``exports.f = ...``; an exported
  function returning an object of methods is a factory: ``F().m`` is the method ``m`` of what
  ``F(...)`` returns, also when the object spreads another factory's (``const core = G(o);
  return { ...core, hit: (k) => settle(core.hit(k)) }``: ``F().reset`` is ``G``'s ``reset``, and
  ``core.hit(k)`` reaches ``G``'s ``hit``), so wrapping the API does not hide it;
- in every function, the plain parameters (``p``, ``p = default``) that reach a sink without a
  check: indexing (``obj[p]``), arithmetic (``p - 1``), allocation (``new Array(p)``,
  ``s.repeat(p)``), a file path (``fs.readFileSync(p)``) → ``unvalidated_input``; a ``.get()``,
  ``.find()``, ``.match()``/``.exec()`` result used without a null check → ``missing_null_check``;
  a parameter used with ``.length``, a property or a method → ``weak_type``. A ``typeof p``,
  ``Array.isArray(p)``, ``Number.isInteger(p)``, ``p instanceof``, ``p == null`` check marks the
  target ``guarded`` (probed anyway: checks are often incomplete);
- reach: a target is probed through the exported entries that are its function, or that call it
  (one call away, same file) passing one of their own parameters.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from bouts.adversarial._model import Analysis, Entry, Param, Probe, Target
from bouts.jsast import JsFunction, JsNode, JsSource, NotAnalysed, dialect_for, functions, imports, owned, parse

JS_ANALYSER = "js-tree-sitter/1"
MAX_ENTRIES_PER_TARGET = 2
FS_MODULES = frozenset({"fs", "fs/promises"})
FS_CALLS = frozenset({
    "readFile", "readFileSync", "writeFile", "writeFileSync", "appendFile", "appendFileSync", "createReadStream",
    "createWriteStream", "open", "openSync", "unlink", "unlinkSync", "readdir", "readdirSync", "stat", "statSync",
    "rm", "rmSync", "mkdir", "mkdirSync", "copyFile", "copyFileSync", "rename", "renameSync",
})  # fmt: skip
NULLABLE_CALLS = frozenset({"get", "find", "findLast", "match", "exec", "getItem", "querySelector"})
CHECKS = frozenset({"isArray", "isInteger", "isFinite", "isSafeInteger", "isNaN", "isString"})
ARITHMETIC = frozenset({"-", "*", "/", "%", "**"})
_TEST = re.compile(r"(^|/)(tests?|__tests__|node_modules)/|\.(test|spec)\.[cm]?[jt]sx?$|(^|/)[^/]*\.d\.ts$")


@dataclass(frozen=True)
class _Fn:
    file: str
    src: JsSource
    fn: JsFunction
    index: int
    params: tuple[Param, ...]


def _params(src: JsSource, fn: JsFunction) -> tuple[Param, ...]:
    out = []
    for i, node in enumerate(fn.params):
        if node.type == "identifier":
            out.append(Param(src.text(node, 200)))
        elif node.type in ("assignment_pattern", "required_parameter", "optional_parameter"):
            inner = src.field(node, "left") or src.field(node, "pattern")
            default = node.type != "required_parameter" or src.field(node, "value") is not None
            if inner is not None and inner.type == "identifier":
                out.append(Param(src.text(inner, 200), has_default=default))
            else:
                out.append(Param(f"arg{i}", annotation="pattern", has_default=default))
        elif node.type == "rest_pattern":
            out.append(Param(f"arg{i}", annotation="rest", has_default=True))
        else:
            out.append(Param(f"arg{i}", annotation="pattern"))
    return tuple(out)


def _probeable(p: Param) -> bool:
    return p.annotation not in ("pattern", "rest")


class JavaScriptAnalyser:
    """JavaScript and TypeScript, through tree-sitter (``bouts.jsast``)."""

    version = JS_ANALYSER

    def __init__(self, language: str = "javascript") -> None:
        self.language = language

    def analyse(self, sources: Mapping[str, str]) -> Analysis:
        notes: list[str] = []
        fns: list[_Fn] = []
        entries: list[tuple[Entry, _Fn]] = []
        for rel in sorted(sources):
            dialect = dialect_for(rel)
            if dialect is None or _TEST.search(rel):
                continue
            src = parse(sources[rel], dialect)
            if isinstance(src, NotAnalysed):
                notes.append(f"{rel}: not analysed ({src.reason})")
                continue
            listed = functions(src)
            here = [_Fn(rel, src, f, i, _params(src, f)) for i, f in enumerate(listed)]
            fns += here
            entries += _entries(rel, src, here)
        targets: list[Target] = []
        for f in fns:
            targets += _scan(f)
        probes, skipped = _probes(fns, entries, targets)
        return Analysis(self.language, JS_ANALYSER, tuple(targets), tuple(probes), tuple(skipped), tuple(notes))


# --- the exported API -------------------------------------------------------------------------


def _exports(src: JsSource) -> dict[str, str]:
    """Exported name → local name (``default`` for a default export of an anonymous function)."""
    out: dict[str, str] = {}
    for node in src.nodes:
        if node.type == "export_statement" and node.depth == 1:
            if src.field(node, "source") is not None:
                continue  # re-exports from elsewhere: analysed in their own file
            default = any(c.type == "default" for c in src.children(node))
            decl = src.field(node, "declaration")
            value = src.field(node, "value")
            if decl is not None:
                name = src.field(decl, "name")
                if decl.type in ("lexical_declaration", "variable_declaration"):
                    for d in src.named_children(decl):
                        n = src.field(d, "name")
                        if d.type == "variable_declarator" and n is not None and n.type == "identifier":
                            out[src.text(n)] = src.text(n)
                elif name is not None:
                    out["default" if default else src.text(name)] = src.text(name)
                elif default:
                    out["default"] = f"@{decl.index}"
            elif value is not None and default:
                out["default"] = src.text(value) if value.type == "identifier" else f"@{value.index}"
            for clause in src.named_children(node):
                if clause.type == "export_clause":
                    for spec in src.named_children(clause):
                        n, alias = src.field(spec, "name"), src.field(spec, "alias")
                        if n is not None:
                            out[src.text(alias or n)] = src.text(n)
        elif node.type == "assignment_expression":
            left, right = src.field(node, "left"), src.field(node, "right")
            if left is None or right is None:
                continue
            target = src.text(left, 200)
            if target == "module.exports":
                if right.type == "object":
                    for item in src.named_children(right):
                        if item.type == "shorthand_property_identifier":
                            out[src.text(item)] = src.text(item)
                        elif item.type == "pair":
                            k, v = src.field(item, "key"), src.field(item, "value")
                            if k is not None and v is not None:
                                out[src.text(k).strip("'\"")] = src.text(v) if v.type == "identifier" else f"@{v.index}"
                else:
                    out["default"] = src.text(right) if right.type == "identifier" else f"@{right.index}"
            elif target.startswith(("module.exports.", "exports.")) and target.count(".") == target.startswith("m") + 1:
                name = target.rsplit(".", 1)[1]
                out[name] = src.text(right) if right.type == "identifier" else f"@{right.index}"
    return out


def _class_of(src: JsSource, f: JsFunction) -> JsNode | None:
    if f.node.type != "method_definition":
        return None
    body = src.parent(f.node)
    cls = src.parent(body) if body is not None else None
    return cls if cls is not None and cls.type in ("class_declaration", "class") else None


def _returned_object(src: JsSource, f: JsFunction, outer: JsFunction) -> bool:
    """Whether ``f`` is a method (or a property's function) of an object literal ``outer`` returns."""
    node = src.parent(f.node)
    if node is not None and node.type == "pair":
        node = src.parent(node)
    if node is None or node.type != "object":
        return False
    up = src.parent(node)
    while up is not None and up.type == "parenthesized_expression":
        up = src.parent(up)
    if up is not None and up.type == "return_statement":
        return True
    return up is not None and up.index == (outer.body.index if outer.body is not None else -1)  # () => ({...})


def _entries(rel: str, src: JsSource, fns: list[_Fn]) -> list[tuple[Entry, _Fn]]:
    exports = _exports(src)
    by_local: dict[str, list[str]] = {}
    for exported, local in exports.items():
        by_local.setdefault(local, []).append(exported)
    out: list[tuple[Entry, _Fn]] = []
    top = {f.index: f for f in fns if f.fn.enclosing == -1}

    def export_names(f: _Fn) -> list[str]:
        node = f.fn.node
        names = list(by_local.get(f"@{node.index}", []))
        if f.fn.name:
            names += by_local.get(f.fn.name, [])
        parent = src.parent(node)
        if parent is not None and parent.type == "export_statement" and any(
                c.type == "default" for c in src.children(parent)):  # fmt: skip
            names.append("default")
        return sorted(set(names))

    classes: dict[int, list[str]] = {}
    for node in src.nodes:
        if node.type in ("class_declaration", "class"):
            name = src.field(node, "name")
            names = list(by_local.get(f"@{node.index}", []))
            if name is not None:
                names += by_local.get(src.text(name), [])
            parent = src.parent(node)
            if parent is not None and parent.type == "export_statement" and any(
                    c.type == "default" for c in src.children(parent)):  # fmt: skip
                names.append("default")
            if names:
                classes[node.index] = sorted(set(names))
    ctors: dict[int, tuple[Param, ...]] = {}
    for f in fns:
        cls = _class_of(src, f.fn)
        if cls is not None and f.fn.name == "constructor":
            ctors[cls.index] = f.params
    for f in fns:
        cls = _class_of(src, f.fn)
        if cls is not None and cls.index in classes and f.fn.name and f.fn.name != "constructor":
            if any(c.type == "static" for c in src.children(f.fn.node)) or f.fn.name.startswith("#"):
                continue
            for cname in classes[cls.index]:
                out.append((Entry(rel, f"{cname}.{f.fn.name}", f.params, ctors.get(cls.index, ())), f))
        elif f.index in top:
            for name in export_names(f):
                out.append((Entry(rel, name, f.params), f))
                own = _methods(fns, f)
                for method, inner in own.items():
                    out.append((Entry(rel, f"{name}().{method}", inner.params, f.params), inner))
                for method, inner in _spread_methods(fns, f).items():
                    if method not in own:
                        out.append((Entry(rel, f"{name}().{method}", inner.params, f.params), inner))
    return out


def _methods(fns: list[_Fn], factory: _Fn) -> dict[str, _Fn]:
    """The methods of the object literal ``factory`` returns, by name."""
    out: dict[str, _Fn] = {}
    for inner in fns:
        if inner.fn.enclosing == factory.index and inner.fn.name and inner.file == factory.file \
                and _returned_object(inner.src, inner.fn, factory.fn):  # fmt: skip
            out.setdefault(inner.fn.name, inner)
    return out


def _made_by(fns: list[_Fn], scope: _Fn, name: str) -> _Fn | None:
    """The top-level function ``G`` of the same file when ``name`` is bound in ``scope`` or a function
    enclosing it by ``const name = G(...)``: a wrapper's ``core`` in ``const core = createCore(o)``."""
    src = scope.src
    by_index = {f.index: f for f in fns if f.file == scope.file}
    here: _Fn | None = scope
    while here is not None:
        for n in _own_nodes(here):
            if n.type != "variable_declarator":
                continue
            left, value = src.field(n, "name"), src.field(n, "value")
            if left is None or value is None or left.type != "identifier" or src.text(left, 200) != name:
                continue
            callee = src.field(value, "function") if value.type == "call_expression" else None
            if callee is None or callee.type != "identifier":
                return None
            made = src.text(callee, 200)
            return next((f for f in by_index.values() if f.fn.enclosing == -1 and f.fn.name == made), None)
        here = by_index.get(here.fn.enclosing)
    return None


def _spread_methods(fns: list[_Fn], factory: _Fn) -> dict[str, _Fn]:
    """Methods a factory's returned object takes by spreading another factory's object into it
    (``const core = createCore(o); return { ...core, hit: ... }``): ``core``'s methods are the
    wrapper's too."""
    src = factory.src
    out: dict[str, _Fn] = {}
    for n in _own_nodes(factory):
        if n.type != "spread_element" or src.parent(n) is None or src.parent(n).type != "object":
            continue
        up = src.parent(src.parent(n))
        while up is not None and up.type == "parenthesized_expression":
            up = src.parent(up)
        body = factory.fn.body.index if factory.fn.body is not None else -1
        returned = up is not None and (up.type == "return_statement" or up.index == body)  # () => ({...core})
        arg = src.named_children(n)[0] if src.named_children(n) else None
        if not returned or arg is None or arg.type != "identifier":
            continue
        made = _made_by(fns, factory, src.text(arg, 200))
        if made is not None and made is not factory:
            for method, inner in _methods(fns, made).items():
                out.setdefault(method, inner)
    return out


# --- targets ------------------------------------------------------------------------------------


def _own_nodes(f: _Fn) -> list[JsNode]:
    src = f.src
    units = frozenset(
        n.index for n in src.subtree(f.fn.node)[1:]
        if n.type in ("function_declaration", "method_definition", "class_declaration")
        or (n.type in ("arrow_function", "function_expression", "function") and src.parent(n) is not None
            and src.parent(n).type in ("variable_declarator", "pair"))
    )  # fmt: skip
    return list(owned(src, f.fn, units))


def _ident(src: JsSource, node: JsNode | None, names: set[str]) -> str | None:
    while node is not None and node.type in ("parenthesized_expression", "non_null_expression", "as_expression"):
        node = src.named_children(node)[0] if src.named_children(node) else None
    if node is not None and node.type == "identifier" and src.text(node, 200) in names:
        return src.text(node, 200)
    return None


def _checked(src: JsSource, nodes: list[JsNode], names: set[str]) -> set[str]:
    """Parameters the function checks: ``typeof p``, ``Array.isArray(p)``, ``p instanceof X``,
    ``p == null``, ``Number.isInteger(p)``..."""
    out: set[str] = set()
    for n in nodes:
        if n.type == "unary_expression":
            op = src.field(n, "operator")
            if op is not None and op.type == "typeof" and (p := _ident(src, src.field(n, "argument"), names)):
                out.add(p)
        elif n.type == "binary_expression":
            op = src.field(n, "operator")
            left, right = src.field(n, "left"), src.field(n, "right")
            if op is None or left is None or right is None:
                continue
            if op.type == "instanceof" and (p := _ident(src, left, names)):
                out.add(p)
            elif op.type in ("==", "===", "!=", "!=="):
                for a, b in ((left, right), (right, left)):
                    if (p := _ident(src, a, names)) and src.text(b, 20) in ("null", "undefined"):
                        out.add(p)
        elif n.type == "call_expression":
            callee, args = src.field(n, "function"), src.field(n, "arguments")
            prop = src.field(callee, "property") if callee is not None and callee.type == "member_expression" else None
            if prop is not None and src.text(prop) in CHECKS and args is not None:
                for a in src.named_children(args):
                    if p := _ident(src, a, names):
                        out.add(p)
    return out


def _scan(f: _Fn) -> list[Target]:
    src = f.src
    names = {p.name for p in f.params if _probeable(p)}
    nodes = _own_nodes(f)
    checked = _checked(src, nodes, names)
    fs_names = {local for imp in imports(src) if imp.module in FS_MODULES for local, _ in imp.names}
    found: dict[tuple[str, str, str | None], Target] = {}
    qual = f"{f.file}:{f.fn.qualname}"

    def add(kind: str, sink: str, node: JsNode, param: str | None, detail: str) -> None:
        key = (kind, sink, param)
        if key not in found:
            found[key] = Target(kind, f.file, node.line, qual, sink, detail, param=param,  # type: ignore[arg-type]
                                guarded=param in checked)  # fmt: skip

    nullable: dict[str, tuple[JsNode, str | None, str]] = {}
    for n in nodes:
        t = n.type
        if t == "subscript_expression" and (p := _ident(src, src.field(n, "index"), names)):
            add("unvalidated_input", "indexing", n, p, f"{p} indexes {src.text(n, 60)} unchecked")
        elif t == "binary_expression":
            op = src.field(n, "operator")
            if op is not None and op.type in ARITHMETIC:
                for side in ("left", "right"):
                    if p := _ident(src, src.field(n, side), names):
                        add("unvalidated_input", "arithmetic", n, p, f"{p} in arithmetic {src.text(n, 60)}")
        elif t in ("new_expression", "call_expression"):
            callee = src.field(n, "constructor") if t == "new_expression" else src.field(n, "function")
            args = src.field(n, "arguments")
            arg_list = src.named_children(args) if args is not None else []
            ctext = src.text(callee, 200) if callee is not None else ""
            prop = src.field(callee, "property") if callee is not None and callee.type == "member_expression" else None
            pname = src.text(prop, 100) if prop is not None else ctext
            obj = src.field(callee, "object") if prop is not None else None
            if ctext == "Array" or pname in ("repeat", "padStart", "padEnd"):
                for a in arg_list[:1]:
                    if p := _ident(src, a, names):
                        add("unvalidated_input", "allocation", n, p, f"{p} sizes {src.text(n, 60)}")
            if pname in FS_CALLS and (ctext.split(".")[0] in fs_names or ctext in fs_names):
                for a in arg_list[:2]:
                    inner = [a] + [x for x in src.subtree(a) if x.type == "identifier"]
                    for x in inner:
                        if p := _ident(src, x, names):
                            add("unvalidated_input", "path", n, p, f"{p} reaches the file path of {ctext}()")
                            break
            if pname in NULLABLE_CALLS and prop is not None:
                drivers = [p for a in arg_list for x in src.subtree(a) if (p := _ident(src, x, names))]
                if pname in ("match", "exec"):
                    holder = obj if pname == "match" else (arg_list[0] if arg_list else None)
                    drivers = ([p] if (p := _ident(src, holder, names)) else []) + drivers
                parent = src.parent(n)
                if parent is not None and parent.type in ("member_expression", "subscript_expression") \
                        and n.field == "object" and src.field(parent, "optional_chain") is None:
                    add("missing_null_check", pname, n, drivers[0] if drivers else None,
                        f"the result of .{pname}() is used directly: {src.text(parent, 60)}")
                elif parent is not None and parent.type == "variable_declarator":
                    var = src.field(parent, "name")
                    if var is not None and var.type == "identifier":
                        nullable[src.text(var)] = (n, drivers[0] if drivers else None, pname)
        elif (t == "member_expression" and (p := _ident(src, src.field(n, "object"), names))
              and src.field(n, "optional_chain") is None):
            prop = src.field(n, "property")
            add("weak_type", "attribute", n, p, f"{p}.{src.text(prop, 40) if prop else '?'} without a type check")
    if nullable:
        checked_vars = _checked(src, nodes, set(nullable)) | _null_tested(src, nodes, set(nullable))
        for n in nodes:
            if n.type in ("member_expression", "subscript_expression") and src.field(n, "optional_chain") is None:
                var = _ident(src, src.field(n, "object"), set(nullable))
                if var and var not in checked_vars:
                    call, p, how = nullable[var]
                    add("missing_null_check", how, n, p,
                        f"{var} = {src.text(call, 50)} may be null/undefined, used as {src.text(n, 40)} unchecked")
    return list(found.values())


def _null_tested(src: JsSource, nodes: list[JsNode], names: set[str]) -> set[str]:
    """Variables tested for truthiness: ``!v``, ``if (v)``, ``v && ...``, ``v || ...``, ``v ?? ...``, ``v ? a : b``."""
    out: set[str] = set()
    for n in nodes:
        if n.type == "unary_expression" and (p := _ident(src, src.field(n, "argument"), names)):
            out.add(p)
        elif n.type == "binary_expression":
            op = src.field(n, "operator")
            if op is not None and op.type in ("&&", "||", "??") and (p := _ident(src, src.field(n, "left"), names)):
                out.add(p)
        elif n.type in ("parenthesized_expression",) and (p := _ident(src, n, names)):
            out.add(p)  # if (v) / while (v)
        elif n.type == "ternary_expression" and (p := _ident(src, src.field(n, "condition"), names)):
            out.add(p)
    return out


# --- probes -------------------------------------------------------------------------------------


def _calls(f: _Fn) -> list[tuple[str, list[JsNode]]]:
    src = f.src
    out = []
    for n in _own_nodes(f):
        if n.type == "call_expression":
            callee, args = src.field(n, "function"), src.field(n, "arguments")
            if callee is not None and callee.type == "identifier" and args is not None:
                out.append((src.text(callee, 200), src.named_children(args)))
    return out


def _member_calls(fns: list[_Fn], f: _Fn) -> list[tuple[_Fn, list[JsNode]]]:
    """Calls ``x.m(...)`` where ``x`` was made by a factory of the same file (``const core =
    createCore(o)`` in ``f`` or around it) and ``m`` is a method of the object it returns: a
    wrapper's ``hit: (key) => settle(core.hit(key))`` reaches ``createCore``'s ``hit``."""
    src = f.src
    out = []
    for n in _own_nodes(f):
        callee = src.field(n, "function") if n.type == "call_expression" else None
        args = src.field(n, "arguments") if callee is not None else None
        if callee is None or args is None or callee.type != "member_expression":
            continue
        obj, prop = src.field(callee, "object"), src.field(callee, "property")
        if obj is None or prop is None or obj.type != "identifier":
            continue
        made = _made_by(fns, f, src.text(obj, 200))
        method = _methods(fns, made).get(src.text(prop, 200)) if made is not None else None
        if method is not None:
            out.append((method, src.named_children(args)))
    return out


def _probes(fns: list[_Fn], entries: list[tuple[Entry, _Fn]], targets: list[Target]
            ) -> tuple[list[Probe], list[tuple[Target, str]]]:  # fmt: skip
    by_fn: dict[str, list[Target]] = {}
    for t in targets:
        by_fn.setdefault(t.function, []).append(t)
    named: dict[tuple[str, str], _Fn] = {}
    for f in fns:
        if f.fn.name:
            named.setdefault((f.file, f.fn.name), f)
    candidates: dict[Target, list[tuple[int, Probe]]] = {t: [] for t in targets}
    for entry, f in entries:
        own = {p.name for p in entry.params if _probeable(p)}
        reached: list[tuple[_Fn, dict[str, str], int]] = [(f, {p: p for p in own}, 0)]
        for callee, args in [*_calls(f), *_member_calls(fns, f)]:
            g = callee if isinstance(callee, _Fn) else named.get((f.file, callee))
            if g is None or g is f:
                continue
            mapping = {}
            for gp, a in zip(g.params, args, strict=False):
                if a.type == "identifier" and f.src.text(a) in own and _probeable(gp):
                    mapping[gp.name] = f.src.text(a)
            if mapping:
                reached.append((g, mapping, 1))
        for g, mapping, depth in reached:
            for t in by_fn.get(f"{g.file}:{g.fn.qualname}", []):
                if t.param is not None and t.param in mapping:
                    candidates[t].append((depth, Probe(t, entry, mapping[t.param])))
    rank = {"critical": 0, "high": 1, "medium": 2, "low": 3}
    probes: list[Probe] = []
    skipped: list[tuple[Target, str]] = []
    seen: set[tuple[str, str, str | None]] = set()
    for t in sorted(targets, key=lambda t: (rank[t.severity], t.file, t.line)):
        found = sorted(candidates[t], key=lambda c: (c[0], c[1].entry.module, c[1].entry.qualname))
        if not found:
            why = ("not driven by a parameter: no input of the exported API controls it" if t.param is None
                   else "no exported entry reaches it with a value a test can choose")  # fmt: skip
            skipped.append((t, why))
            continue
        for _, probe in found[:MAX_ENTRIES_PER_TARGET]:
            key = (probe.entry.module, probe.entry.qualname, probe.param)
            if key not in seen:
                seen.add(key)
                probes.append(probe)
    return probes, skipped
