"""Runtime of the reference-oracle tests, embedded after ``_runtime.py`` in their generated file.

It runs INSIDE the sandbox, once against the reference solution and once against the submission,
and decides nothing: for each call it records, through the ``bouts_expect`` fixture, the digest of
what happened (returned, raised a deliberate error of some class, crashed, ran out of CPU time)
and the digest of the value returned. The host compares the two runs' digests
(``bouts.adversarial._oracle.decide``); the reference's values never enter the submission's
sandbox. See docs/adversarial.md, "The reference oracle".
"""

import copy
import dataclasses
import datetime
import decimal
import enum
import fractions
import signal

ORACLE_CPU_S = 2.0
"""CPU seconds one call may use (CPU, not wall time: a loaded machine does not time it out)."""


class _OverBudget(BaseException):
    """Raised by the CPU timer inside a call that used up its budget."""


def _on_prof(signum, frame):
    raise _OverBudget()


def plain(value, depth=0):
    """Plain data for ``value`` that two implementations agree on when their results compare
    equal: exact types, dicts and sets in a canonical order, numbers with ``2.0`` as ``2`` and
    floats to 6 significant digits (differently ordered float arithmetic is not a wrong answer),
    objects by class name and public state."""
    if depth > 50:
        return "<nested too deeply>"
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if isinstance(value, enum.Enum):
        return {"enum": kind.__qualname__, "value": plain(value.value, depth + 1)}
    if kind is int or kind is float or isinstance(value, int | float) and not isinstance(value, bool):
        return _number(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, list):
        return [plain(v, depth + 1) for v in value]
    if isinstance(value, tuple):
        return {"tuple": [plain(v, depth + 1) for v in value]}
    if isinstance(value, set | frozenset):
        return {"set": sorted((plain(v, depth + 1) for v in value), key=repr)}
    if isinstance(value, dict):
        return {"dict": sorted(([plain(k, depth + 1), plain(v, depth + 1)] for k, v in value.items()), key=repr)}
    if isinstance(value, bytes | bytearray):
        return {"bytes": bytes(value).hex()}
    # Values with no public state of their own (no ``__dict__``): by value, or every Decimal would
    # be equal to every other (a wrong valuation was never caught).
    if isinstance(value, decimal.Decimal):
        return {"decimal": str(value.normalize()) if value.is_finite() else str(value)}
    if isinstance(value, fractions.Fraction):
        return {"fraction": [value.numerator, value.denominator]}
    if isinstance(value, complex):
        return {"complex": [_number(value.real), _number(value.imag)]}
    if isinstance(value, datetime.date | datetime.time | datetime.timedelta | datetime.tzinfo):
        return {kind.__qualname__: str(value)}
    if dataclasses.is_dataclass(value):
        state = {f.name: getattr(value, f.name, None) for f in dataclasses.fields(value)}
    else:
        state = {k: v for k, v in getattr(value, "__dict__", {}).items() if not k.startswith("_")}
        for klass in kind.__mro__:  # and the public slots of a class without a __dict__
            slots = klass.__dict__.get("__slots__", ())
            for name in (slots,) if isinstance(slots, str) else slots:
                if not name.startswith("_") and name not in state and hasattr(value, name):
                    state[name] = getattr(value, name)
    return {"object": kind.__qualname__, "state": plain(state, depth + 1)}


def _number(value):
    value = float(value) if not isinstance(value, int) else int(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return repr(value)
        if abs(value) < 1e-9:
            return 0
        value = float(f"{value:.6g}")
        if value.is_integer() and abs(value) < 2**53:
            return int(value)
    return value


def _observe(module, qualname, ctor, setup, kwargs, cpu_s, holder=None):
    try:
        fn = build(module, qualname, ctor or {}, setup)  # noqa: F821 (_runtime.py, embedded before this)
    except Exception as exc:
        return f"unbuildable {type(exc).__name__}", None
    if holder is not None:
        holder["self"] = getattr(fn, "__self__", None)
    signal.setitimer(signal.ITIMER_PROF, cpu_s)
    try:
        result = fn(**copy.deepcopy(kwargs))
        signal.setitimer(signal.ITIMER_PROF, 0)
        return "ok", plain(result)
    except _OverBudget:
        return "timeout", None
    except BaseException as exc:  # noqa: BLE001 (every way a call can end is an observation)
        signal.setitimer(signal.ITIMER_PROF, 0)
        why = ungraceful(exc) if isinstance(exc, Exception) else "not an Exception"  # noqa: F821
        if why is not None:
            return "crash " + type(exc).__name__, None
        return "raise " + _builtin(type(exc)), None
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)


def _builtin(kind):
    """The nearest built-in class of a deliberate error (``InvalidInput(ValueError)`` → ``ValueError``):
    the kind of rejection, which is what a challenge's contract names; each solution's own subclass
    of it is its own business (a plain ValueError where the reference raises its subclass, or the
    other way round, was counted as a wrong rejection)."""
    for klass in kind.__mro__:
        if klass.__module__ == "builtins":
            return klass.__name__
    return kind.__name__


def oracle(expect, module, qualname, calls, ctor=None, setup=(), cpu_s=ORACLE_CPU_S):
    """Call ``module.qualname`` with each of ``calls`` (a fresh object each time for a method);
    record two digests per call: how it ended (``ok``, ``raise X``, ``crash X``, ``timeout``)
    and the value it returned."""
    old = signal.signal(signal.SIGPROF, _on_prof)
    try:
        for kwargs in calls:
            label, value = _observe(module, qualname, ctor, setup, kwargs, cpu_s)
            expect(label)
            expect(value)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


def probe(expect, module, qualname, calls, ctor=None, setup=(), observers=(), twice=False, cpu_s=ORACLE_CPU_S):
    """The submission-derived tests (``_probe``): each of ``calls`` on a fresh object, then each of
    ``observers`` (the object's public query methods, no arguments) read after it, so the state a
    call leaves behind is recorded too; with ``twice``, the whole call again on another fresh
    object (the host compares the two: same input, same ending, same values, no state shared
    between instances). Per call and run: the ending and value of the call, then of each observer."""
    old = signal.signal(signal.SIGPROF, _on_prof)
    try:
        for kwargs in calls:
            for _ in range(2 if twice else 1):
                holder = {}
                label, value = _observe(module, qualname, ctor, setup, kwargs, cpu_s, holder)
                expect(label)
                expect(value)
                for name in observers:
                    seen = _observe_method(holder.get("self"), name, cpu_s)
                    expect(seen[0])
                    expect(seen[1])
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


def _observe_method(obj, name, cpu_s):
    if obj is None:
        return "unbuildable NoObject", None
    signal.setitimer(signal.ITIMER_PROF, cpu_s)
    try:
        result = getattr(obj, name)()
        signal.setitimer(signal.ITIMER_PROF, 0)
        return "ok", plain(result)
    except _OverBudget:
        return "timeout", None
    except BaseException as exc:  # noqa: BLE001 (every way a call can end is an observation)
        signal.setitimer(signal.ITIMER_PROF, 0)
        why = ungraceful(exc) if isinstance(exc, Exception) else "not an Exception"  # noqa: F821
        return ("crash " if why is not None else "raise ") + (type(exc).__name__ if why else _builtin(type(exc))), None
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
