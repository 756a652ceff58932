"""The host's verdict on a ``node:test`` test from its observations (pure).

The test process reports, per executed site of its file (``_externalise``), one entry
``[site, field, value]``: ``v`` (the observed operands, encoded by ``jslib/observe.mjs``), ``raise``
(the site's call raised), ``threw``/``returned`` (``assert.throws``/``rejects``), ``end`` (the
test's body returned), or site ``-1`` ``overflow``. Every value is the test process's to shape, so
nothing here trusts it: a value that is not what the encoder writes compares equal to nothing.

- :func:`check_inline` (the reference's golden run, runs without a reference, generated tests):
  the runtime ran each original assertion with node's own functions; the test holds when no site
  raised and its end was reached (once).
- :func:`check_external` (graded runs with a reference): the test executed exactly the reference's
  sequence of sites, ending where the reference's ended, and every site holds: ``eq`` and
  ``paired`` operands equal the reference's values for the same occurrence; ``ne`` operands differ;
  ``ok`` is truthy; ``cmp`` (``assert.ok(L < R)``) compares numbers or strings on the host;
  ``iferror`` is null or undefined; ``throws`` raised, an error of the
  reference's classes; ``plain`` did not raise; ``fail`` never holds.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from bouts.runner.js._externalise import Site

Entry = tuple[int, str, object]
_UNEQUAL = frozenset({"$get", "$proxy", "$cut", "$cycle", "$fn", "$promise", "$sym", "$hole_bad"})
_FIELDS = frozenset({"v", "raise", "threw", "returned", "end", "overflow"})


def entries(occurrences: Sequence[object]) -> list[Entry] | None:
    """The occurrences as ``(site, field, value)``; None if any entry is malformed."""
    out: list[Entry] = []
    for occ in occurrences:
        if not isinstance(occ, list | tuple) or len(occ) != 3:
            return None
        site, what, value = occ
        if type(site) is not int or what not in _FIELDS:
            return None
        out.append((site, what, value))
    return out


def check_inline(occurrences: Sequence[object], sites: Mapping[int, Site], *, needs_end: bool = True) -> str | None:
    """Why a test checked in its own process does not hold, or None when it does (``needs_end``:
    every test function of the file reports its end)."""
    got = entries(occurrences)
    if got is None:
        return "malformed observations"
    if any(what in ("raise", "overflow") for _, what, _ in got):
        return "an assertion or a call of the test raised"
    # Present, not necessarily last: a test function that returns a promise (not async) reaches its
    # end before the callbacks of that promise observe anything.
    ends = [site for site, what, _ in got if what == "end"]
    if needs_end and (len(ends) != 1 or sites.get(ends[0], Site("", 0)).kind != "end"):
        return "the test did not reach its end"
    return None


def check_external(
    occurrences: Sequence[object], golden: Sequence[object], sites: Mapping[int, Site]
) -> str | None:  # fmt: skip
    """Why a graded test does not hold against the reference's run of it, or None when it does."""
    got, want = entries(occurrences), entries(golden)
    if got is None or want is None:
        return "malformed observations"
    if [(s, w) for s, w, _ in got] != [(s, w) for s, w, _ in want]:
        for i, ((s1, w1, _), (s2, w2, _)) in enumerate(zip(got, want, strict=False)):
            if (s1, w1) != (s2, w2):
                return f"diverged from the reference at observation {i + 1}: {_what(s1, w1, sites)}, expected {_what(s2, w2, sites)}"  # noqa: E501
        return f"{len(got)} observations where the reference made {len(want)}"
    # A test whose end is observed ends with it in the reference's run too (the sequences are equal);
    # one that is not (a `done` callback, a table of tests) is held to its sequence.
    if (not got or got[-1][1] != "end") and (not want or want[-1][1] == "end"):
        return "the test did not reach its end"
    for (site, what, value), (_, _, gold) in zip(got, want, strict=True):
        info = sites.get(site)
        if info is None:
            return f"an observation of an unknown site {site}"
        why = _hold(info, what, value, gold)
        if why is not None:
            return f"line {info.line}: {why}"
    return None


def _what(site: int, what: str, sites: Mapping[int, Site]) -> str:
    info = sites.get(site)
    return f"{what} at line {info.line}" if info is not None else f"{what} at site {site}"


def _hold(site: Site, what: str, value: object, gold: object) -> str | None:
    if what == "end":
        return None if site.kind == "end" else "malformed observation"
    if site.kind == "nothrow":
        return None if what == "returned" else "the call raised"
    if what == "returned":
        return "the call did not raise"
    if what == "threw":
        return None if _classes(value) is not None and _classes(value) == _classes(gold) else (
            "raised an error of another class than the reference's")  # fmt: skip
    if what != "v" or not isinstance(value, list):
        return "the call raised" if what == "raise" else "malformed observation"
    kind = site.kind
    if kind in ("eq", "paired"):
        if not isinstance(gold, list) or len(gold) != len(value):
            return "malformed observation"
        for a, b in zip(value, gold, strict=True):
            if not equal(a, b):
                return f"got {_short(a)}, the reference's value is {_short(b)}"
        return None
    if kind == "ne":
        differ = len(value) == 2 and not equal(value[0], value[1]) and comparable(value[0])
        return None if differ else "values are equal"
    if kind == "cmp":
        return _compare(site, value)
    if kind == "ok":
        return None if len(value) == 1 and truthy(value[0]) else f"not truthy: {_short(value[0] if value else None)}"
    if kind == "iferror":
        return None if len(value) == 1 and (value[0] is None or value[0] == {"$u": 1}) else "an error value"
    if kind == "pred":
        holds = len(value) == 1 and _predicate(site.method, value[0])
        return None if holds != (site.op == "not") else f"{site.method}{' (negated)' if site.op else ''} does not hold for {_short(value[0] if value else None)}"  # noqa: E501
    if kind == "length":
        return _measure(site, value, lambda got, n: _length(got) == n, "length")
    if kind == "close":
        return _measure(site, value, _close, "closeness")
    if kind == "instance":
        if not isinstance(gold, list) or len(gold) != 1 or len(value) != 1:
            return "malformed observation"
        return None if _shape(value[0]) == _shape(gold[0]) is not None else "an instance of another class than the reference's"  # noqa: E501
    if kind == "fail":
        return "assert.fail() was reached"
    if kind == "plain":
        return None
    return "unknown site kind"


def _compare(site: Site, observed: list[object]) -> str | None:
    """``L op R`` on the host: numbers with numbers, strings with strings, nothing else (a value that
    is not a number or a string — an object that converts itself — holds no comparison)."""
    consts = dict(site.consts)
    values = iter(observed)
    try:
        left, right = (consts[i] if i in consts else next(values) for i in (0, 1))
    except StopIteration:
        return "malformed observation"
    a, b = _number(left), _number(right)
    if a is not None and b is not None:
        pass
    elif isinstance(left, str) and isinstance(right, str):
        a, b = left.encode("utf-16-be"), right.encode("utf-16-be")  # JavaScript compares code units
    else:
        return f"cannot compare {_short(left)} {site.op} {_short(right)}"
    ops = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}  # type: ignore[operator]
    return None if ops.get(site.op, False) else f"{_short(left)} {site.op} {_short(right)} does not hold"


def _predicate(matcher: str, value: object) -> bool:
    """vitest's/jest's one-value matchers on an encoded value."""
    if matcher == "toBeTruthy":
        return truthy(value)
    if matcher == "toBeFalsy":
        return not truthy(value)
    if matcher == "toBeNull":
        return value is None
    if matcher == "toBeUndefined":
        return value == {"$u": 1}
    if matcher == "toBeDefined":
        return value != {"$u": 1}
    if matcher == "toBeNaN":
        return value == {"$n": "NaN"}
    return False


def _measure(site: Site, observed: list[object], holds: object, what: str) -> str | None:
    """``toHaveLength(n)``/``toBeCloseTo(n, digits)``: the subject and its arguments (literals kept
    on the host) through ``holds(subject, *args)``."""
    consts = dict(site.consts)
    values = iter(observed)
    try:
        operands = [consts[i] if i in consts else next(values) for i in range(len(observed) + len(consts))]
    except StopIteration:
        return "malformed observation"
    try:
        ok = callable(holds) and bool(holds(*operands))
    except (TypeError, ValueError, OverflowError):
        ok = False
    return None if ok else f"{site.method} does not hold: {_short(operands)}"


def _length(value: object) -> int | None:
    if isinstance(value, list):
        return len(value)
    if isinstance(value, str):
        return len(value.encode("utf-16-le")) // 2  # JavaScript counts code units
    return None


def _close(value: object, expected: object, digits: object = 2) -> bool:
    a, b, d = _number(value), _number(expected), _number(digits)
    if a is None or b is None or d is None or a != a or b != b:
        return False
    if a == b:
        return True
    return abs(a - b) < 10 ** (-d) / 2


def _shape(value: object) -> object:
    """What ``toBeInstanceOf`` can tell of an encoded value: its constructor names, or its kind."""
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        if "names" in value and isinstance(value["names"], list):
            return tuple(str(n) for n in value["names"])
        if "$o" in value:
            return "object"
    return None


def _number(value: object) -> float | int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return value
    if isinstance(value, dict) and set(value) == {"$n"}:
        return {"Infinity": float("inf"), "-Infinity": float("-inf"), "-0": 0, "NaN": float("nan")}.get(
            str(value["$n"]))  # fmt: skip
    if isinstance(value, dict) and set(value) == {"$big"} and isinstance(value["$big"], str):
        try:
            return int(value["$big"])
        except ValueError:
            return None
    return None


def _classes(value: object) -> tuple[object, object] | None:
    if not isinstance(value, dict) or "names" not in value:
        return None
    return (value.get("names"), value.get("builtin"))


def comparable(value: object) -> bool:
    """Whether a value holds nothing that is unequal to everything (a getter, a Proxy, a cut...)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            if _UNEQUAL & v.keys():
                return False
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return True


def _normal(value: object) -> str:
    """A canonical text: object keys sorted, sets' and maps' entries sorted (they compare unordered)."""
    def norm(v: object) -> object:
        if isinstance(v, dict):
            out = {k: norm(x) for k, x in v.items()}
            if isinstance(out.get("$set"), list):
                out["$set"] = sorted(out["$set"], key=lambda x: json.dumps(x, sort_keys=True))
            if isinstance(out.get("$map"), list):
                out["$map"] = sorted(out["$map"], key=lambda x: json.dumps(x, sort_keys=True))
            return out
        if isinstance(v, list):
            return [norm(x) for x in v]
        return v

    return json.dumps(norm(value), sort_keys=True)


def equal(a: object, b: object) -> bool:
    """Deep strict equality of two encoded values (what ``assert.deepStrictEqual`` decides, on the
    encodings: ``NaN`` equals ``NaN``, ``-0`` is not ``0``, prototypes and class names count)."""
    if not comparable(a) or not comparable(b):
        return False
    try:
        return _normal(a) == _normal(b)
    except (TypeError, ValueError, RecursionError):
        return False


def truthy(value: object) -> bool:
    """JavaScript's truthiness of an encoded value."""
    if value is None or isinstance(value, bool):
        return value is True
    if isinstance(value, int | float):
        return value != 0
    if value == "":
        return False
    return not (isinstance(value, dict) and value in ({"$u": 1}, {"$n": "NaN"}, {"$n": "-0"}, {"$big": "0"}))


def _short(value: object) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = "?"
    return text[:120]
