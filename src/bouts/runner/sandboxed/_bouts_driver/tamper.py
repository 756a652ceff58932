"""Fingerprints of the machinery that turns a test into a verdict.

The supervisor takes a baseline before any submission code is imported; every worker takes one
after collection (the submission's modules are imported by then) and every test process after
its test ran. The host compares the digests. This is a tripwire, not a proof: code running in
the same process could also forge the fingerprint, which is why the canaries and the host-side
checks exist (docs/sandbox.md, "Threat model").
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
import types
from itertools import repeat
from operator import attrgetter, contains, getitem, is_

WATCHED = (
    "_pytest.runner:call_and_report",
    "_pytest.runner:runtestprotocol",
    "_pytest.runner:pytest_runtest_protocol",
    "_pytest.runner:call_runtest_hook",
    "_pytest.runner:pytest_runtest_makereport",
    "_pytest.runner:CallInfo.from_call",
    "_pytest.runner:_update_current_test_var",
    "_pytest.reports:TestReport",
    "_pytest.reports:TestReport.__init__",
    "_pytest.reports:TestReport.from_item_and_call",
    "_pytest.reports:BaseReport.passed",
    "_pytest.reports:BaseReport.failed",
    "_pytest.python:pytest_pyfunc_call",
    "_pytest.python:Function.runtest",
    "_pytest.unittest:TestCaseFunction.runtest",
    "_pytest.assertion.rewrite:rewrite_asserts",
    "_pytest.assertion.rewrite:AssertionRewriter.visit_Assert",
    "_pytest.assertion.rewrite:AssertionRewritingHook.exec_module",
    "_pytest.assertion.util:assertrepr_compare",
    "_pytest.outcomes:fail",
    "_pytest.outcomes:skip",
    "_pytest.outcomes:xfail",
    "_pytest.outcomes:exit",
    "pluggy._callers:_multicall",
    "pluggy._hooks:HookCaller.__call__",
    "pluggy._manager:PluginManager._hookexec",
    "unittest.case:TestCase.run",
    "unittest.case:TestCase._callTestMethod",
    "os:_exit",
    "os:write",
    "os:fork",
    "posix:_exit",
    "sys:exit",
    "builtins:__import__",
    "builtins:AssertionError",
    "builtins:isinstance",
    "builtins:repr",
    "json:dumps",
    "json.encoder:JSONEncoder.encode",
    "_bouts_driver.proto:send",
    "_bouts_driver.proto:result",
    "_bouts_driver.worker:verdict",
    "_bouts_driver.worker:WorkerPlugin._run_in_child",
    "_bouts_driver.worker:spawn",
    "_bouts_driver.worker:WorkerPlugin.pytest_runtestloop",
    "_bouts_driver.worker:WorkerPlugin.pytest_runtest_logreport",
    "_bouts_driver.worker:WorkerPlugin.pytest_exception_interact",
    "_bouts_driver.worker:_after",
    "_bouts_driver.worker:_parse",
    "_bouts_driver.worker:TestProcess.run",
    "_bouts_driver.worker:TestProcess._await",
    "_bouts_driver.worker:TestProcess._serve",
    "_bouts_driver.fixtures:canonical",
    "_bouts_driver.observe:obs",
    "_bouts_driver.observe:open",
    "_bouts_driver.observe:atom",
    "_bouts_driver.observe:block",
    "_bouts_driver.observe:encode",
    "_bouts_driver.observe:reset",
    "_bouts_driver.tamper:fingerprint",
    "_bouts_driver.tamper:_Plan.unchanged",
    "_bouts_driver.tamper:digest",
    "_bouts_driver.tamper:test_code",
    "random:seed",
)
"""Objects whose identity and code must not change once the submission is imported."""


_ASSERTS: list = [None, None, []]
"""The class whose assertion names were read last, its attribute names then, and those names (each
with its fingerprint key)."""


def _unittest_asserts() -> list[tuple[str, str]]:
    import unittest

    case = unittest.TestCase
    names = vars(case).keys()
    if _ASSERTS[0] is case and names == _ASSERTS[1]:  # the same names: compared in C, not rebuilt
        return _ASSERTS[2]
    found = sorted(n for n in names if n.startswith(("assert", "fail")))
    _ASSERTS[:] = [case, set(names), [(n, f"unittest.case:TestCase.{n}") for n in found]]
    return _ASSERTS[2]


_TYPE_MRO = type.__dict__["__mro__"]
_Node = dict[str, tuple["str | None", "_Node"]]
"""attribute → (the watched path it ends, if one does; the attributes watched under it)."""
_TREES: dict[tuple[str, ...], dict[str, _Node]] = {}
"""The watched paths as a tree, per module (built once per list of paths): each owner on the way
is looked up once per fingerprint, whatever number of paths go through it."""


def _tree(paths: tuple[str, ...]) -> dict[str, _Node]:
    tree = _TREES.get(paths)
    if tree is None:
        tree = {}
        for path in paths:
            module, _, attrs = path.partition(":")
            node, names = tree.setdefault(module, {}), attrs.split(".")
            for i, name in enumerate(names):
                end, kids = node.get(name, (None, {}))
                node[name] = (path if i == len(names) - 1 else end, kids)
                node = kids
        _TREES[paths] = tree
    return tree


_SPACES: dict[int, tuple[object, tuple, list]] = {}
"""id(class) → (the class, its MRO, the namespaces of that MRO). A class's namespace is the same
dict for its life and a new MRO is a new tuple (bases assigned): both are compared by identity, and
holding the class keeps its id from being reused."""


def _spaces(owner: object, plan: _Plan | None = None) -> list:
    """Where ``owner``'s attributes are read: the class dicts of its MRO (a property or function as
    defined), or its own dict. Only a class has an MRO, read from type's own slot: a module (or any
    object) given an attribute named ``__mro__`` must not point the lookup at a decoy's namespace."""
    if not isinstance(owner, type):
        if plan is not None:
            plan.owner(owner)
        return [vars(owner) if hasattr(owner, "__dict__") else {}]
    mro = _TYPE_MRO.__get__(owner, type)
    if plan is not None:
        plan.cls(owner, mro)
    hit = _SPACES.get(id(owner))
    if hit is not None and hit[0] is owner and hit[1] is mro:
        return hit[2]
    spaces = [vars(k) if hasattr(k, "__dict__") else {} for k in mro]
    _SPACES[id(owner)] = (owner, mro, spaces)
    return spaces


def _lookup(owner: object, spaces: list, attr: str, plan: _Plan | None = None) -> object:
    for i, space in enumerate(spaces):
        if attr in space:
            if plan is not None:
                plan.found(spaces, i, attr, space[attr])
            return space[attr]
    obj = getattr(owner, attr, None)
    if plan is not None:
        plan.found(spaces, len(spaces), attr, obj)
        plan.slow.append(lambda: getattr(owner, attr, None) is obj)
    return obj


def _walk(owner: object, node: _Node, prints: dict[str, str], plan: _Plan | None = None) -> None:
    """Describe every path of ``node`` under ``owner`` (None: absent, and all below it) into ``prints``."""
    spaces = None if owner is None else _spaces(owner, plan)
    for attr, (path, kids) in node.items():
        obj = None if spaces is None else _lookup(owner, spaces, attr, plan)
        if path is not None:
            prints[path] = _describe(obj, plan)
        if kids:
            _walk(obj, kids, prints, plan)


def _resolve(path: str, plan: _Plan | None = None) -> object:
    """The object ``path`` (``module:attr.attr``) names now, or None."""
    module, _, attrs = path.partition(":")
    obj: object = sys.modules.get(module)
    if plan is not None:
        plan.module(module, obj)
    for attr in attrs.split("."):
        if obj is None:
            return None
        obj = _lookup(obj, _spaces(obj, plan), attr, plan)
    return obj


def _code_hash(code: types.CodeType, h: hashlib._Hash) -> None:
    # Not marshal: its output depends on reference counts, so it differs between equal code objects.
    h.update(code.co_code)
    h.update(repr((code.co_names, code.co_varnames, code.co_freevars, code.co_qualname)).encode())
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _code_hash(const, h)
        else:
            h.update(repr(const).encode())


_MEMO: dict[int, tuple[types.CodeType, str]] = {}
"""id(code) → (code, hash). Holding the code object keeps its id from being reused, so a
replaced ``__code__`` always misses the memo; forked test processes inherit it warm."""


def _memo_hash(code: types.CodeType) -> str:
    hit = _MEMO.get(id(code))
    if hit is not None and hit[0] is code:
        return hit[1]
    h = hashlib.sha256()
    _code_hash(code, h)
    _MEMO[id(code)] = (code, h.hexdigest()[:16])
    return _MEMO[id(code)][1]


_DESCRIBED: dict[int, tuple[object, object, object, object, str]] = {}
"""id(obj) → (obj, its three code objects, its description): the text is built once per object
and code; holding them keeps their ids from being reused."""


def _describe(obj: object, plan: _Plan | None = None) -> str:
    text = _description(obj)
    if plan is not None:
        plan.described(obj, text)
    return text


def _description(obj: object) -> str:
    if obj is None:
        return "absent"
    hit = _DESCRIBED.get(id(obj))
    if hit is not None and hit[0] is obj:
        # The usual kinds, checked without a failed lookup (each raises and drops an AttributeError):
        # a built-in function has none of the three; a function has only ``__code__`` while its own
        # dict is empty (``fget`` or ``__func__`` could only come from there); a property only ``fget``.
        kind = type(obj)
        if kind is types.BuiltinFunctionType:
            return hit[4]
        if kind is types.FunctionType and not obj.__dict__:  # type: ignore[attr-defined]
            if obj.__code__ is hit[1] and hit[2] is None and hit[3] is None:  # type: ignore[attr-defined]
                return hit[4]
        elif kind is property:
            fget = obj.fget  # type: ignore[attr-defined]
            if (getattr(fget, "__code__", None) if fget is not None else None) is hit[2] and hit[1] is hit[3] is None:
                return hit[4]
    code = getattr(obj, "__code__", None)
    fget = getattr(obj, "fget", None)  # None has no __code__: not asked (a failed lookup costs)
    fget = None if fget is None else getattr(fget, "__code__", None)
    func = getattr(obj, "__func__", None)
    func = None if func is None else getattr(func, "__code__", None)
    if hit is not None and hit[0] is obj and hit[1] is code and hit[2] is fget and hit[3] is func:
        return hit[4]
    parts = [str(id(obj))]  # forked processes share the original objects' addresses
    parts += [_memo_hash(c) for c in (code, fget, func) if c is not None]
    text = ":".join(parts)
    _DESCRIBED[id(obj)] = (obj, code, fget, func, text)
    return text


def fingerprint() -> dict[str, str]:
    """Name → identity and code hash of every watched object, plus global hooks."""
    held, paths = _HELD[0], tuple(WATCHED)
    if held is not None and held[2] == paths and held[0].unchanged():
        prints = dict(held[1])
    else:
        plan = _Plan()
        prints = {}
        for module, node in _tree(paths).items():
            owner = sys.modules.get(module)
            plan.module(module, owner)
            _walk(owner, node, prints, plan)
        case = _resolve("unittest.case:TestCase", plan)
        spaces = None if case is None else _spaces(case, plan)
        asserts = _unittest_asserts()
        plan.slow.append(lambda: _unittest_asserts() is asserts)
        for name, key in asserts:
            prints[key] = _describe(None if spaces is None else _lookup(case, spaces, name, plan), plan)
        _HELD[0] = (plan, dict(prints), paths) if plan.ok else None
    prints["sys.settrace"] = "set" if sys.gettrace() is not None else "none"
    prints["sys.setprofile"] = "set" if sys.getprofile() is not None else "none"
    prints["threading.settrace"] = "set" if getattr(threading, "_trace_hook", None) else "none"
    return prints


_PROXIES: dict[int, tuple[dict, types.MappingProxyType]] = {}
"""id(a module's dict) → (the dict, a read-only view of it): every namespace a plan reads is a view."""
_MRO = _TYPE_MRO.__get__
_CODE = attrgetter("__code__")
_DICT = attrgetter("__dict__")
_DESCRIBING = ("__code__", "fget", "__func__")
"""The attributes a description reads (:func:`_description`)."""


def _view(space: object) -> types.MappingProxyType:
    if type(space) is types.MappingProxyType:
        return space
    hit = _PROXIES.get(id(space))
    if hit is None or hit[0] is not space:
        hit = (space, types.MappingProxyType(space))  # type: ignore[arg-type]
        _PROXIES[id(space)] = hit
    return hit[1]


class _Plan:
    """What one full fingerprint read, laid out so that :meth:`unchanged` reads it all again in C
    (``map`` over built-in getters, compared by identity): the same modules, classes with the same
    MRO, each watched name found in the same namespace as the same object (and in none before it),
    each function with the same code. When all of that holds, a full fingerprint would describe
    every object as before; when any of it does not, it is taken in full: 67 -> 28 us warm, 115 ->
    56-61 us with the caches cold after a test (docs/benchmarks.md). Objects of other kinds (an
    instance such as ``pytest.fail``) and names found by ``getattr`` rather than in a namespace are
    checked one by one."""

    def __init__(self) -> None:
        self.ok = True
        """False when the plan met an owner it cannot vouch for (neither a module nor a class)."""
        self.names: list[str] = []
        self.modules: list[object] = []
        self.owners: list[object] = []
        self.owner_types: list[type] = []
        self.classes: list[type] = []
        self.mros: list[tuple] = []
        self.not_in: list[types.MappingProxyType] = []
        self.not_attr: list[str] = []
        self.found_in: list[types.MappingProxyType] = []
        self.found_attr: list[str] = []
        self.objs: list[object] = []
        self.funcs: list[object] = []
        """Functions described by their code alone: their own dict empty."""
        self.funcs_code: list[object] = []
        self.attributed: list[object] = []
        """Functions with attributes of their own (a hook's options), none of them ``fget`` or ``__func__``."""
        self.attributed_code: list[object] = []
        self.getters: list[object] = []
        """Functions whose code is part of another object's description (a property's getter)."""
        self.getters_code: list[object] = []
        self.wrapped: list[object] = []
        """Class and static methods: their ``__func__`` fixed, their own dict without ``__code__`` or ``fget``."""
        self.slow: list = []
        """Checks taken one by one: each returns True while what it vouches for holds."""
        self._seen: set[int] = set()

    def module(self, name: str, module: object) -> None:
        self.names.append(name)
        self.modules.append(module)

    def owner(self, owner: object) -> None:
        if isinstance(owner, types.ModuleType):
            self.owners.append(owner)
            self.owner_types.append(type(owner))  # a module's class may change (to one with __getattr__)
        else:
            self.ok = False

    def cls(self, owner: type, mro: tuple) -> None:
        if id(owner) not in self._seen:
            self._seen.add(id(owner))
            self.classes.append(owner)
            self.mros.append(mro)

    def found(self, spaces: list, at: int, attr: str, obj: object) -> None:
        """``attr`` is in none of ``spaces`` before ``at``, and ``obj`` in ``spaces[at]`` (if any)."""
        for space in spaces[:at]:
            self.not_in.append(_view(space))
            self.not_attr.append(attr)
        if at < len(spaces):
            self.found_in.append(_view(spaces[at]))
            self.found_attr.append(attr)
            self.objs.append(obj)

    def described(self, obj: object, text: str) -> None:
        """What besides ``obj``'s identity (vouched for by :meth:`found`) its description depends on."""
        kind = type(obj)
        if obj is None or kind is types.BuiltinFunctionType:
            return
        if kind is types.FunctionType and self._function(obj):
            return
        if kind is types.MethodType and type(obj.__func__) is types.FunctionType and self._function(obj.__func__):  # type: ignore[attr-defined]
            return  # its function is fixed; its code and the attributes it lends are the function's
        if kind is property:
            fget = obj.fget  # type: ignore[attr-defined]
            if fget is None or type(fget) is types.BuiltinFunctionType:
                return
            if type(fget) is types.FunctionType:
                self.getters.append(fget)
                self.getters_code.append(fget.__code__)
                return
        if kind in (classmethod, staticmethod) and type(obj.__dict__) is dict:  # type: ignore[attr-defined]
            func = obj.__func__  # type: ignore[attr-defined]
            if type(func) is types.FunctionType and not ({"__code__", "fget"} & obj.__dict__.keys()):  # type: ignore[attr-defined]
                self.wrapped.append(obj)
                self.getters.append(func)
                self.getters_code.append(func.__code__)
                return
        if kind is type:  # a class: none of the three names in its MRO's namespaces (nor in ``type``'s)
            mro = _MRO(obj)
            spaces = _spaces(obj)
            if not any(name in space for space in spaces for name in _DESCRIBING):
                self.cls(obj, mro)  # type: ignore[arg-type]
                for space in spaces:
                    for name in _DESCRIBING:
                        self.not_in.append(_view(space))
                        self.not_attr.append(name)
                return
        self.slow.append(lambda: _description(obj) == text)

    def _function(self, func: object) -> bool:
        """Vouch for a function by its code and its own dict: an exact dict, empty or without the
        names a description reads from it."""
        own = func.__dict__  # type: ignore[attr-defined]
        if type(own) is not dict:
            return False
        if not own:
            self.funcs.append(func)
            self.funcs_code.append(func.__code__)  # type: ignore[attr-defined]
        elif "fget" not in own and "__func__" not in own:
            self.attributed.append(func)
            self.attributed_code.append(func.__code__)  # type: ignore[attr-defined]
        else:
            return False
        return True

    def _found(self) -> bool:
        try:  # a view's item, not its ``get`` (which calls the dict's ``get`` method by name)
            return all(map(is_, map(getitem, self.found_in, self.found_attr), self.objs))
        except KeyError:  # a name gone
            return False

    def unchanged(self) -> bool:
        """Whether a full fingerprint now would read what this one did (see the class)."""
        wrapped = list(map(_DICT, self.wrapped))
        funcs = list(map(_DICT, self.funcs))
        attributed = list(map(_DICT, self.attributed))
        return (
            all(map(is_, map(sys.modules.get, self.names), self.modules))
            and all(map(is_, map(type, self.owners), self.owner_types))
            and all(map(is_, map(_MRO, self.classes), self.mros))
            and not any(map(contains, self.not_in, self.not_attr))
            and self._found()
            and all(map(is_, map(_CODE, self.funcs), self.funcs_code))
            and all(map(is_, map(type, funcs), repeat(dict)))
            and not any(funcs)
            and all(map(is_, map(_CODE, self.attributed), self.attributed_code))
            and all(map(is_, map(type, attributed), repeat(dict)))
            and not any(map(dict.__contains__, attributed, repeat("fget")))
            and not any(map(dict.__contains__, attributed, repeat("__func__")))
            and all(map(is_, map(_CODE, self.getters), self.getters_code))
            and all(map(is_, map(type, wrapped), repeat(dict)))
            and not any(map(dict.__contains__, wrapped, repeat("__code__")))
            and not any(map(dict.__contains__, wrapped, repeat("fget")))
            and all(check() for check in self.slow)
        )


_HELD: list = [None]
"""The last full fingerprint's plan, prints and watched paths (``None``: none that a plan can vouch
for). A test process inherits its worker's."""


def test_code(item: object) -> str:
    """The hash of a collected test function's code: taken at collection and again after the test,
    so a ``__code__`` swapped in between (by a thread, by an import) shows."""
    code = getattr(getattr(item, "obj", None), "__code__", None)
    return _memo_hash(code) if isinstance(code, types.CodeType) else ""


_LAST_DIGEST: list = [None, ""]
"""The last prints digested and their digest (a test process's prints are most often its worker's)."""


def digest(prints: dict[str, str]) -> str:
    if _LAST_DIGEST[0] == prints:
        return _LAST_DIGEST[1]
    text = hashlib.sha256(repr(sorted(prints.items())).encode()).hexdigest()
    _LAST_DIGEST[:] = [dict(prints), text]
    return text


def changed(baseline: dict[str, str], now: dict[str, str]) -> list[str]:
    if now == baseline:  # the usual case, compared in C
        return []
    return sorted(k for k in baseline.keys() | now.keys() if baseline.get(k) != now.get(k))


def foreign_plugins(pluginmanager: object, trusted_roots: list[str]) -> list[str]:
    """Registered pytest plugins whose code lives outside the engine and the challenge's tests."""
    foreign = []
    for plugin in pluginmanager.get_plugins():  # type: ignore[attr-defined]
        module = plugin if isinstance(plugin, types.ModuleType) else sys.modules.get(type(plugin).__module__)
        file = getattr(module, "__file__", None)
        if file is None and getattr(module, "__name__", "") in sys.builtin_module_names:
            continue
        path = os.path.realpath(file) if file else f"<no file: {getattr(module, '__name__', '?')}>"
        if not any(path.startswith(root) for root in trusted_roots):
            foreign.append(path)
    return sorted(set(foreign))
