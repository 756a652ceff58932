"""Runtime of the generated adversarial tests, embedded verbatim at the top of every generated file.

It runs INSIDE the sandbox, next to the submission's code, never in the engine's process. It
must stay self-contained (standard library and pytest only): the generated files have nothing else
to import. The hypothesis part (fuzzing, value pairs) is ``_runtime_fuzz.py``, embedded after this
only in the files whose tests draw values (``_generate``): the reference-oracle file needs none of
it, and importing hypothesis and validating its strategies was about 0.2 core-seconds of every
sample's generated-tests session (docs/benchmarks.md). The graceful-failure rule it applies is
written down in ``docs/adversarial.md``.
"""

import ast
import contextlib
import functools
import importlib
import math
import os
import sys
import threading
import time

# The generated file lives at <root>/tests/generated/test_*.py; <root> holds the submission.
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_TESTS = os.path.join(_ROOT, "tests")
_VALIDATION_ERRORS = (ValueError, TypeError, KeyError)


def _in_submission(filename):
    path = os.path.abspath(filename)
    return path.startswith(_ROOT + os.sep) and not path.startswith(_TESTS + os.sep)


@functools.cache
def _raise_lines(filename):
    try:
        with open(filename, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, ValueError):
        return frozenset()
    raises = [n for n in ast.walk(tree) if isinstance(n, ast.Raise)]
    return frozenset(line for n in raises for line in range(n.lineno, (n.end_lineno or n.lineno) + 1))


def _defined_in_submission(exc_type):
    module = sys.modules.get(exc_type.__module__)
    return module is not None and _in_submission(getattr(module, "__file__", None) or "/")


def ungraceful(exc):
    """None when ``exc`` is a deliberate validation error of the submission, else why it is not.

    Deliberate: the traceback's last frame is in the submission's code, on a ``raise``
    statement, and the type is defined by the submission or is ValueError/TypeError/KeyError.
    """
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    name = type(exc).__name__
    if tb is None:
        return f"{name} without a traceback"
    filename, line = tb.tb_frame.f_code.co_filename, tb.tb_lineno
    where = f"{os.path.relpath(filename, _ROOT) if _in_submission(filename) else filename}:{line}"
    if not _in_submission(filename):
        return f"{name}: {exc!s:.200} raised outside the submission's code ({where})"
    if line not in _raise_lines(filename):
        return f"{name}: {exc!s:.200} raised from inside an operation at {where}, not by a raise statement"
    if not (_defined_in_submission(type(exc)) or type(exc) in _VALIDATION_ERRORS):
        return f"{name} raised at {where} is not a validation error (ValueError/TypeError/KeyError or its own)"
    return None


def build(module, qualname, ctor, setup, widen=()):
    """The callable ``module.qualname``; for a method, bound to a fresh object put through ``setup``."""
    mod = importlib.import_module(module)
    if "." not in qualname:
        return getattr(mod, qualname)
    cls_name, method = qualname.split(".", 1)
    cls = getattr(mod, cls_name)
    if widen:
        cls = _widened(cls, widen)
    obj = cls(**ctor)
    for name, kwargs in setup:
        # Warm-up only: a refused setup call is not what this test probes.
        with contextlib.suppress(Exception):
            getattr(obj, name)(**kwargs)
    return getattr(obj, method)


def _widened(cls, attrs):
    """A subclass whose reads of ``attrs`` hand the GIL to another thread right after reading,
    widening the window of an unlocked read-modify-write (a lock held around it still protects)."""
    names = set(attrs) | {f"_{cls.__name__.lstrip('_')}{a}" for a in attrs if a.startswith("__")}
    base_get = cls.__getattribute__

    def __getattribute__(self, name):
        value = base_get(self, name)
        if name in names:
            time.sleep(0)
        return value

    try:
        return type(cls.__name__, (cls,), {"__getattribute__": __getattribute__, "__module__": cls.__module__})
    except TypeError:  # a final class: hammer it as it is
        return cls


def outcome(fn, kwargs):
    """``("ok", result)`` or ``("error", type name)`` for a graceful error; fails the test otherwise."""
    try:
        return "ok", fn(**kwargs)
    except Exception as exc:
        why = ungraceful(exc)
        if why is not None:
            shown = ", ".join(f"{k}={v!r:.60}" for k, v in kwargs.items())
            raise AssertionError(f"{why}; called with ({shown})") from None
        return "error", type(exc).__name__


def probe(module, qualname, kwargs, ctor=None, setup=()):
    """Fuzz one call: a result or a graceful error passes, anything else fails."""
    outcome(build(module, qualname, ctor or {}, setup), kwargs)


def _comparable(result):
    kind, value = result
    if kind == "ok" and (value is None or isinstance(value, bool | int | float)):
        return kind, value
    return kind, type(value).__name__


def same(module, qualname, first, second, why, ctor=None, setup=()):
    """Two inputs that mean the same must behave the same (result, or graceful error type)."""
    a = _comparable(outcome(build(module, qualname, ctor or {}, setup), first))
    b = _comparable(outcome(build(module, qualname, ctor or {}, setup), second))
    assert a == b, f"{qualname}({first}) -> {a} but {qualname}({second}) -> {b}, although {why}"


def race(module, qualname, kwargs, attrs, ctor=None, setup=(), threads=8, calls=150):
    """Hammer a method from several threads; the touched attributes must end as after the same
    number of calls made one by one (no lost update), and no call may fail ungracefully."""
    sequential = build(module, qualname, ctor or {}, setup)
    for _ in range(threads * calls):
        outcome(sequential, kwargs)
    expected = {a: _read(sequential.__self__, a) for a in attrs}
    method = build(module, qualname, ctor or {}, setup, widen=attrs)
    barrier, errors = threading.Barrier(threads), []

    def work():
        barrier.wait()
        for _ in range(calls):
            try:
                outcome(method, kwargs)
            except AssertionError as exc:
                errors.append(str(exc))

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        pool = [threading.Thread(target=work) for _ in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors, errors[0]
    got = {a: _read(method.__self__, a) for a in attrs}
    assert got == expected, f"lost update: threads gave {got!r:.200}, one by one {expected!r:.200}"


def _read(obj, attr):
    if attr.startswith("__") and not hasattr(obj, attr):
        attr = f"_{type(obj).__mro__[-2].__name__.lstrip('_')}{attr}"
    return object.__getattribute__(obj, attr)


def ranked(a, b):
    """The same two versions renumbered to single digits: numeric order kept, text order = numeric."""
    rank = {v: i for i, v in enumerate(sorted(set(a) | set(b)))}
    return [rank[v] for v in a], [rank[v] for v in b]


def dotted(parts):
    return ".".join(str(p) for p in parts)


def bumped(literal, index, by):
    """``literal`` (a version) with component ``index`` raised by ``by``."""
    parts = [int(p) for p in literal.lstrip("v").split(".")]
    parts[index % len(parts)] += by
    return ("v" if literal.startswith("v") else "") + dotted(parts)


def near(x):
    """The float right next to ``x``: the same quantity up to rounding."""
    return math.nextafter(x, math.inf)
