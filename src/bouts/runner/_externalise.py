"""Externalised assertions: the host rewrites test files so that verdicts are decided outside. Pure.

Every assertion of a test file (``assert``, ``pytest.raises``, ``self.assert*``, ``bouts_expect``)
becomes a *site*. Its operands are classed (``_taint``) as literal (``L``: the expected value,
kept by the host), the test's own computation (``U``: evaluated only in the reference's golden
run, never in the graded one) or the submission's behaviour (``T``: observed). Two texts come out
of one source:

- the **external** text, run against the submission: a recognised assertion becomes
  ``_bouts.obs(site, lambda: T1, ...)`` — only what the submission produced, no expected value,
  no comparison; ``with pytest.raises(X):`` becomes ``with _bouts.block(site):`` (what was raised,
  if anything, is recorded and the test goes on);
- the **golden** text, run against the reference: the original assertion, intact, with every
  non-literal operand wrapped in ``_bouts.atom(slot, ...)`` so its value is recorded.

In the external text, a plain call of the submission in a test's body (``led.ship("A", 3)``,
``rid = led.reserve(...)``) is a ``plain`` site observed the same way as a checked call, so the
callee cannot tell from its frames whether it must succeed, is compared or is expected to raise;
and what only computes expected values (statements, module-level tables and helpers, the values
of literal tables whose keys are inputs) is dropped (:class:`_Purity`, :meth:`_Rewriter.finish`):
expected values exist only in the golden run.

The host (``_decide``) then passes a test only if the graded run executed exactly the reference's
sequence of sites, each observation holding (literal comparisons evaluated on the host;
operands paired with the reference's values where the expected side is computed).

What cannot be externalised stays in the file and is *counted*: an assertion of no recognised
shape keeps its comparison in place (its submission-derived parts are still observed and paired
with the reference's), and an expected value that arrives through ``@pytest.mark.parametrize``
is present in the decorator. See docs/sandbox.md, "Decided outside".
"""

from __future__ import annotations

import ast
import copy
import json
import zlib
from dataclasses import dataclass, field
from typing import Literal

from bouts import _pyast
from bouts.runner._taint import FunctionTaint, ModuleTaint

Role = Literal["L", "U", "T"]
Form = Literal[
    "cmp", "truthy", "falsy", "isinstance", "approx", "raises", "counteq", "gold", "generic", "plain", "bool"
]
VERSION = "externalise/6"
"""Changes whenever a rewrite could number or class sites differently, or observations are recorded
in another form (it keys cached golden runs). 5: each observed value is the text of its encoding.
6: ``or``, chained comparisons and ``not`` of a compound are ``bool`` sites decided on the host."""
REWRITTEN_SUITES = ("visible", "hidden", "adversarial")
"""Suites whose files are externalised; generated tests carry their own oracle (the reference)."""
OBS = "_bouts"
"""The name the rewritten files import the observation module under."""

_CMP_OPS: dict[type, str] = {
    ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge",
    ast.In: "in", ast.NotIn: "notin", ast.Is: "is", ast.IsNot: "isnot",
}  # fmt: skip
_UNITTEST: dict[str, tuple[Form, str]] = {
    "assertEqual": ("cmp", "eq"), "assertEquals": ("cmp", "eq"), "assertListEqual": ("cmp", "eq"),
    "assertDictEqual": ("cmp", "eq"), "assertTupleEqual": ("cmp", "eq"), "assertSetEqual": ("cmp", "eq"),
    "assertSequenceEqual": ("cmp", "eq"), "assertMultiLineEqual": ("cmp", "eq"),
    "assertNotEqual": ("cmp", "ne"), "assertIs": ("cmp", "is"), "assertIsNot": ("cmp", "isnot"),
    "assertIn": ("cmp", "in"), "assertNotIn": ("cmp", "notin"), "assertGreater": ("cmp", "gt"),
    "assertGreaterEqual": ("cmp", "ge"), "assertLess": ("cmp", "lt"), "assertLessEqual": ("cmp", "le"),
    "assertTrue": ("truthy", ""), "assertFalse": ("falsy", ""), "assertIsNone": ("cmp", "is"),
    "assertIsNotNone": ("cmp", "isnot"), "assertIsInstance": ("isinstance", ""),
    "assertAlmostEqual": ("approx", ""), "assertCountEqual": ("counteq", ""),
}  # fmt: skip
_RAISES = {"raises", "assertRaises", "assertRaisesRegex"}


@dataclass(frozen=True)
class Operand:
    role: Role
    value: object = None
    """The literal's value (role ``L`` only)."""


@dataclass(frozen=True)
class Site:
    """One assertion of a test file, as the host keeps it."""

    site: int
    line: int
    form: Form
    operands: tuple[Operand, ...] = ()
    op: str = ""
    types: tuple[str, ...] = ()
    """Exception or class names (``raises``, ``isinstance``), last dotted part."""
    rel: float = 0.0
    abs: float = 0.0
    match: str | None = None
    externalised: bool = True
    why: str = ""
    """Why not externalised (shown by ``bouts check``)."""
    expr: str = ""
    """A ``bool`` site's condition as JSON over operand indices (:func:`_bool_tree`): ``["or", [..]]``,
    ``["and", [..]]``, ``["not", x]``, ``["cmp", [op, ..], [i, ..]]`` (chained), ``["leaf", i]``."""

    @property
    def observed(self) -> tuple[int, ...]:
        """Operand indices the external text observes, in the order its thunks/atoms send them."""
        return tuple(i for i, o in enumerate(self.operands) if o.role == "T")


@dataclass(frozen=True)
class FilePlan:
    """A test file's two rewritten texts and its sites."""

    external: str
    golden: str
    sites: dict[int, Site] = field(default_factory=dict)
    error: str = ""

    @property
    def counts(self) -> tuple[int, int]:
        """(externalised sites, all sites): assertions only, not the plain calls observed beside them."""
        checks = [s for s in self.sites.values() if s.form != "plain"]
        return sum(1 for s in checks if s.externalised), len(checks)


def plan_file(source: str, rel: str = "<test>") -> FilePlan:
    """Rewrite one test file; a file that does not parse is left as it is (it fails to collect)."""
    try:
        tree = _pyast.parse(source, filename=rel)
    except SyntaxError as exc:
        return FilePlan(source, source, error=f"not rewritten: {exc.msg}")
    rw = _Rewriter(ModuleTaint(tree), site_base(rel), _Purity(tree))
    rw.helpers = _observed_helpers(tree)
    rw.expected_args = _expected_arguments(tree, rw.mt)
    ext, gold = rw.stmts(tree.body, None)
    ext = rw.finish(tree.body, ext)
    return FilePlan(_module(tree, ext), _module(tree, gold), dict(rw.sites))


def _module(tree: ast.Module, body: list[ast.stmt]) -> str:
    at = 0
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        at = 1  # the docstring stays first
    while at < len(body) and isinstance(body[at], ast.ImportFrom) and body[at].module == "__future__":  # type: ignore[attr-defined]
        at += 1
    header = ast.Import(names=[ast.alias(name="_bouts_driver.observe", asname=OBS)])
    module = ast.Module(body=[*body[:at], header, *body[at:]], type_ignores=[])
    return ast.unparse(ast.fix_missing_locations(module)) + "\n"


def _call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=ast.Attribute(value=ast.Name(OBS, ast.Load()), attr=name, ctx=ast.Load()),
                    args=list(args), keywords=[])  # fmt: skip


def _lit(node: ast.AST) -> tuple[bool, object]:
    try:
        return True, _pyast.literal_value(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return False, None


def _func_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _type_names(node: ast.expr) -> tuple[str, ...] | None:
    if isinstance(node, ast.Tuple):
        out: list[str] = []
        for elt in node.elts:
            part = _type_names(elt)
            if part is None:
                return None
            out += part
        return tuple(out)
    name = _func_name(node)
    return (name,) if name and isinstance(node, ast.Name | ast.Attribute) else None


def _parametrized(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    names: set[str] = set()
    for dec in func.decorator_list:
        if isinstance(dec, ast.Call) and _func_name(dec.func) == "parametrize" and dec.args:
            ok, value = _lit(dec.args[0])
            if ok and isinstance(value, str):
                names |= {n.strip() for n in value.split(",") if n.strip()}
            elif ok and isinstance(value, list | tuple):
                names |= {str(n) for n in value}
    return names


_UNWRAPPABLE = (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)


def site_base(rel: str) -> int:
    """The first site id of a file. Ids are unique across a run's files (a test may call a helper of
    another test file, whose assertions then report in this test) and the same in every run."""
    return (zlib.crc32(rel.encode()) % 1_000_000) * 1_000_000


class _Rewriter:
    def __init__(self, module: ModuleTaint, base: int = 0, purity: _Purity | None = None) -> None:
        self.mt = module
        self.base = base
        self.purity = purity or _Purity(ast.Module(body=[], type_ignores=[]))
        self.sites: dict[int, Site] = {}
        self.params: set[str] = set()
        self.removed: set[str] = set()
        """Names read by expected-side operands that the external text no longer evaluates."""
        self.expected_names: dict[int, set[str]] = {}
        """Per site, the names its expected-side operands read (checked against the external text)."""
        self.functions: list[tuple[ast.stmt, set[str], range, set[str], set[str]]] = []
        """Per rewritten function: its external node, the names it binds, its sites, the tables it
        blanked and the loop targets so cleared (what :meth:`finish` checks)."""
        self.inputs: set[str] = set()
        """Names handed to the submission (or iterated to make what is): inputs, not expectations."""
        self.helpers: set[str] = set()
        """Module-level helpers whose plain calls are observed too (:func:`_observed_helpers`)."""
        self.module_functions: list[tuple[ast.stmt, ast.stmt, set[str], range]] = []
        """Per module-level function: its external and golden nodes, its parametrized names and sites."""
        self.param_leaks: dict[int, set[str]] = {}
        """Per site marked for a parametrized expected value, the parametrized names it reads."""
        self.expected_args: dict[str, set[str]] = {}
        """Per module-level helper, the parameters that carry only expected values (``_expected_arguments``)."""
        self.helper_params: set[str] = set()
        """The parameters of the module-level helper being rewritten (none in a test)."""
        self.in_class = False
        self.wrap = False
        """Whether a plain call of the submission here is observed like an assertion (a test's own
        body, outside ``try``/``with``: there an exception must propagate as it would)."""

    # -- statements ------------------------------------------------------------------------------

    def stmts(self, stmts: list[ast.stmt], ft: FunctionTaint | None) -> tuple[list[ast.stmt], list[ast.stmt]]:
        ext: list[ast.stmt] = []
        gold: list[ast.stmt] = []
        for st in stmts:
            e, g = self.stmt(st, ft)
            ext += e
            gold += g
        return ext, gold

    def stmt(self, st: ast.stmt, ft: FunctionTaint | None) -> tuple[list[ast.stmt], list[ast.stmt]]:
        if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef):
            params = _parametrized(st)
            expected_args = self.expected_args.get(st.name, set()) if ft is None and not self.in_class else set()
            inner = FunctionTaint(self.mt, st, params | expected_args, ft.local if ft else set())
            saved, self.params = self.params, (self.params | params)
            removed, self.removed = self.removed, set()
            wrap, self.wrap = (
                self.wrap,
                ft is None and (st.name.startswith("test") or (not self.in_class and st.name in self.helpers)),
            )
            first = self.base + len(self.sites)
            is_helper = ft is None and not self.in_class and not st.name.startswith("test") and not st.decorator_list
            args = (*st.args.posonlyargs, *st.args.args, *st.args.kwonlyargs)
            helper, self.helper_params = self.helper_params, ({a.arg for a in args} if is_helper else set())
            try:
                ext, gold = self._compound(st, inner)
                protected = inner.local | inner.exposed | params
                dead = self.removed - protected
                state = self.purity.local_state(st)

                def ok(node: ast.AST, dead: set[str]) -> bool:
                    return self.purity.removable(node, dead, state, inner)

                body = _prune(ext[0].body, dead, ok, protected)  # type: ignore[attr-defined]
                body, clean = _blank_tables(body, body)
                body, cleared = _blank_inline(body)
                if self.wrap and ast.get_docstring(st) is not None:
                    body = body[1:]  # a test's docstring says what it expects; the host keeps it
                ext[0].body = body or [ast.Pass()]  # type: ignore[attr-defined]
                sites = range(first, self.base + len(self.sites))
                inputs = set(inner.exposed)
                for loop in (n for n in ast.walk(st) if isinstance(n, ast.For | ast.comprehension)):
                    if _stores([ast.Expr(loop.target)]) & inner.exposed and _root(loop.iter) is not None:
                        inputs.add(_root(loop.iter))  # type: ignore[arg-type]
                    it = loop.iter
                    if isinstance(it, ast.Call) and it.args and _stores([ast.Expr(loop.target)]) & inner.exposed:
                        inputs |= {_root(a) for a in it.args if _root(a)}  # type: ignore[misc]  # enumerate(xs)
                self.inputs |= inputs
                self.functions.append((ext[0], inner.bound - params, sites, clean, cleared | inputs))
                if ft is None and not self.in_class:
                    self.module_functions.append((ext[0], gold[0], params, sites))
                return ext, gold
            finally:
                self.params, self.removed, self.wrap, self.helper_params = saved, removed, wrap, helper
        if isinstance(st, ast.ClassDef):
            in_class, self.in_class = self.in_class, True
            try:
                return self._compound(st, None)
            finally:
                self.in_class = in_class
        if ft is None:
            return [st], [st]
        if isinstance(st, ast.Assert):
            return self._assert(st, ft)
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
            done = self._call_assertion(st, st.value, ft)
            if done is not None:
                return done
        if isinstance(st, ast.Expr | ast.Assign) and self.wrap and self._plain(st.value, ft):
            return self._plain_call(st)  # type: ignore[arg-type]
        if isinstance(st, ast.With | ast.AsyncWith) and len(st.items) == 1:
            done = self._raises_block(st, ft)
            if done is not None:
                return done
        if isinstance(st, ast.With | ast.AsyncWith | ast.Try | ast.TryStar):
            wrap, self.wrap = self.wrap, False
            try:
                return self._compound(st, ft)
            finally:
                self.wrap = wrap
        return self._compound(st, ft)

    @staticmethod
    def _plain(value: ast.expr, ft: FunctionTaint) -> bool:
        """A call of the submission's (or of a helper that reaches it) made for its effect or its value."""
        return (isinstance(value, ast.Call) and ft.tainted(value.func)
                and not any(isinstance(n, _UNWRAPPABLE) for n in ast.walk(value)))  # fmt: skip

    def _plain_call(self, st: ast.Expr | ast.Assign) -> tuple[list[ast.stmt], list[ast.stmt]]:
        """``led.ship("A", 3)`` and ``rid = led.reserve("A", 2)`` go through the same observation
        as every checked call (``x = _bouts.obs(k, lambda: ...)``): from inside the callee a call that
        must succeed, one whose value is compared and one expected to raise look the same. The host
        fails the test if it raised (it would have propagated)."""
        call = st.value
        site = self._new(st, "plain", [("T", call, None)])
        out = []
        for name in ("obs", "gobs"):  # the golden run's records the same, after the call; raises propagate
            observed = _call(name, ast.Constant(site.site), ast.Lambda(args=_no_args(), body=call))
            new = ast.Expr(observed) if isinstance(st, ast.Expr) else ast.Assign(targets=st.targets, value=observed)
            out.append([ast.copy_location(new, st)])
        return out[0], out[1]

    def _compound(self, st: ast.stmt, ft: FunctionTaint | None) -> tuple[list[ast.stmt], list[ast.stmt]]:
        fields = [f for f in ("body", "orelse", "finalbody") if isinstance(getattr(st, f, None), list)]
        handlers = getattr(st, "handlers", None)
        cases = getattr(st, "cases", None)
        if not fields and not handlers and not cases:
            return [st], [st]
        ext, gold = copy.copy(st), copy.copy(st)
        for f in fields:
            e, g = self.stmts(getattr(st, f), ft)
            empty: list[ast.stmt] = [ast.Pass()] if f == "body" else []
            setattr(ext, f, e or empty)
            setattr(gold, f, g or list(empty))
        for name, items in (("handlers", handlers), ("cases", cases)):
            if items:
                pairs = []
                for item in items:
                    ie, ig = copy.copy(item), copy.copy(item)
                    ie.body, ig.body = self.stmts(item.body, ft)
                    pairs.append((ie, ig))
                setattr(ext, name, [p[0] for p in pairs])
                setattr(gold, name, [p[1] for p in pairs])
        return [ext], [gold]

    # -- the module, once every function is rewritten ----------------------------------------------

    def finish(self, original: list[ast.stmt], ext: list[ast.stmt]) -> list[ast.stmt]:
        """The external module body without the module-level definitions only expected values
        read (an ``EXPECTED`` table, a ``_model`` function the test computes expectations with),
        with literal tables blanked where loops read only their keys; then every site whose
        expected value is still computable from the external text is marked not externalised."""
        self._blank_parameters()
        used = _loads(original)
        ext = list(ext)
        while True:
            loaded = _loads(ext)
            gone = [st for st in ext if self._module_dead(st, used - loaded)]
            if not gone:
                break
            ext = [st for st in ext if all(st is not g for g in gone)]
        ext, clean = _blank_tables(ext, ext)
        module_names = _stores([st for st in ext if isinstance(st, ast.Assign | ast.AnnAssign | ast.AugAssign)])
        module_names -= clean
        for node, bound, sites, local_clean, cleared in self.functions:
            tables = local_clean | (clean - bound)
            for loop in (n for n in ast.walk(node) if isinstance(n, ast.For | ast.comprehension)):
                it = loop.iter
                base = it.func.value if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) else it
                if isinstance(base, ast.Name) and base.id in tables:
                    cleared = cleared | _stores([ast.Expr(loop.target)])
            body = node.body  # type: ignore[attr-defined]
            present = (_loads(body) | _stores(body)) & bound
            present -= (cleared - _loads(body)) | tables | self.inputs
            present |= module_names - bound - self.inputs
            for k in sites:
                left = sorted(self.expected_names.get(k, set()) & present)
                site = self.sites.get(k)
                if left and site is not None and site.externalised and site.form not in ("generic", "plain"):
                    self.sites[k] = Site(**{**site.__dict__, "externalised": False,
                                            "why": f"its expected value ({', '.join(left)}) is also computed in the "
                                                   "sandboxed text, where it feeds the inputs"})  # fmt: skip
        return ext

    def _blank_parameters(self) -> None:
        """A parametrized expected value the test's external body no longer reads is ``None`` in the
        graded text (``@parametrize("player, want", [("ann", (1, 2))])``), with ``ids=`` written into
        both texts so the test's name stays pytest's own (:func:`_blank_parametrize`). A value passed
        on to a helper stays: the helper's parameters are observed like the submission's values."""
        dead: dict[str, tuple[set[int], set[str]]] = {}
        for node, _, _, _ in self.module_functions:
            name = node.name  # type: ignore[attr-defined]
            args = node.args  # type: ignore[attr-defined]
            expected = self.expected_args.get(name, set())
            if expected and not args.vararg and not args.kwarg:
                loaded = _loads(node.body)  # type: ignore[attr-defined]
                positional = [*args.posonlyargs, *args.args]
                gone = {a.arg for a in [*positional, *args.kwonlyargs] if a.arg in expected and a.arg not in loaded}
                dead[name] = ({i for i, a in enumerate(positional) if a.arg in gone}, gone)
        for node, gold, params, sites in self.module_functions:
            if dead:
                node.body = [_NoneForDead(dead).visit(copy.deepcopy(st)) for st in node.body]  # type: ignore[attr-defined]
            body = node.body  # type: ignore[attr-defined]
            if not params:
                continue
            loaded = _loads(body)
            blanked: set[str] = set()
            ext_decs, gold_decs = [], []
            for dec in node.decorator_list:  # type: ignore[attr-defined]
                done = _blank_parametrize(dec, loaded)
                if done is None:
                    ext_decs.append(dec)
                    gold_decs.append(dec)
                    continue
                (e, g), names = done, _parametrized_names(dec)
                ext_decs.append(e)
                gold_decs.append(g)
                blanked |= {n for n in names if n not in loaded}
            node.decorator_list = ext_decs  # type: ignore[attr-defined]
            gold.decorator_list = gold_decs  # type: ignore[attr-defined]
            for k in sites:
                site = self.sites.get(k)
                if site is not None and k in self.param_leaks and self.param_leaks[k] <= blanked:
                    self.sites[k] = Site(**{**site.__dict__, "externalised": True, "why": ""})

    def _module_dead(self, st: ast.stmt, unused: set[str]) -> bool:
        """A module-level definition that only expected values read, which the external text drops."""
        if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            return st.name in unused and not st.decorator_list and st.name not in self.mt.tainted
        if isinstance(st, ast.Assign | ast.AnnAssign) and st.value is not None:
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            names = _stores([st])
            return (all(isinstance(t, ast.Name) for t in targets) and bool(names) and names <= unused
                    and not self.mt.expr_tainted(st.value, set())
                    and self.purity.removable(st.value, names, self.purity.stateful, None))  # fmt: skip
        return False

    # -- sites -----------------------------------------------------------------------------------

    def _new(self, st: ast.stmt, form: Form, operands: list[tuple[Role, ast.expr, object]], **extra: object) -> Site:
        k = self.base + len(self.sites)
        ops = tuple(Operand(r, v if r == "L" else None) for r, _, v in operands)
        site = Site(k, getattr(st, "lineno", 0), form, ops, **extra)  # type: ignore[arg-type]
        if site.externalised and form not in ("generic",):
            leaked = {n.id for r, node, _ in operands if r == "U" for n in ast.walk(node) if isinstance(n, ast.Name)}
            if leaked & self.params:
                self.param_leaks[k] = leaked & self.params
                site = Site(**{**site.__dict__, "externalised": False,
                               "why": "its expected value comes from a parametrize decorator in the file "
                                      "(a scalar's value is also in the test's name)"})  # fmt: skip
            elif form in ("cmp", "approx", "counteq", "bool") and any(
                isinstance(node, ast.Name) and node.id in self.helper_params and role == "T"
                for role, node, _ in operands
            ):
                site = Site(**{**site.__dict__, "externalised": False,
                               "why": "a helper's parameter is compared: its expected value may arrive as the "
                                      "helper's argument, in the sandboxed text"})  # fmt: skip
        if form != "generic":
            self.removed |= {n.id for r, node, _ in operands if r == "U" for n in ast.walk(node)
                             if isinstance(n, ast.Name)}  # fmt: skip
            self.expected_names[k] = {n for r, node, _ in operands if r == "U" for n in _value_names(node)}
        self.sites[k] = site
        return site

    def _roles(self, nodes: list[ast.expr], ft: FunctionTaint) -> list[tuple[Role, ast.expr, object]]:
        """Each operand's role. A site must observe something of the submission: when no operand
        is tainted, the ones reading a value handed to the submission (``fill(buf); assert buf ==
        [1, 2]``) are what it produced."""
        out = [self._role(n, ft) for n in nodes]
        if not any(r == "T" for r, _, _ in out):
            out = [("T", n, None) if r == "U" and ft.exposed_in(n) else (r, n, v) for r, n, v in out]
        return out

    def _role(self, node: ast.expr, ft: FunctionTaint) -> tuple[Role, ast.expr, object]:
        ok, value = _lit(node)
        if ok:
            return "L", node, value
        return ("T" if ft.tainted(node) else "U"), node, None

    def _emit(
        self, st: ast.stmt, site: Site, operands: list[tuple[Role, ast.expr, object]]
    ) -> tuple[list[ast.stmt], list[ast.stmt]]:
        """External: ``_bouts.obs(k, lambda: T...)``. Golden: ``_bouts.open(k)`` + the original
        statement with every non-literal operand wrapped in ``_bouts.atom``."""
        thunks = [ast.Lambda(args=_no_args(), body=node) for r, node, _ in operands if r == "T"]
        ext = ast.Expr(_call("obs", ast.Constant(site.site), *thunks))
        wraps = {id(node): j for j, (r, node, _) in enumerate(operands) if r != "L"}
        head = ast.copy_location(ast.Expr(_call("open", ast.Constant(site.site))), st)
        return [ast.copy_location(ext, st)], [head, _copy_with(st, wraps)]

    def _generic(
        self, st: ast.stmt, expr: ast.expr, ft: FunctionTaint, why: str
    ) -> tuple[list[ast.stmt], list[ast.stmt]]:
        atoms = _atoms(expr, ft)
        operands: list[tuple[Role, ast.expr, object]] = [("T", a, None) for a in atoms]
        site = self._new(st, "generic", operands, externalised=False, why=why)
        wraps = {id(a): j for j, a in enumerate(atoms)}
        head = ast.copy_location(ast.Expr(_call("open", ast.Constant(site.site))), st)
        return [head, _copy_with(st, wraps)], [head, _copy_with(st, wraps)]

    def _assert(self, st: ast.Assert, ft: FunctionTaint) -> tuple[list[ast.stmt], list[ast.stmt]]:
        test = st.test
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            ext: list[ast.stmt] = []
            gold: list[ast.stmt] = []
            for value in test.values:
                e, g = self._assert(ast.copy_location(ast.Assert(test=value, msg=st.msg), st), ft)
                ext += e
                gold += g
            return ext, gold
        if any(isinstance(n, _UNWRAPPABLE) for n in ast.walk(test)):
            return self._generic(st, test, ft, "await, yield or := in the assertion")
        shaped = self._shape(test, ft)
        if shaped is None:
            leaves: list[ast.expr] = []
            tree = _bool_tree(test, leaves, top=True)
            if tree is not None:
                operands = self._roles(leaves, ft)
                site = self._new(st, "bool", operands, expr=json.dumps(tree))
                return self._emit(st, site, operands)
            return self._generic(st, test, ft, "an assertion of no recognised shape, evaluated in the sandbox")
        form, operands, extra = shaped
        site = self._new(st, form, operands, **extra)
        return self._emit(st, site, operands)

    def _shape(self, test: ast.expr, ft: FunctionTaint) -> tuple[Form, list, dict] | None:
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            left, right, op = test.left, test.comparators[0], type(test.ops[0])
            for a, b in ((left, right), (right, left)):
                if op is ast.Eq and isinstance(b, ast.Call) and _func_name(b.func) == "approx" and b.args:
                    tol = _tolerances(b, {"rel": 1e-6, "abs": 1e-12}, ("rel", "abs"))
                    if tol is None:
                        return None
                    return "approx", self._roles([a, b.args[0]], ft), {"rel": tol[0], "abs": tol[1]}
            if op in (ast.Lt, ast.LtE) and isinstance(left, ast.Call) and _func_name(left.func) == "abs" \
                    and len(left.args) == 1 and isinstance(left.args[0], ast.BinOp) \
                    and isinstance(left.args[0].op, ast.Sub):  # fmt: skip
                ok, tol = _lit(right)
                if ok and isinstance(tol, int | float):
                    diff = left.args[0]
                    return "approx", self._roles([diff.left, diff.right], ft), {"rel": 0.0, "abs": float(tol)}
            return "cmp", self._roles([left, right], ft), {"op": _CMP_OPS[op]}
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            if isinstance(test.operand, ast.Compare | ast.BoolOp):
                return None
            return "falsy", self._roles([test.operand], ft), {}
        if isinstance(test, ast.Call) and _func_name(test.func) == "isinstance" and len(test.args) == 2:
            names = _type_names(test.args[1])
            if names is None:
                return None
            return "isinstance", self._roles([test.args[0]], ft), {"types": names}
        if isinstance(test, ast.Call) and _func_name(test.func) == "isclose" and len(test.args) == 2:
            tol = _tolerances(test, {"rel_tol": 1e-9, "abs_tol": 0.0}, ("rel_tol", "abs_tol"))
            if tol is None:
                return None
            return "approx", self._roles([test.args[0], test.args[1]], ft), {"rel": tol[0], "abs": tol[1]}
        if _is_atom(test, ft) or not ft.tainted(test):
            return "truthy", self._roles([test], ft), {}
        return None

    def _call_assertion(self, st: ast.Expr, call: ast.Call, ft: FunctionTaint):  # noqa: ANN202
        name = _func_name(call.func)
        if any(isinstance(n, _UNWRAPPABLE) for n in ast.walk(call)):
            return None
        if name == "bouts_expect" and 1 <= len(call.args) <= 2 and not call.keywords:
            if len(call.args) == 1:
                operands = [("T", call.args[0], None)]
                site = self._new(st, "gold", operands)
            else:
                operands = self._roles([call.args[0], call.args[1]], ft)
                site = self._new(st, "cmp", operands, op="eq")
            return self._emit(st, site, operands)
        if name in _RAISES and isinstance(call.func, ast.Attribute | ast.Name):
            pos = 2 if name == "assertRaisesRegex" else 1
            if len(call.args) > pos:  # the call form: raises(X, f, *args)
                types = _type_names(call.args[0])
                if types is None:
                    return None
                body = ast.Call(func=call.args[pos], args=call.args[pos + 1 :], keywords=call.keywords)
                match = self._match(call, name)
                extra: dict[str, object] = {"types": types, "match": match if isinstance(match, str) else None}
                if match is False:
                    extra |= {"externalised": False, "why": "a computed match"}
                site = self._new(st, "raises", [("T", body, None)], **extra)
                ext = ast.Expr(_call("obs", ast.Constant(site.site), ast.Lambda(args=_no_args(), body=body)))
                manager = ast.Call(func=call.func, args=call.args[:pos], keywords=[])
                gold = ast.With(items=[ast.withitem(manager), ast.withitem(_call("gblock", ast.Constant(site.site)))],
                                body=[ast.Expr(body)])  # fmt: skip
                return [ast.copy_location(ext, st)], [ast.copy_location(gold, st)]
            return None
        if isinstance(call.func, ast.Attribute) and name in _UNITTEST and call.args:
            form, op = _UNITTEST[name]
            args = call.args
            if (
                form in ("cmp", "approx", "counteq", "isinstance")
                and len(args) < 2
                and name not in ("assertIsNone", "assertIsNotNone")
            ):
                return None
            if name in ("assertIsNone", "assertIsNotNone"):
                operands = [*self._roles([args[0]], ft), ("L", ast.Constant(None), None)]
            elif form == "isinstance":
                names = _type_names(args[1])
                if names is None:
                    return None
                operands = self._roles([args[0]], ft)
                site = self._new(st, "isinstance", operands, types=names)
                return self._emit(st, site, operands)
            elif form in ("truthy", "falsy"):
                operands = self._roles([args[0]], ft)
            else:
                operands = self._roles([args[0], args[1]], ft)
            extra = {"op": op} if op else {}
            if form == "approx":
                kw = {k.arg: k.value for k in call.keywords}
                places_node = args[2] if len(args) > 2 else kw.get("places")
                delta_node = kw.get("delta")
                ok_p, places = _lit(places_node) if places_node is not None else (True, 7)
                ok_d, delta = _lit(delta_node) if delta_node is not None else (True, None)
                if not (ok_p and ok_d):
                    return None
                extra = {"rel": 0.0, "abs": float(delta) if delta is not None else 0.5 * 10.0 ** -int(places)}
            site = self._new(st, form, operands, **extra)
            return self._emit(st, site, operands)
        return None

    def _match(self, call: ast.Call, name: str) -> str | None | bool:
        node = call.args[1] if name == "assertRaisesRegex" and len(call.args) > 1 else None
        for k in call.keywords:
            if k.arg in ("match", "expected_regex"):
                node = k.value
        if node is None:
            return None
        ok, value = _lit(node)
        return value if ok and isinstance(value, str) else False

    def _raises_block(self, st: ast.With | ast.AsyncWith, ft: FunctionTaint):  # noqa: ANN202
        item = st.items[0]
        call = item.context_expr
        if not isinstance(call, ast.Call) or _func_name(call.func) not in _RAISES or not call.args:
            return None
        name = _func_name(call.func)
        if len(call.args) > (2 if name == "assertRaisesRegex" else 1):
            return None
        types = _type_names(call.args[0])
        if types is None:
            return None
        match = self._match(call, name)
        extra: dict[str, object] = {"types": types, "match": match if isinstance(match, str) else None}
        if match is False:
            extra |= {"externalised": False, "why": "a computed match"}
        single = st.body[0] if len(st.body) == 1 else None
        if (isinstance(single, ast.Expr) and item.optional_vars is None and isinstance(st, ast.With)
                and not any(isinstance(n, _UNWRAPPABLE) for n in ast.walk(single))):  # fmt: skip
            # One call: the same shape as a value assertion, so a forger cannot tell that this site
            # expects an exception (trap (a) of docs/sandbox.md, "Decided outside").
            site = self._new(st, "raises", [("T", single.value, None)], **extra)
            ext = ast.Expr(_call("obs", ast.Constant(site.site), ast.Lambda(args=_no_args(), body=single.value)))
            gold = ast.With(items=[item, ast.withitem(_call("gblock", ast.Constant(site.site)))], body=[single])
            return [ast.copy_location(ext, st)], [ast.copy_location(gold, st)]
        site = self._new(st, "raises", [("T", call, None)], **extra)
        wrap, self.wrap = self.wrap, False
        try:
            body_ext, body_gold = self.stmts(st.body, ft)
        finally:
            self.wrap = wrap
        ext = ast.With(items=[ast.withitem(_call("block", ast.Constant(site.site)), item.optional_vars)], body=body_ext)
        gold = ast.With(items=[item, ast.withitem(_call("gblock", ast.Constant(site.site)))], body=body_gold)
        return [ast.copy_location(ext, st)], [ast.copy_location(gold, st)]


def _bool_tree(node: ast.expr, leaves: list[ast.expr], top: bool = False) -> list | None:
    """An assertion's condition made of ``or``/``and``/``not`` and (chained) comparisons, over leaves
    the host receives as operands: the graded text observes every leaf (the host evaluates the
    condition, short-circuits included, on the observed values); the golden text keeps it as written.
    ``None`` when there is nothing to decompose (a plain leaf at the top: other shapes)."""
    if isinstance(node, ast.BoolOp):
        parts = [_bool_tree(v, leaves) for v in node.values]
        return None if any(p is None for p in parts) else ["or" if isinstance(node.op, ast.Or) else "and", parts]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _bool_tree(node.operand, leaves)
        return None if inner is None else ["not", inner]
    if isinstance(node, ast.Compare) and all(type(op) in _CMP_OPS for op in node.ops):
        at = len(leaves)
        leaves += [node.left, *node.comparators]
        return ["cmp", [_CMP_OPS[type(op)] for op in node.ops], list(range(at, len(leaves)))]
    if top:
        return None
    leaves.append(node)
    return ["leaf", len(leaves) - 1]


class _NoneForDead(ast.NodeTransformer):
    """A helper's calls with ``None`` for the expected-only arguments its graded body no longer reads."""

    def __init__(self, dead: dict[str, tuple[set[int], set[str]]]) -> None:
        self.dead = dead

    def visit_Call(self, node: ast.Call) -> ast.AST:  # noqa: N802 (the visitor's naming)
        self.generic_visit(node)
        if not isinstance(node.func, ast.Name) or node.func.id not in self.dead:
            return node
        positions, names = self.dead[node.func.id]
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return node
        node.args = [ast.copy_location(ast.Constant(None), a) if i in positions else a for i, a in enumerate(node.args)]
        for k in node.keywords:
            if k.arg in names:
                k.value = ast.copy_location(ast.Constant(None), k.value)
        return node


def _expected_arguments(tree: ast.Module, module: ModuleTaint) -> dict[str, set[str]]:
    """Per module-level helper (undecorated, not a test), the parameters that carry only expected
    values: compared bare in one of its assertions (``assert got == want``), and given at every call
    in the file a value that is not the submission's (a literal, a parametrized value, the test's
    own computation; ``_check_top(board, 3, ["ann", "bob"])``). The helper then treats them as the
    expected side (taken from the golden run) and the graded text's calls pass ``None`` for them."""
    helpers = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef) and not n.decorator_list
               and not n.name.startswith("test") and not n.args.vararg and not n.args.kwarg}  # fmt: skip
    compared: dict[str, set[str]] = {}
    for name, func in helpers.items():
        params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
        bare = {o.id for a in ast.walk(func) if isinstance(a, ast.Assert) and isinstance(a.test, ast.Compare)
                for o in (a.test.left, *a.test.comparators) if isinstance(o, ast.Name)}  # fmt: skip
        if bare & params:
            compared[name] = bare & params
    if not compared:
        return {}
    tainted: dict[str, set[str]] = {name: set() for name in compared}
    for func in (n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)):
        parametrized = _parametrized(func)
        ft = FunctionTaint(module, func, parametrized)
        for call in (n for n in ast.walk(func) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)):
            target = helpers.get(call.func.id)
            if target is None or call.func.id not in compared:
                continue
            positional = [a.arg for a in (*target.args.posonlyargs, *target.args.args)]
            if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                tainted[call.func.id] |= compared[call.func.id]
                continue
            given = dict(zip(positional, call.args, strict=False)) | {k.arg: k.value for k in call.keywords if k.arg}
            # A parametrized value stays in its decorator (and, a scalar, in the test's id): the
            # helper keeps observing that parameter, and its site is counted (``_new``).
            tainted[call.func.id] |= {p for p, value in given.items() if _not_expected(value, ft, parametrized)}
    out: dict[str, set[str]] = {}
    for name, params in compared.items():
        names = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name]
        uses = sum(1 for n in names if isinstance(n.ctx, ast.Load))
        calls = sum(1 for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                    and n.func.id == name)  # fmt: skip
        if calls and uses == calls and params - tainted[name]:  # only ever called here, never handed on
            out[name] = params - tainted[name]
    return out


def _not_expected(value: ast.expr, ft: FunctionTaint, parametrized: set[str]) -> bool:
    """An argument that is the submission's, comes from elsewhere than the test's own code (an await,
    a yield) or is a parametrized value (it stays in its decorator, and a scalar in the test's id)."""
    names = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
    return ft.tainted(value) or any(isinstance(n, _UNWRAPPABLE) for n in ast.walk(value)) or bool(names & parametrized)


def _parametrized_names(dec: ast.expr) -> list[str]:
    if not (isinstance(dec, ast.Call) and _func_name(dec.func) == "parametrize" and dec.args):
        return []
    ok, value = _lit(dec.args[0])
    if ok and isinstance(value, str):
        return [n.strip() for n in value.split(",") if n.strip()]
    if ok and isinstance(value, list | tuple) and all(isinstance(n, str) for n in value):
        return list(value)
    return []


def _pytest_id(value: object, name: str, index: int) -> str | None:
    """pytest's own id of one parametrized value (before its escaping, which pytest applies to an
    ``ids=`` entry as to a value); ``None`` where pytest would ask a hook or a function's name."""
    if isinstance(value, str):
        return value
    if value is None or isinstance(value, bool | int | float | complex):
        return str(value)
    if isinstance(value, tuple | list | dict | set | frozenset):
        return f"{name}{index}"
    return None


def _blank_parametrize(dec: ast.expr, loaded: set[str]) -> tuple[ast.expr, ast.expr] | None:
    """``@pytest.mark.parametrize`` with the values of names the body no longer reads as ``None``
    (external) and the same ``ids=`` (both): or None when nothing is blanked or it cannot be done
    exactly (ids or indirect given, ``pytest.param`` entries, values that are not literals, ids
    pytest would make unique by numbering), or not without a leak: a blanked scalar (a str, a
    number) is its own id, so the test's name would still carry it (names are not opaque yet)."""
    names = _parametrized_names(dec)
    dead = [i for i, n in enumerate(names) if n not in loaded]
    if not names or not dead or len(dec.args) != 2 or not isinstance(dec.args[1], ast.List | ast.Tuple):  # type: ignore[attr-defined]
        return None
    if any(k.arg in (None, "ids", "indirect") for k in dec.keywords):  # type: ignore[attr-defined]
        return None
    ids: list[str] = []
    cases: list[ast.expr] = []
    for index, case in enumerate(dec.args[1].elts):  # type: ignore[attr-defined]
        parts = case.elts if len(names) > 1 and isinstance(case, ast.Tuple | ast.List) else [case]
        if len(parts) != len(names):
            return None
        values = [_lit(p) for p in parts]
        if not all(ok for ok, _ in values):
            return None
        pieces = [_pytest_id(v, n, index) for (_, v), n in zip(values, names, strict=True)]
        if any(p is None for p in pieces) or any(pieces[i] != f"{names[i]}{index}" for i in dead):
            return None  # a scalar's id is its value: the test's name would carry what is blanked
        ids.append("-".join(pieces))  # type: ignore[arg-type]
        new = [ast.copy_location(ast.Constant(None), p) if i in dead else p for i, p in enumerate(parts)]
        cases.append(ast.copy_location(ast.Tuple(elts=new, ctx=ast.Load()), case) if len(names) > 1 else new[0])
    if len(set(ids)) != len(ids):
        return None
    keyword = ast.keyword(arg="ids", value=ast.List(elts=[ast.Constant(i) for i in ids], ctx=ast.Load()))
    ext = copy.copy(dec)
    ext.args = [dec.args[0], ast.List(elts=cases, ctx=ast.Load())]  # type: ignore[attr-defined]
    ext.keywords = [*dec.keywords, keyword]  # type: ignore[attr-defined]
    gold = copy.copy(dec)
    gold.keywords = [*dec.keywords, keyword]  # type: ignore[attr-defined]
    return ext, gold


def _tolerances(call: ast.Call, defaults: dict[str, float], names: tuple[str, str]) -> tuple[float, float] | None:
    out = dict(defaults)
    for k in call.keywords:
        if k.arg not in names:
            return None
        ok, value = _lit(k.value)
        if not ok or not isinstance(value, int | float):
            return None
        out[k.arg] = float(value)
    if len(call.args) > (1 if names[0] == "rel" else 2):
        return None
    return out[names[0]], out[names[1]]


def _no_args() -> ast.arguments:
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])


def _is_atom(node: ast.expr, ft: FunctionTaint) -> bool:
    """A value the submission produced: a tainted name, a call of a tainted callable, or an
    attribute/subscript chain on one."""
    if isinstance(node, ast.Name):
        return ft.tainted(node)
    if isinstance(node, ast.Call):
        return ft.tainted(node.func)
    if isinstance(node, ast.Attribute | ast.Subscript):
        return ft.tainted(node.value)
    return False


def _atoms(node: ast.expr, ft: FunctionTaint) -> list[ast.expr]:
    if not ft.tainted(node):
        return []
    if isinstance(node, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
        return _atoms(node.generators[0].iter, ft)  # the only part evaluated in this scope
    if isinstance(node, ast.Lambda):
        return []
    if _is_atom(node, ft):
        return [node]
    out: list[ast.expr] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.keyword):
            child = child.value
        if isinstance(child, ast.expr):
            out += _atoms(child, ft)
    return out


def _copy_with(node: ast.AST, wraps: dict[int, int]) -> ast.AST:
    """A copy of ``node`` where each subtree whose ``id`` is in ``wraps`` becomes ``_bouts.atom(j, ...)``."""
    if id(node) in wraps:
        inner = copy.deepcopy(node)
        return ast.copy_location(_call("atom", ast.Constant(wraps[id(node)]), inner), node)  # type: ignore[arg-type]
    new = copy.copy(node)
    for name, value in ast.iter_fields(node):
        if isinstance(value, list):
            setattr(new, name, [_copy_with(v, wraps) if isinstance(v, ast.AST) else v for v in value])
        elif isinstance(value, ast.AST):
            setattr(new, name, _copy_with(value, wraps))
    return new


_IMPURE_BUILTINS = frozenset({
    "next", "input", "print", "open", "exec", "eval", "compile", "setattr", "delattr", "globals", "locals", "vars",
    "__import__", "breakpoint", "exit", "quit", "help",
})  # fmt: skip
"""Builtins whose calls change or read state a kept statement may depend on (an iterator, a file)."""
_STATEFUL_MODULES = frozenset({
    "random", "numpy", "os", "sys", "io", "itertools", "pathlib", "shutil", "socket", "sqlite3", "subprocess",
    "tempfile", "threading", "multiprocessing", "asyncio",
})  # fmt: skip
"""Modules whose objects hold state the inputs are drawn from (a random generator, files, an iterator)."""
_MUTATING = frozenset({
    "append", "extend", "insert", "pop", "popitem", "remove", "clear", "update", "setdefault", "add", "discard",
    "sort", "reverse", "send", "throw", "close", "write", "writelines", "seek", "truncate", "put", "rotate",
    "appendleft", "popleft", "extendleft", "write_text", "write_bytes", "mkdir", "unlink", "rmdir", "rename",
    "touch", "execute", "executemany", "commit", "seed", "setstate", "shuffle", "random", "randint", "choice",
    "choices", "sample", "uniform", "randrange", "gauss", "getrandbits", "acquire", "release", "set", "wait",
    "__next__", "__setitem__", "__delitem__", "__iadd__",
})  # fmt: skip
"""Method names that change their object (or draw from a generator): such a call stays unless its
object is itself an expected value being built."""


def _observed_helpers(tree: ast.Module) -> set[str]:
    """Module-level helpers (undecorated, not tests) whose plain calls of the submission are observed
    like a test's own (``_stocked()`` building a ledger): otherwise a call made from a helper would
    tell the callee it is setup, not a check. A helper is left as written when an exception of its
    must reach its caller: one called inside a ``with`` (``pytest.raises``), a ``try`` or a lambda,
    passed as a value (``pytest.raises(X, helper)``), or called by such a helper; and one called in
    an assertion's operands (the golden run records that site before evaluating them, so records
    made inside would come in another order than in the graded run)."""
    helpers = {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and not n.decorator_list
               and not n.name.startswith("test")}  # fmt: skip
    bodies = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in helpers}
    keep: set[str] = set()
    called: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            called.add(id(node.func))
    for node in ast.walk(tree):
        if isinstance(node, ast.With | ast.AsyncWith | ast.Try | ast.TryStar | ast.Lambda):
            inner = node.body if isinstance(node.body, list) else [node.body]
            keep |= {n.id for part in inner for n in ast.walk(part) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Assert) or (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
            and _func_name(node.value.func) in (*_UNITTEST, "bouts_expect")
        ):  # fmt: skip
            # an assertion's operands: the golden run opens the site before evaluating them
            keep |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in called:
            keep.add(node.id)
    keep &= helpers
    while True:
        more = {n.id for h in keep for n in ast.walk(bodies[h]) if isinstance(n, ast.Name)} & helpers
        if more <= keep:
            return helpers - keep
        keep |= more


def _value_names(node: ast.AST) -> set[str]:
    """The names whose values an expected operand *is* made of (``expected``, ``table`` in
    ``table[k]``), not those it is computed from (a call's arguments, an index, a loop's variables)."""
    out: set[str] = set()
    bound: set[str] = set()

    def walk(n: ast.AST) -> None:
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Call):
            walk(n.func)
        elif isinstance(n, ast.Subscript):
            walk(n.value)
        elif isinstance(n, ast.comprehension):
            bound.update(_stores([ast.Expr(n.target)]))
            walk(n.iter)
        else:
            for child in ast.iter_child_nodes(n):
                walk(child)

    walk(node)
    return out - bound


def _root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _loads(nodes: list[ast.stmt] | ast.AST) -> set[str]:
    items = nodes if isinstance(nodes, list) else [nodes]
    return {n.id for st in items for n in ast.walk(st) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _stores(nodes: list[ast.stmt]) -> set[str]:
    return {n.id for st in nodes for n in ast.walk(st) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


class _Purity:
    """Which statements the external text can drop without changing what the submission sees.

    Test code is trusted: a statement that only computes an expected value (its targets are names
    read only by the expected side of assertions) is dropped from the external text whatever it
    calls — ``Decimal``, ``Counter``, ``math.floor``, a comprehension, a model function of the test
    file — unless it involves the submission (taint), draws from a random generator or other state
    the inputs come from (a name bound from ``random``, ``os``, ``itertools``…, a local bound from
    one, a function of the file that uses one or declares ``global``), or calls a method that
    changes an object other than the expected value being built. Its value is the golden run's."""

    def __init__(self, tree: ast.Module) -> None:
        self.stateful: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] in _STATEFUL_MODULES:
                        self.stateful.add(alias.asname or alias.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in _STATEFUL_MODULES:
                self.stateful |= {a.asname or a.name for a in node.names}
        kinds = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Assign
        defs = [n for n in tree.body if isinstance(n, kinds)]
        changed = True
        while changed:
            changed = False
            for node in defs:
                names = {node.name} if not isinstance(node, ast.Assign) else _stores([node])
                if names <= self.stateful:
                    continue
                declares = any(isinstance(n, ast.Global | ast.Nonlocal) for n in ast.walk(node))
                if declares or {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} & self.stateful:
                    self.stateful |= names
                    changed = True

    def local_state(self, func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
        """Locals bound to a stateful object (``rng = random.Random(seed)``, ``rng = _rng()``,
        ``it = iter(xs)``); a value drawn from one (``qty = rng.randint(1, 9)``) is plain data."""
        out = set(self.stateful)
        changed = True
        while changed:
            before = len(out)
            for node in ast.walk(func):
                if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
                    continue
                value = node.value
                func_ = value.func if isinstance(value, ast.Call) else value
                holder = (isinstance(func_, ast.Name) and (func_.id in out or func_.id == "iter")) or (
                    isinstance(func_, ast.Attribute) and _root(func_) in self.stateful
                )
                if holder:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    out |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            changed = len(out) != before
        return out

    @staticmethod
    def removable(node: ast.AST, dead: set[str], state: set[str], ft: FunctionTaint | None) -> bool:
        if ft is not None and ft.tainted(node):
            return False
        for sub in ast.walk(node):
            if isinstance(sub, _UNWRAPPABLE):
                return False
            if isinstance(sub, ast.Name) and sub.id in state and sub.id not in dead:
                return False
            if isinstance(sub, ast.Call):
                func = sub.func
                if isinstance(func, ast.Name) and func.id in _IMPURE_BUILTINS:
                    return False
                if isinstance(func, ast.Attribute) and func.attr in _MUTATING and _root(func) not in dead:
                    return False
        return True


def _defines(st: ast.stmt, dead: set[str], ok) -> bool:  # noqa: ANN001
    """Whether ``st`` only computes names in ``dead`` (the expected side the host keeps), purely."""
    if isinstance(st, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = st.targets if isinstance(st, ast.Assign) else [st.target]
        return (st.value is not None and all(_root(t) in dead for t in targets)
                and ok(st.value, dead) and all(ok(t, dead) for t in targets))  # fmt: skip
    if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and isinstance(st.value.func, ast.Attribute):
        return _root(st.value.func) in dead and ok(st.value, dead)
    return False


def _prune(body: list[ast.stmt], candidates: set[str], ok, protected: set[str]) -> list[ast.stmt]:  # noqa: ANN001
    """The external text without the statements that only computed an expected value it no longer
    checks (``expected = Decimal(0)``, ``expected += Decimal(p) * q``, ``expected = _model(xs)``):
    they would otherwise sit in the sandbox for a forger to read out of the test's frame. A name
    whose only readers went is dropped in turn (``total = ...; expected = total``). Only statements
    :class:`_Purity` allows go, so the inputs the submission sees are unchanged; a name that also
    feeds the inputs stays (and its sites are marked, :meth:`_Rewriter.finish`)."""
    if not candidates:
        return body
    used = _loads(body)
    growable = (_stores(body) & used) - protected
    dead = set(candidates) - protected
    kept = body
    for _ in range(40):
        kept = _without(body, dead, ok)
        loaded = _loads(kept)
        new = (dead - loaded) | (growable - loaded)
        if new == dead:
            return kept
        dead = new
    while True:  # no fixpoint in time: shrink only, which always ends
        kept = _without(body, dead, ok)
        still = dead - _loads(kept)
        if still == dead:
            return kept
        dead = still


def _without(body: list[ast.stmt], dead: set[str], ok) -> list[ast.stmt]:  # noqa: ANN001
    out: list[ast.stmt] = []
    for st in body:
        if _defines(st, dead, ok):
            continue
        if isinstance(st, ast.For) and not st.orelse and ok(st.iter, dead):
            inner = _without(st.body, dead, ok)
            if not inner:
                continue
            if inner != st.body:
                st = copy.copy(st)
                st.body = inner
        elif isinstance(st, ast.If | ast.While | ast.With | ast.For | ast.Try):
            st = copy.copy(st)
            for f in ("body", "orelse", "finalbody"):
                if isinstance(getattr(st, f, None), list) and getattr(st, f):
                    setattr(st, f, _without(getattr(st, f), dead, ok) or [ast.Pass()])
        out.append(st)
    return out


# -- tables: keys feed the inputs, values only the expected side -----------------------------------


def _mask(target: ast.expr, live: set[str]) -> object:
    """What of each element a loop target keeps: ``True`` all, ``False`` nothing, a tuple per position."""
    if isinstance(target, ast.Name):
        return target.id in live
    if isinstance(target, ast.Tuple | ast.List) and not any(isinstance(e, ast.Starred) for e in target.elts):
        return tuple(_mask(e, live) for e in target.elts)
    return True


def _union(a: object, b: object) -> object:
    if a is True or b is True:
        return True
    if a is False:
        return b
    if b is False:
        return a
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return tuple(_union(x, y) for x, y in zip(a, b, strict=True))
    return True


def _blank(node: ast.expr, mask: object) -> tuple[ast.expr, bool]:
    """``node`` with the positions ``mask`` drops replaced by ``None``; and whether every dropped
    position could be blanked (a non-literal element stays: it may draw inputs)."""
    if mask is True:
        return node, True
    if mask is False:
        ok, _ = _lit(node)
        return (ast.copy_location(ast.Constant(None), node), True) if ok else (node, False)
    if isinstance(node, ast.Tuple | ast.List) and isinstance(mask, tuple) and len(node.elts) == len(mask):
        parts = [_blank(e, m) for e, m in zip(node.elts, mask, strict=True)]
        new = copy.copy(node)
        new.elts = [p[0] for p in parts]
        return new, all(p[1] for p in parts)
    return node, False


def _table_use(parent: ast.AST, name: str) -> str | None:
    """How a loop reads table ``name``: ``iter`` (``for x in T``), ``items``, ``keys``, or None."""
    it = parent.iter if isinstance(parent, ast.For | ast.comprehension) else None
    if isinstance(it, ast.Name) and it.id == name:
        return "iter"
    if (isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and isinstance(it.func.value, ast.Name)
            and it.func.value.id == name and not it.args and it.func.attr in ("items", "keys")):  # fmt: skip
        return it.func.attr
    return None


def _blank_table(value: ast.expr, uses: list[tuple[str, object]]) -> tuple[ast.expr, bool] | None:
    """A literal table blanked for the ways it is iterated; None when it cannot be (another use)."""
    if isinstance(value, ast.Dict):
        keep_values: object = False
        for how, mask in uses:
            if how == "items":
                if not isinstance(mask, tuple) or len(mask) != 2:
                    return None
                keep_values = _union(keep_values, mask[1])
            elif how not in ("iter", "keys"):
                return None
        if keep_values is True:
            return None
        new = copy.copy(value)
        pairs = [_blank(v, keep_values) for v in value.values]
        new.values = [p[0] for p in pairs]
        return new, all(p[1] for p in pairs)
    if isinstance(value, ast.List | ast.Tuple | ast.Set):
        if any(how != "iter" for how, _ in uses):
            return None
        keep: object = False
        for _, mask in uses:
            keep = _union(keep, mask)
        if keep is True:
            return None
        new = copy.copy(value)
        parts = [_blank(e, keep) for e in value.elts]
        new.elts = [p[0] for p in parts]
        return new, all(p[1] for p in parts)
    return None


def _loops_over(scope: list[ast.stmt], name: str) -> list[tuple[str, object]] | None:
    """Every read of ``name`` in ``scope`` as (how, target mask), or None if one is not a loop over it."""
    live = _loads(scope)
    uses: list[tuple[str, object]] = []
    reads = 0
    for node in (n for st in scope for n in ast.walk(st)):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            reads += 1
        if isinstance(node, ast.For | ast.comprehension):
            how = _table_use(node, name)
            if how is not None:
                uses.append((how, _mask(node.target, live)))
    return uses if uses and reads == len(uses) else None


def _blank_tables(body: list[ast.stmt], scope: list[ast.stmt]) -> tuple[list[ast.stmt], set[str]]:
    """``body`` with each literal table bound in it (``cases = {sku: (price, qty, value)}``) whose
    only reads are loops that ignore some positions (``for sku, (price, qty, _) in cases.items()``)
    rewritten with those positions ``None``; and the names blanked completely."""
    out: list[ast.stmt] = []
    clean: set[str] = set()
    for st in body:
        if (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)
                and isinstance(st.value, ast.Dict | ast.List | ast.Tuple | ast.Set)):  # fmt: skip
            name = st.targets[0].id
            uses = _loops_over(scope, name)
            blanked = _blank_table(st.value, uses) if uses is not None else None
            if blanked is not None:
                new = copy.copy(st)
                new.value, whole = blanked
                out.append(ast.copy_location(new, st))
                if whole:
                    clean.add(name)
                continue
        out.append(st)
    return out, clean


def _blank_inline(body: list[ast.stmt]) -> tuple[list[ast.stmt], set[str]]:
    """Loops over an inline literal (``for sku, want in [("A", 3), ...]:``) with the positions their
    body ignores blanked; returns the target names so cleared."""
    cleared: set[str] = set()

    def fix(st: ast.stmt) -> ast.stmt:
        if isinstance(st, ast.For) and isinstance(st.iter, ast.List | ast.Tuple):
            mask = _mask(st.target, _loads(st.body))
            if mask is not True:
                parts = [_blank(e, mask) for e in st.iter.elts]
                if all(p[1] for p in parts):
                    st = copy.copy(st)
                    it = copy.copy(st.iter)
                    it.elts = [p[0] for p in parts]
                    st.iter = it
                    cleared.update(_stores([ast.Expr(st.target)]) - _loads(st.body))
        for f in ("body", "orelse", "finalbody"):
            inner = getattr(st, f, None)
            if isinstance(inner, list) and inner:
                st = copy.copy(st)
                setattr(st, f, [fix(s) for s in inner])
        return st

    return [fix(st) for st in body], cleared
