"""Dangerous calls reached by computed names, in Python (issue 37). Pure: source text in, findings out.

Semgrep and Bandit see ``eval``, ``os.system`` and ``pickle.loads`` by name; a submission can reach
the same functions without writing those names: ``getattr(builtins, "ev" + "al")``,
``__import__("so"[::-1]).system``, ``globals()["__builtins__"]["exec"]``, ``vars(os)["system"]``,
``importlib.import_module("pickle").loads``, ``e = eval``. The resolver follows names through imports
and assignments (``_scopes``), folds constant strings (``_fold``), and follows ``getattr``,
``__import__``, ``importlib.import_module``, ``globals()``/``locals()``/``vars()``/``__dict__``/
``__builtins__``/``__globals__`` subscripts, ``sys.modules``, ``operator.attrgetter`` and
``functools.partial``. Each sink so reached is a finding with the CWE (so the severity) of the plain
call; a lookup on builtins, ``os``, ``subprocess``, ``pickle``, … whose name is not constant is a
finding of its own. A plain call (``eval(x)``, ``os.system(x)``) is left to the scanners that see it.
See docs/security.md ("Computed names").
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterable
from dataclasses import dataclass

from bouts._pyast import parse as parse_python
from bouts.judges.security._dynamic_js import javascript_findings
from bouts.judges.security._findings import JS_SUFFIXES, ToolFinding, normalise
from bouts.judges.security._fold import UNKNOWN, fold
from bouts.judges.security._scopes import Import, Scope, bind
from bouts.judges.security._severity import severity_for

RULE_SINK = "bouts.python.computed-name-call"
RULE_LOOKUP = "bouts.python.dynamic-lookup"
RULE_IMPORT = "bouts.python.dynamic-import"
MAX_VALUES = 16
"""Values one expression may stand for (``e = print; e = eval``); past it the rest are unknown."""

SINKS: dict[str, tuple[int, str]] = {
    **dict.fromkeys(("builtins.eval", "builtins.exec"), (95, "runs a string as Python code")),
    **dict.fromkeys(("os.system", "os.popen", "posix.system", "nt.system", "subprocess.getoutput",
                     "subprocess.getstatusoutput", "pty.spawn"), (78, "runs a shell command")),
    **{f"{m}.{f}": (502, "deserialises untrusted data (runs code from the data)")
       for m in ("pickle", "_pickle", "cPickle", "dill", "marshal", "cloudpickle")
       for f in ("loads", "load", "Unpickler")},
    "shelve.open": (502, "deserialises untrusted data (runs code from the data)"),
    "jsonpickle.decode": (502, "deserialises untrusted data (runs code from the data)"),
}
"""What a call of each function is, as the scanners file the plain call (CWE → severity)."""
SHELL_SINKS = frozenset(f"subprocess.{f}" for f in ("Popen", "run", "call", "check_call", "check_output"))
"""Command injection only with a true ``shell`` (CWE-78, as Bandit's B602 files the plain call)."""
GUARDED_MODULES = frozenset({"builtins", "os", "posix", "nt", "subprocess", "pickle", "_pickle", "cPickle", "dill",
                             "marshal", "shelve", "pty", "importlib", "ctypes", "code", "runpy", "sys"})
"""A lookup on one of these whose name is not constant is a finding (CWE-470, high)."""
BUILTIN_NAMES = frozenset(dir(__import__("builtins")))


@dataclass(frozen=True)
class Ref:
    """A known object: ``builtins.eval``, ``os``, ``globals`` (a module's namespace), ``@attrgetter:x``."""

    path: str
    computed: bool
    """Reached other than by an import or an unshadowed builtin name: the scanners do not see it."""
    alias: bool = False
    """Read back from a name an assignment bound: the finding is where the value was taken, not here."""


@dataclass(frozen=True)
class Const:
    value: object


class _Opaque:
    def __repr__(self) -> str:
        return "OPAQUE"


OPAQUE = _Opaque()
Value = Ref | Const | _Opaque


@dataclass(frozen=True)
class Hit:
    rule: str
    cwe: int
    line: int
    end_line: int
    message: str


class Resolver:
    """The values of a module's expressions, and the findings among them."""

    def __init__(self, module: ast.Module) -> None:
        self.root, self.of = bind(module)
        self._memo: dict[tuple[int, str], frozenset[Value]] = {}
        self._partial: dict[tuple[int, str], set[Value]] = {}
        self.hits: dict[tuple[str, int, str], Hit] = {}
        self._refs: dict[tuple[int, int], frozenset[Value]] = {}

    # -- values ---------------------------------------------------------------------------------

    def scope_of(self, node: ast.AST, default: Scope | None = None) -> Scope:
        return self.of.get(node) or default or self.root

    def name(self, ident: str, scope: Scope) -> frozenset[Value]:
        found = scope.lookup(ident)
        if found is None:
            if ident == "__builtins__":
                return frozenset({Ref("builtins", True)})
            return frozenset({Ref(f"builtins.{ident}", False)}) if ident in BUILTIN_NAMES else frozenset({OPAQUE})
        where, bindings = found
        key = (id(where), ident)
        if key in self._memo:
            return self._memo[key]
        if key in self._partial:  # a binding that refers to its own name (n = n + "al"): what is known so far
            return frozenset(self._partial[key]) or frozenset({OPAQUE})
        acc: set[Value] = set()
        self._partial[key] = acc
        for binding in bindings:
            if binding is None:
                acc.add(OPAQUE)
            elif isinstance(binding, Import):
                path = binding.path.lstrip(".")
                # Bandit resolves ``from os import system`` but not ``from builtins import eval as e``.
                acc.add(Ref(path, path.startswith(("builtins.", "__builtin__."))))
            else:
                acc.update(self._alias(self.values(binding, self.scope_of(binding, where))))
            if len(acc) > MAX_VALUES:
                break
        del self._partial[key]
        result = _capped(acc)
        self._memo[key] = result
        return result

    @staticmethod
    def _alias(values: Iterable[Value]) -> set[Value]:
        """A value bound to a name and read back is reached through an alias: computed."""
        return {Ref(v.path, True, alias=True) if isinstance(v, Ref) else v for v in values}

    def consts(self, node: ast.AST, scope: Scope) -> tuple[list[object], bool]:
        """(the constant values ``node`` may have, whether it may also have others)."""
        names = sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)})
        choices: list[list[object]] = []
        unknown = False
        for ident in names:
            vals = self.name(ident, scope)
            consts = [v.value for v in vals if isinstance(v, Const)]
            if OPAQUE in vals and consts:
                unknown = True  # some of its values are known, others not
            choices.append(consts or [UNKNOWN])  # a function or module name (chr, base64): _fold knows it
        out: list[object] = []
        for combo in itertools.islice(itertools.product(*choices), MAX_VALUES):
            table = dict(zip(names, combo, strict=True))
            value = fold(node, lambda n, table=table: table.get(n, UNKNOWN))  # type: ignore[misc]
            if value is UNKNOWN:
                unknown = True
            elif value not in out:
                out.append(value)
        return out, unknown or not out

    def values(self, node: ast.AST, scope: Scope) -> frozenset[Value]:
        if isinstance(node, ast.Name):
            return self.name(node.id, scope)
        refs = self.refs(node, scope)
        if refs:
            return refs
        consts, unknown = self.consts(node, scope)
        out: set[Value] = {Const(h) for c in consts if (h := _hashable(c)) is not None}
        if unknown or len(out) < len(consts):
            out.add(OPAQUE)
        return _capped(out)

    def refs(self, node: ast.AST, scope: Scope) -> frozenset[Value]:
        """The known objects ``node`` may be (empty: none known)."""
        key = (id(node), id(scope))
        if key not in self._refs:
            self._refs[key] = self._refs_uncached(node, scope)
        return self._refs[key]

    def _refs_uncached(self, node: ast.AST, scope: Scope) -> frozenset[Value]:
        out: set[Value] = set()
        if isinstance(node, ast.Name):
            out = {v for v in self.name(node.id, scope) if isinstance(v, Ref)}
        elif isinstance(node, ast.Attribute) and node.attr in {"__globals__", "__builtins__"}:
            out = {self._attr(Ref("?", True), node.attr)}  # whatever it is read from: a namespace
        elif isinstance(node, ast.Attribute):
            for base in self._refs_of(node.value, scope):
                out.add(self._attr(base, node.attr))
        elif isinstance(node, ast.Subscript):
            out = self._subscript(node, scope)
        elif isinstance(node, ast.Call):
            out = self._call(node, scope)
        elif isinstance(node, ast.IfExp | ast.BoolOp):
            parts = (node.body, node.orelse) if isinstance(node, ast.IfExp) else node.values
            out = {v for p in parts for v in self.refs(p, scope)}
        elif isinstance(node, ast.NamedExpr | ast.Starred):
            out = set(self.refs(node.value, scope))
        return _capped(out) - {OPAQUE}

    def _refs_of(self, node: ast.AST, scope: Scope) -> list[Ref]:
        return [v for v in self.refs(node, scope) if isinstance(v, Ref)]

    @staticmethod
    def _attr(base: Ref, attr: str) -> Ref:
        if attr == "__dict__":
            return Ref(f"{base.path}.__dict__", True)
        if attr == "__globals__":
            return Ref("globals", True)
        if attr == "__builtins__":
            return Ref("builtins", True)
        if attr == "__self__" and base.path.startswith("builtins."):
            return Ref("builtins", True)
        if attr == "__call__":
            return Ref(base.path, base.computed)
        # Only the bare name ``eval`` is what the scanners see; ``builtins.eval`` is already computed.
        return Ref(f"{base.path}.{attr}", base.computed or base.path in ("builtins", "__builtin__"))

    def _member(self, base: Ref, key: object, scope: Scope) -> set[Value]:
        """``base[key]`` / ``base.get(key)`` for a namespace-like ``base``."""
        if not isinstance(key, str):
            return set()
        if base.path == "globals":
            if key == "__builtins__":
                return {Ref("builtins", True)}
            bound = self.name(key, self.root)
            return self._alias(v for v in bound if isinstance(v, Ref) and v.path != f"builtins.{key}")
        if base.path in {"builtins", "builtins.__dict__"}:
            return {Ref(f"builtins.{key}", True)}
        if base.path.endswith(".__dict__"):
            return {Ref(f"{base.path.removesuffix('.__dict__')}.{key}", True)}
        if base.path == "sys.modules":
            return {Ref(key, True)}
        return set()

    def _namespace(self, base: Ref) -> bool:
        return base.path in {"globals", "builtins", "sys.modules"} or base.path.endswith(".__dict__")

    def _subscript(self, node: ast.Subscript, scope: Scope) -> set[Value]:
        out: set[Value] = set()
        bases = [b for b in self._refs_of(node.value, scope) if self._namespace(b)]
        if not bases:
            return out
        keys, unknown = self.consts(node.slice, scope)
        for base in bases:
            for key in keys:
                out |= self._member(base, key, scope)
            if unknown:
                self._nonconstant(node, base, f"{_show(node.value)}[{_show(node.slice)}]")
        return out

    def _call(self, node: ast.Call, scope: Scope) -> set[Value]:
        out: set[Value] = set()
        for func in self._refs_of(node.func, scope):
            path = func.path
            args = node.args
            if path == "builtins.getattr" and len(args) >= 2:
                names, unknown = self.consts(args[1], scope)
                for base in self._refs_of(args[0], scope):
                    out |= {self._attr(Ref(base.path, True), n) for n in names if isinstance(n, str)}
                    if unknown:
                        self._nonconstant(node, base, f"getattr({_show(args[0])}, {_show(args[1])})")
            elif path in {"builtins.__import__", "importlib.import_module", "importlib.__import__"} and args:
                names, unknown = self.consts(args[0], scope)
                whole = (path.endswith("import_module") or len(args) >= 4
                         or any(k.arg == "fromlist" for k in node.keywords))
                out |= {Ref(n if whole else n.split(".")[0], True) for n in names if isinstance(n, str) and n}
                if unknown:
                    self._hit(RULE_IMPORT, 829, node, f"a module imported by a computed name ({_show(node)})")
            elif path in {"builtins.globals", "builtins.locals"} or (path == "builtins.vars" and not args):
                out.add(Ref("globals", True))
            elif path == "builtins.vars" and args:
                out |= {Ref(f"{b.path}.__dict__", True) for b in self._refs_of(args[0], scope)}
            elif path.endswith((".get", ".__getitem__", ".__getattribute__", ".pop", ".setdefault")) and args:
                base = Ref(path.rsplit(".", 1)[0], True)
                keys, unknown = self.consts(args[0], scope)
                if path.endswith(".__getattribute__"):
                    out |= {self._attr(base, k) for k in keys if isinstance(k, str)}
                elif self._namespace(base):
                    for key in keys:
                        out |= self._member(base, key, scope)
                    if unknown:
                        self._nonconstant(node, base, _show(node))
            elif path in {"builtins.object.__getattribute__", "builtins.type.__getattribute__"} and len(args) >= 2:
                names, _ = self.consts(args[1], scope)
                for base in self._refs_of(args[0], scope):
                    out |= {self._attr(Ref(base.path, True), n) for n in names if isinstance(n, str)}
            elif path == "operator.attrgetter" and args:
                names, _ = self.consts(args[0], scope)
                out |= {Ref(f"@attrgetter:{n}", True) for n in names if isinstance(n, str)}
            elif path.startswith("@attrgetter:") and args:
                for base in self._refs_of(args[0], scope):
                    ref = Ref(base.path, True)
                    for part in path.removeprefix("@attrgetter:").split("."):
                        ref = self._attr(ref, part)
                    out.add(ref)
            elif path == "functools.partial" and args:
                out |= {Ref(r.path, True) for r in self._refs_of(args[0], scope)}
        return out

    # -- findings -------------------------------------------------------------------------------

    def _hit(self, rule: str, cwe: int, node: ast.AST, message: str) -> None:
        line = getattr(node, "lineno", 1)
        key = (rule, line, str(cwe))
        self.hits.setdefault(key, Hit(rule, cwe, line, getattr(node, "end_lineno", line) or line, message))

    def _nonconstant(self, node: ast.AST, base: Ref, shown: str) -> None:
        module = base.path.split(".")[0]
        if base.path == "globals":
            self._hit(RULE_LOOKUP, 914, node, f"a module-level name looked up by a computed key ({shown})")
        elif base.path == "sys.modules":
            self._hit(RULE_IMPORT, 829, node, f"a module looked up by a computed name ({shown})")
        elif module in GUARDED_MODULES:
            self._hit(RULE_LOOKUP, 470, node,
                      f"a function of {module} looked up by a name that is not constant ({shown}): "
                      "whatever it resolves to at run time (eval, system, loads) is reached unseen")

    def scan(self) -> list[Hit]:
        parents: dict[ast.AST, ast.AST] = {}
        module = self.root.node
        for parent in ast.walk(module):
            for child in ast.iter_child_nodes(parent):
                parents[child] = parent
        for node in ast.walk(module):
            if not isinstance(node, ast.expr):
                continue
            try:
                self._scan_node(node, parents)
            except RecursionError:
                # Withholding never pays: an expression nested past what the resolver follows is a
                # finding, not a file left unread.
                self._hit(RULE_LOOKUP, 470, node, "an expression nested too deeply for the resolver to follow")
        return sorted(self.hits.values(), key=lambda h: (h.line, h.rule, h.message))

    def _scan_node(self, node: ast.expr, parents: dict[ast.AST, ast.AST]) -> None:
        scope = self.scope_of(node)
        parent = parents.get(node)
        called = isinstance(parent, ast.Call) and parent.func is node
        if isinstance(node, ast.Call):
            self._shell(node, scope)
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            return
        refs = self._refs_of(node, scope)
        for ref in refs:
            if ref.path not in SINKS:
                continue
            if isinstance(node, ast.Name) and ref.alias:
                continue  # an alias read back: its origin (the assignment's value) is the finding
            if not ref.computed and called:
                continue  # the plain call: Semgrep and Bandit report it
            cwe, what = SINKS[ref.path]
            how = "taken as a value" if not ref.computed else "reached by a computed name"
            self._hit(RULE_SINK, cwe, node, f"{ref.path.removeprefix('builtins.')} ({what}) {how}: {_show(node)}")

    def _shell(self, node: ast.Call, scope: Scope) -> None:
        funcs = [r for r in self._refs_of(node.func, scope) if r.path in SHELL_SINKS]
        if not funcs:
            return
        shell: list[ast.expr] = [k.value for k in node.keywords if k.arg == "shell"]
        literal = all(isinstance(s, ast.Constant) and s.value is True for s in shell)  # what Bandit's B602 sees
        for k in node.keywords:
            if k.arg is None:
                unpacked = [v for d in self._dicts(k.value, scope)
                            for key, v in self._items(d, scope) if key == "shell"]
                shell += unpacked
                literal = literal and not unpacked
        truthy = any(any(bool(c) for c in self.consts(s, scope)[0]) for s in shell)
        if truthy and (any(f.computed for f in funcs) or not literal):
            self._hit(RULE_SINK, 78, node, f"{funcs[0].path}(..., shell=<true>) reached by a computed name or "
                                           f"value: runs a shell command ({_show(node)})")

    def _dicts(self, node: ast.expr, scope: Scope) -> list[ast.expr]:
        """The dict displays a ``**`` argument may be: itself, or what its name is bound to."""
        if _is_dict(node):
            return [node]
        if isinstance(node, ast.Name):
            found = scope.lookup(node.id)
            return [b for b in (found[1] if found else []) if isinstance(b, ast.expr) and _is_dict(b)]
        return []

    def _items(self, node: ast.expr, scope: Scope) -> list[tuple[object, ast.expr]]:
        if isinstance(node, ast.Dict):
            return [(key, v) for k, v in zip(node.keys, node.values, strict=True) if k is not None
                    for key in self.consts(k, scope)[0]]
        return [(k.arg, k.value) for k in node.keywords if k.arg]  # type: ignore[attr-defined]


def _is_dict(node: ast.expr) -> bool:
    return isinstance(node, ast.Dict) or (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                                          and node.func.id == "dict")


def _hashable(value: object) -> object:
    """A folded value as a set member (lists as tuples); None for what cannot be one."""
    if isinstance(value, list | tuple):
        items = [_hashable(v) for v in value]
        return None if any(i is None for i in items) else tuple(items)
    return value if isinstance(value, str | bytes | int | float) else None


def _capped(values: Iterable[Value]) -> frozenset[Value]:
    out = set(itertools.islice(values, MAX_VALUES + 1))
    if len(out) > MAX_VALUES:
        out = set(itertools.islice(out, MAX_VALUES)) | {OPAQUE}
    return frozenset(out)


def _show(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 80 else text[:77] + "..."


def python_findings(rel: str, text: str) -> list[ToolFinding]:
    """The computed-name findings of one Python file (none for a file that does not parse, the
    scanners note it; nor for one nested past ``bouts._pyast.MAX_DEPTH``, which the integrity judge
    reports as code hidden from review)."""
    try:
        module = parse_python(text, rel)
    except (SyntaxError, ValueError):
        return []  # nested past what the engine reads: the integrity judge's unreviewed-code line
    try:
        hits = Resolver(module).scan()
    except RecursionError:
        return []
    lines = text.splitlines()
    return [
        ToolFinding(
            tool="bouts", rule=f"bouts:{h.rule}", cwe=h.cwe, severity=severity_for(h.cwe, "high"), file=rel,
            line=h.line, end_line=h.end_line, message=h.message,
            snippet=normalise(lines[h.line - 1], rel) if 0 < h.line <= len(lines) else "",
        )
        for h in hits
    ]


RESOLVER_VERSION = "computed-names/2"
"""Part of the scan policy (``_scanners.SCANNER_POLICY``): a change of the resolver re-scans every file."""
PYTHON_SUFFIXES = frozenset({".py", ".pyw", ".pyi"})


def computed_findings(rel: str, data: bytes) -> list[ToolFinding]:
    """The resolver's findings of one file, by its suffix (Python, JavaScript/TypeScript; others have none)."""
    suffix = "." + rel.rsplit(".", 1)[-1] if "." in rel.rsplit("/", 1)[-1] else ""
    if suffix in PYTHON_SUFFIXES:
        return python_findings(rel, data.decode("utf-8", errors="replace"))
    if suffix in JS_SUFFIXES:
        return javascript_findings(rel, data.decode("utf-8", errors="replace"))
    return []
