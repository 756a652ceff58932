"""Observations: what an externalised assertion sends out of the test process instead of deciding.

The host rewrites every test file before the run (``bouts.runner._externalise``): an assertion's
expected side and its comparison are removed, and what is left is a call into this module with the
values the assertion was about. This module turns each value into *plain data* (an encoding built
by exact type checks, never by calling the value's ``__eq__``) and keeps it, in order, for the
test's report. The host decides. Nothing here is trusted: code in the test process can replace
any of it, and gains nothing, because the expected values are not in this process.

Encoding (JSON-able): ``None``/``bool``/``int``/``str``/finite ``float`` as themselves, ``list``
as a list, and tagged objects for the rest: ``$t`` tuple, ``$d`` dict (pairs, insertion order),
``$s``/``$fs`` set/frozenset, ``$b`` bytes, ``$f`` a non-finite float, ``$dec`` Decimal, ``$fr``
Fraction, ``$c`` complex, ``$std`` a known stdlib value by its repr, ``$o`` any other object (the
names of its classes, its instance state, its truthiness), ``$sub`` a subclass of a plain type
that overrides comparison (an always-equal object: never equal to anything), ``$raise`` an
exception a checked call raised, ``$h`` the digest of an encoding too large to send.
"""

from __future__ import annotations

import datetime
import decimal
import fractions
import hashlib
import json
import math
import pathlib
import uuid

MAX_DEPTH = 60
MAX_ITEMS = 100_000
"""Elements encoded per observation (a bigger value is cut and marked: never equal to anything)."""
MAX_TEXT = 64 * 1024
"""An encoding longer than this is sent as its digest (equality still decidable on the host)."""
MAX_OCCURRENCES = 50_000
"""Assertion executions recorded per test; past it the test reports an overflow (it fails)."""

_PLAIN = (list, tuple, dict, set, frozenset, str, bytes, int, float)
_CMP = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__")
_STD = (datetime.datetime, datetime.date, datetime.time, datetime.timedelta, uuid.UUID,
        pathlib.PurePosixPath, pathlib.PosixPath, pathlib.PurePath, pathlib.Path)  # fmt: skip

occurrences: list[list] = []
"""``[site, {slot: encoding}]`` per assertion executed in this test, in order."""
overflow = False
subclass_objects: list[str] = []
"""Classes of comparison-forging objects seen (subclasses of plain types overriding ``__eq__``)."""


def reset() -> None:
    global overflow
    occurrences.clear()
    subclass_objects.clear()
    overflow = False


def names(kind: type) -> list[str]:
    return [f"{c.__module__}.{c.__qualname__}" for c in type.__getattribute__(kind, "__mro__")][:20]


class _Budget:
    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = MAX_ITEMS


def _plain_base(kind: type) -> type | None:
    """The plain type a subclass behaves as, if it overrides none of the comparison methods."""
    for base in _PLAIN:
        if issubclass(kind, base):
            if all(getattr(kind, m, None) is getattr(base, m, None) for m in _CMP):
                return base
            return None
    return None


def encode(value: object, depth: int = 0, budget: _Budget | None = None) -> object:
    """Plain data for ``value``, decided by exact types (see the module docstring)."""
    budget = budget or _Budget()
    budget.left -= 1
    if depth > MAX_DEPTH or budget.left < 0:
        return {"$cut": True}
    kind = type(value)
    if value is None or kind is bool or kind is int or kind is str:
        return value
    if kind is float:
        return value if math.isfinite(value) else {"$f": repr(value)}  # type: ignore[arg-type]
    if kind is list:
        return [encode(v, depth + 1, budget) for v in list.__iter__(value)]  # type: ignore[arg-type]
    if kind is tuple:
        return {"$t": [encode(v, depth + 1, budget) for v in tuple.__iter__(value)]}  # type: ignore[arg-type]
    if kind is dict:
        return {"$d": [[encode(k, depth + 1, budget), encode(v, depth + 1, budget)]
                       for k, v in dict.items(value)]}  # type: ignore[arg-type]  # fmt: skip
    if kind is set or kind is frozenset:
        tag = "$s" if kind is set else "$fs"
        items = [encode(v, depth + 1, budget) for v in kind.__iter__(value)]  # type: ignore[attr-defined]
        return {tag: sorted(items, key=_sort_key)}
    if kind is bytes or kind is bytearray:
        return {"$b": bytes(value).hex()}  # type: ignore[arg-type]
    if kind is decimal.Decimal:
        return {"$dec": decimal.Decimal.__str__(value)}  # type: ignore[arg-type]
    if kind is fractions.Fraction:
        return {"$fr": [value.numerator, value.denominator]}  # type: ignore[union-attr]
    if kind is complex:
        return {"$c": [encode(value.real), encode(value.imag)]}  # type: ignore[union-attr]
    if kind in _STD:
        return {"$std": kind.__qualname__, "r": kind.__repr__(value)}
    if _is_enum(kind):  # IntEnum, StrEnum and plain Enum members: class names and value
        return _opaque(value, kind, depth, budget)
    base = _plain_base(kind)
    if base is not None:  # e.g. a namedtuple, an OrderedDict, a Counter
        if base is dict:
            return encode(dict(dict.items(value)), depth, budget)  # type: ignore[arg-type]
        if base in (list, tuple, set, frozenset):
            return encode(base(base.__iter__(value)), depth, budget)  # type: ignore[attr-defined]
        plain = {str: str.__str__, int: int.__index__, float: float.__float__, bytes: bytes}[base](value)  # type: ignore[index,operator]
        return encode(plain, depth, budget)
    if any(issubclass(kind, b) for b in _PLAIN):
        subclass_objects.append(names(kind)[0])
        return {"$sub": names(kind)}
    return _opaque(value, kind, depth, budget)


def _is_enum(kind: type) -> bool:
    return any(n in ("enum.Enum", "enum.Flag") for n in names(kind))


def _opaque(value: object, kind: type, depth: int, budget: _Budget) -> object:
    out: dict[str, object] = {"$o": names(kind)}
    if _is_enum(kind):
        out["v"] = encode(getattr(value, "_value_", None), depth + 1, budget)
        return out
    if isinstance(value, BaseException):
        out["a"] = encode(BaseException.__getattribute__(value, "args"), depth + 1, budget)
        return out
    state: dict[str, object] = {}
    try:
        d = object.__getattribute__(value, "__dict__")
    except Exception:  # noqa: BLE001 (no instance dict: slots or a builtin)
        d = None
    if type(d) is dict:
        state = {k: v for k, v in dict.items(d) if type(k) is str}
    for klass in type.__getattribute__(kind, "__mro__"):
        for slot in klass.__dict__.get("__slots__", ()) if type(klass.__dict__.get("__slots__", ())) is tuple else ():
            try:
                state[slot] = object.__getattribute__(value, slot)
            except Exception:  # noqa: BLE001, S112 (an unset slot)
                continue
    out["a"] = encode(state, depth + 1, budget) if state else None
    try:
        out["?"] = bool(value)
    except Exception:  # noqa: BLE001 (a __bool__ that raises: no truthiness)
        out["?"] = None
    return out


def _sort_key(item: object) -> str:
    return json.dumps(item, sort_keys=True, default=str)


def _sized(enc: object) -> object:
    text = json.dumps(enc, separators=(",", ":"))
    if len(text) <= MAX_TEXT:
        return enc
    return {"$h": hashlib.sha256(text.encode()).hexdigest()}


def raised(exc: BaseException) -> dict:
    try:
        message = str(exc)[:500]
    except Exception:  # noqa: BLE001 (a __str__ that raises)
        message = ""
    return {"$raise": names(type(exc)), "m": message}


def _record(site: int, slots: dict) -> None:
    global overflow
    if len(occurrences) >= MAX_OCCURRENCES:
        overflow = True
        return
    occurrences.append([site, slots])


def _enc(value: object) -> object:
    try:
        return _sized(encode(value))
    except RecursionError:
        return {"$cut": True}


# -- what rewritten test files call --------------------------------------------------------------


def obs(site: int, *thunks) -> object:  # noqa: ANN002
    """An externalised assertion, or a plain call of the submission (the same path, so the callee
    cannot tell them apart): evaluate each observed operand, record it, hand back the last value
    (``None`` if it raised); decide nothing."""
    slots: dict[str, object] = {}
    value = None
    for i, thunk in enumerate(thunks):
        try:
            value = thunk()
            slots[str(i)] = _enc(value)
        except Exception as exc:  # noqa: BLE001 (a raised exception is an observation)
            value = None
            slots[str(i)] = raised(exc)
    _record(site, slots)
    return value


def gobs(site: int, thunk) -> object:  # noqa: ANN001
    """The golden run's plain call: recorded after the call, as :func:`obs` does (the assertions of
    a helper it runs come first), but an exception propagates as it did in the test."""
    value = thunk()
    _record(site, {"0": _enc(value)})
    return value


def open(site: int) -> None:  # noqa: A001 (the name reads well in rewritten files)
    """Start an occurrence of an assertion evaluated in place (see :func:`atom`)."""
    _record(site, {})


def atom(slot: int, value: object) -> object:
    """Record ``value`` in the current occurrence and hand it back unchanged."""
    if occurrences:
        occurrences[-1][1][str(slot)] = _enc(value)
    return value


class block:  # noqa: N801 (used as a context manager in rewritten files)
    """``with block(site):`` stands where ``with pytest.raises(...):`` stood: it records whether
    the body raised (and what) and, when ``suppress``, swallows it so the test goes on."""

    def __init__(self, site: int, suppress: bool = True) -> None:
        self.site, self.suppress = site, suppress
        self.value: BaseException | None = None
        self.type: type | None = None

    def __enter__(self) -> block:
        _record(self.site, {})
        self._slot = occurrences[-1][1] if occurrences else {}
        return self

    def __exit__(self, et, ev, tb) -> bool:  # noqa: ANN001
        if ev is None:
            self._slot["0"] = {"$ret": True}
            return False
        self.value, self.type = ev, et
        self._slot["0"] = raised(ev)
        return self.suppress and isinstance(ev, Exception)


def gblock(site: int) -> block:
    """The golden run's :class:`block`: records, never swallows (``pytest.raises`` outside it does)."""
    return block(site, suppress=False)
