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


def _spaces(owner: object) -> list:
    """Where ``owner``'s attributes are read: the class dicts of its MRO (a property or function as
    defined), or its own dict. Only a class has an MRO, read from type's own slot: a module (or any
    object) given an attribute named ``__mro__`` must not point the lookup at a decoy's namespace."""
    if not isinstance(owner, type):
        return [vars(owner) if hasattr(owner, "__dict__") else {}]
    mro = _TYPE_MRO.__get__(owner, type)
    hit = _SPACES.get(id(owner))
    if hit is not None and hit[0] is owner and hit[1] is mro:
        return hit[2]
    spaces = [vars(k) if hasattr(k, "__dict__") else {} for k in mro]
    _SPACES[id(owner)] = (owner, mro, spaces)
    return spaces


def _lookup(owner: object, spaces: list, attr: str) -> object:
    for space in spaces:
        if attr in space:
            return space[attr]
    return getattr(owner, attr, None)


def _walk(owner: object, node: _Node, prints: dict[str, str]) -> None:
    """Describe every path of ``node`` under ``owner`` (None: absent, and all below it) into ``prints``."""
    spaces = None if owner is None else _spaces(owner)
    for attr, (path, kids) in node.items():
        obj = None if spaces is None else _lookup(owner, spaces, attr)
        if path is not None:
            prints[path] = _describe(obj)
        if kids:
            _walk(obj, kids, prints)


def _resolve(path: str) -> object:
    """The object ``path`` (``module:attr.attr``) names now, or None."""
    module, _, attrs = path.partition(":")
    obj: object = sys.modules.get(module)
    for attr in attrs.split("."):
        if obj is None:
            return None
        obj = _lookup(obj, _spaces(obj), attr)
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


def _describe(obj: object) -> str:
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
    prints: dict[str, str] = {}
    for module, node in _tree(tuple(WATCHED)).items():
        _walk(sys.modules.get(module), node, prints)
    case = _resolve("unittest.case:TestCase")
    spaces = None if case is None else _spaces(case)
    for name, key in _unittest_asserts():
        prints[key] = _describe(None if spaces is None else _lookup(case, spaces, name))
    prints["sys.settrace"] = "set" if sys.gettrace() is not None else "none"
    prints["sys.setprofile"] = "set" if sys.getprofile() is not None else "none"
    prints["threading.settrace"] = "set" if getattr(threading, "_trace_hook", None) else "none"
    return prints


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
