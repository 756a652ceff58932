"""The host's verdict on externalised assertions. Pure: plain data in, a failure reason or ``None`` out.

Everything a test process reported is untrusted. Each observed value arrives as the JSON text of
its encoding (``observe.py``); it is parsed and decoded into host-built values (no object from the
sandbox is ever called), and each assertion site is checked against what the host kept: literal
expected values from the test file, and the reference solution's golden observations for the
same test and seed. Why this closes verdict forging: docs/sandbox.md, "Decided outside".

Texts are decoded only when a check needs the value: a value paired with the reference's is equal
when the two texts are equal and hold only plain data (:func:`_equal_texts`), and a plain call
holds when its text cannot be an exception (:func:`_raised`).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from decimal import Decimal
from fractions import Fraction

from bouts.runner._externalise import Site

MAX_DEPTH = 200
_MISSING = object()
_BAD: dict[str, object] = {"$bad": True}
"""What a text that is no JSON stands for: decoded, a value never equal to anything."""
_SLOTS = {str(i): i for i in range(4096)}
"""Slot keys a record may use (an assertion observes at most a few operands)."""
_UNEQUAL_MARKS = ('"$cut"', '"$sub"', '"$f"', "NaN")
"""In a text, what may decode to a value unequal to itself: a cut or comparison-forging object
(never equal), a non-finite float or a NaN (a NaN inside a set or dict key is unequal to itself)."""


class Opaque:
    """A value that is not plain data: equal only to an identical encoding (never, if ``never``)."""

    __slots__ = ("payload", "names", "truth", "never")

    def __init__(self, enc: object, never: bool = False) -> None:
        try:
            self.payload = json.dumps(enc, sort_keys=True, default=str)[:100_000]
        except (RecursionError, ValueError, TypeError):  # nested past the interpreter's depth: unequal
            self.payload, never = "", True
        names = enc.get("$o") or enc.get("$sub") or [] if isinstance(enc, dict) else []
        self.names = tuple(str(n) for n in names) if isinstance(names, list) else ()
        truth = enc.get("?") if isinstance(enc, dict) else None
        self.truth = truth if isinstance(truth, bool) else None
        self.never = never

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Opaque) and not self.never and not other.never and self.payload == other.payload

    def __hash__(self) -> int:
        return hash(self.payload)

    def __repr__(self) -> str:
        return f"<{self.names[0] if self.names else 'object'}>"


class Raised:
    """A checked call raised: the names of the exception's classes and its message."""

    __slots__ = ("names", "message")

    def __init__(self, names: Sequence[str], message: str) -> None:
        self.names, self.message = tuple(names), message

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Raised) and self.names[:1] == other.names[:1]

    def __hash__(self) -> int:
        return hash(self.names[:1])

    def __repr__(self) -> str:
        return f"raised {_short(self.names[0]) if self.names else 'an exception'}"


class _Returned:
    def __repr__(self) -> str:
        return "returned normally"


RETURNED = _Returned()


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _hashable(value: object) -> object:
    try:
        hash(value)
    except TypeError:
        return Opaque({"$unhashable": repr(value)[:1000]})
    return value


def parse(text: object) -> object:
    """The encoding an observation's text holds (what is not such a text: never equal to anything)."""
    if type(text) is not str:
        return _BAD
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return _BAD


def _equal_texts(a: object, b: object) -> bool:
    """Whether two observations' texts are one value without decoding them: equal texts hold equal
    encodings, which decode to equal values unless they hold what is unequal to itself. Sound for
    any texts in which those marks are written plainly, as ``observe.py`` writes them; the
    reference's texts, one side of every pairing, are its (no escaped ``$``)."""
    return type(a) is str and a == b and not any(m in a for m in _UNEQUAL_MARKS)  # type: ignore[operator]


def _raised(text: object) -> bool:
    """Whether an observation's text decodes to an exception (:class:`Raised`)."""
    if type(text) is str and "$raise" not in text and "\\" not in text:
        return False  # no such key, spelled plainly or escaped
    return isinstance(decode(parse(text)), Raised)


def decode(enc: object, depth: int = 0) -> object:
    """Host-built plain values from an observation's encoding (malformed parts never compare equal)."""
    if depth > MAX_DEPTH:
        return Opaque({}, never=True)
    if enc is None or isinstance(enc, bool | int | float | str):
        return enc
    if isinstance(enc, list):
        return [decode(v, depth + 1) for v in enc]
    if not isinstance(enc, dict) or len(enc) > 4:
        return Opaque({}, never=True)
    try:
        if "$t" in enc:
            return tuple(decode(v, depth + 1) for v in enc["$t"])
        if "$d" in enc:
            return {_hashable(decode(k, depth + 1)): decode(v, depth + 1) for k, v in enc["$d"]}
        if "$s" in enc or "$fs" in enc:
            items = {_hashable(decode(v, depth + 1)) for v in (enc.get("$s") or enc.get("$fs"))}
            return set(items) if "$s" in enc else frozenset(items)
        if "$b" in enc:
            return bytes.fromhex(enc["$b"])
        if "$f" in enc:
            return float(enc["$f"])
        if "$dec" in enc:
            return Decimal(enc["$dec"])
        if "$fr" in enc:
            return Fraction(int(enc["$fr"][0]), int(enc["$fr"][1]))
        if "$c" in enc:
            return complex(float(enc["$c"][0]), float(enc["$c"][1]))
        if "$raise" in enc:
            return Raised([str(n) for n in enc["$raise"]][:20], str(enc.get("m", ""))[:500])
        if "$ret" in enc:
            return RETURNED
        if "$sub" in enc or "$cut" in enc:
            return Opaque(enc, never=True)
        if "$o" in enc or "$std" in enc or "$h" in enc:
            return Opaque(enc)
    except Exception:  # noqa: BLE001 (an untrusted encoding: an inf numerator, a float past range, nesting
        # past the interpreter's depth in a message... is malformed, never a crash of the verdict)
        pass
    return Opaque({}, never=True)


def _number(v: object) -> bool:
    return isinstance(v, int | float | Decimal | Fraction) and not isinstance(v, bool)


def same(a: object, b: object, rel: float = 0.0, abs_: float = 0.0) -> bool:
    """Equality of decoded values: Python's ``==`` on host-built data, NaN equal to NaN, floats
    within ``rel``/``abs_`` when given (containers compared element by element, as pytest.approx)."""
    if a is _MISSING or b is _MISSING:
        return a is b
    if _number(a) and _number(b):
        if _nan(a) and _nan(b):
            return True
        if rel or abs_:
            try:
                return math.isclose(float(a), float(b), rel_tol=rel, abs_tol=abs_)  # type: ignore[arg-type]
            except (ValueError, OverflowError):  # beyond a float (a huge int): compared exactly
                pass
        try:
            return bool(a == b)
        except ArithmeticError:  # a signalling Decimal NaN against a number
            return False
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y, rel, abs_) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], rel, abs_) for k in a)
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 (a comparison of host-built values that cannot be made)
        return False


def _nan(v: object) -> bool:
    if isinstance(v, float):
        return math.isnan(v)
    return isinstance(v, Decimal) and v.is_nan()


def _type_names(v: object) -> set[str]:
    if isinstance(v, Opaque):
        return {_short(n) for n in v.names}
    return {k.__name__ for k in type(v).__mro__}


def _truth(v: object) -> bool | None:
    if isinstance(v, Opaque):
        return v.truth
    if isinstance(v, Raised):
        return None
    return bool(v)


def _cmp(op: str, a: object, b: object) -> bool:
    if isinstance(a, Raised) or isinstance(b, Raised):
        return False
    try:
        if op == "eq":
            return same(a, b)
        if op == "ne":
            return not same(a, b)
        if op in ("is", "isnot"):
            held = a is b if any(x is None or isinstance(x, bool) for x in (a, b)) else same(a, b)
            return held if op == "is" else not held
        if op == "in":
            return a in b  # type: ignore[operator]
        if op == "notin":
            return a not in b  # type: ignore[operator]
        return bool({"lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[op])  # type: ignore[operator]
    except Exception:  # noqa: BLE001 (values of types that do not compare: the assertion does not hold)
        return False


def _canon(v: object) -> str:
    return json.dumps(v, sort_keys=True, default=repr)


def _by_slot(texts: Mapping[str, object]) -> dict[int, object]:
    """An occurrence's texts by slot number; a key that is no slot number is ignored (untrusted)."""
    out: dict[int, object] = {}
    for key, text in texts.items():
        slot = _SLOTS.get(key) if type(key) is str else None
        if slot is not None:
            out[slot] = text
    return out


def check_occurrence(site: Site, sub: Mapping[str, object], gold: Mapping[str, object] | None) -> str | None:
    """``None`` if this execution of ``site`` holds, else why not (no expected value in the text).

    ``sub`` and ``gold`` map slots to the texts of the observed values (see :func:`parse`)."""
    observed = site.observed
    mine_t = {observed[slot]: text for slot, text in _by_slot(sub).items() if slot < len(observed)}
    ref_t = _by_slot(gold or {})
    mine: dict[int, object] = {}
    ref: dict[int, object] = {}

    def decoded(texts: dict[int, object], values: dict[int, object], j: int) -> object:
        if j not in values:
            values[j] = decode(parse(texts[j])) if j in texts else _MISSING
        return values[j]

    tol = (site.rel, site.abs) if site.form == "approx" else (0.0, 0.0)
    if site.form == "bool":
        return _check_bool(site, lambda j: decoded(ref_t, ref, j) if site.operands[j].role == "U"
                           else decoded(mine_t, mine, j))  # fmt: skip
    pairwise = site.form in ("generic", "gold") or any(o.role == "U" for o in site.operands) or len(observed) > 1
    if pairwise:
        if gold is None:
            return "no reference value to compare with (the reference solution fails this test)"
        for j in observed:
            if _equal_texts(mine_t.get(j, _MISSING), ref_t.get(j, _MISSING)):
                continue
            got = decoded(mine_t, mine, j)
            if not same(got, decoded(ref_t, ref, j), *tol):
                seen = "nothing" if got is _MISSING else _brief(got)
                return f"observed {seen}, which differs from the reference solution's value"
        if site.form in ("generic", "gold"):
            return None
    elif _just_a_call(site) and 0 in mine_t and not _raised(mine_t[0]):
        return None  # a plain call holds unless it raised (below): it would have ended the test
    if site.form == "cmp" and site.op in ("eq", "is") and [o.role != "L" for o in site.operands] == [True, True]:
        a, b = ((ref_t if o.role == "U" else mine_t).get(j) for j, o in enumerate(site.operands))
        if _equal_texts(a, b) and not _raised(a):
            return None  # one value on both sides (what the checks below would decide, decoded)

    def value(j: int) -> object:
        o = site.operands[j]
        if o.role == "L":
            return o.value
        return decoded(ref_t, ref, j) if o.role == "U" else decoded(mine_t, mine, j)

    vals = [value(j) for j in range(len(site.operands))]
    if any(v is _MISSING for v in vals):
        return "an operand was not observed"
    got = vals[0]
    if site.form == "plain" and isinstance(got, Raised):  # what pytest shows for an exception in a test
        return f"{_short(got.names[0]) if got.names else 'Exception'}: {got.message}"
    if site.form != "raises" and isinstance(got, Raised):
        return f"the checked expression {got!r}"
    if site.form == "cmp":
        held = _cmp(site.op, vals[0], vals[1])
    elif site.form == "truthy":
        held = _truth(got) is True
    elif site.form == "falsy":
        held = _truth(got) is False
    elif site.form == "isinstance":
        held = bool(_type_names(got) & set(site.types))
    elif site.form == "approx":
        held = same(vals[0], vals[1], site.rel, site.abs) and not any(isinstance(v, Opaque) for v in vals)
    elif site.form == "raises":
        held = isinstance(got, Raised) and bool({_short(n) for n in got.names} & set(site.types))
        if held and site.match is not None:
            try:
                held = re.search(site.match, got.message) is not None  # type: ignore[union-attr]
            except re.error:
                held = False
        if not held:
            return f"expected an exception; the code {got!r}"
    elif site.form == "plain":
        held = True  # a plain call holds unless it raised (above): it would have ended the test
    elif site.form == "counteq":
        try:
            held = Counter(map(_canon, vals[0])) == Counter(map(_canon, vals[1]))  # type: ignore[call-overload]
        except TypeError:
            held = False
    else:
        held = False
    return None if held else f"the assertion does not hold (observed {_brief(got)})"


def _check_bool(site: Site, observed: Callable[[int], object]) -> str | None:
    """A ``bool`` site (``or``, chained comparisons, ``not`` of a compound): its condition evaluated
    here as Python would, short-circuits included, on the literal, reference (``U``) and observed
    (``T``) values. An operand the condition needs that raised, or was not observed, fails it."""
    try:
        tree = json.loads(site.expr)
    except (ValueError, RecursionError):
        return "an assertion the host cannot read"
    missing: list[int] = []

    def value(j: object) -> object:
        if type(j) is not int or not 0 <= j < len(site.operands):
            raise ValueError(j)
        o = site.operands[j]
        v = o.value if o.role == "L" else observed(j)
        if v is _MISSING or isinstance(v, Raised):
            missing.append(j)
            raise LookupError(j)
        return v

    def ev(node: object, depth: int = 0) -> bool:
        if not isinstance(node, list) or not node or depth > MAX_DEPTH:
            raise ValueError(node)
        kind = node[0]
        if kind in ("or", "and") and len(node) == 2 and isinstance(node[1], list):
            want = kind == "or"
            return want if any(ev(c, depth + 1) is want for c in node[1]) else not want
        if kind == "not" and len(node) == 2:
            return not ev(node[1], depth + 1)
        if kind == "cmp" and len(node) == 3 and isinstance(node[1], list) and isinstance(node[2], list) \
                and len(node[2]) == len(node[1]) + 1:  # fmt: skip
            left = value(node[2][0])
            for op, j in zip(node[1], node[2][1:], strict=True):
                right = value(j)
                if not _cmp(str(op), left, right):
                    return False
                left = right
            return True
        if kind == "leaf" and len(node) == 2:
            truth = _truth(value(node[1]))
            if truth is None:
                raise LookupError(node[1])
            return truth
        raise ValueError(node)

    try:
        held = ev(tree)
    except LookupError:
        seen = observed(missing[0]) if missing else _MISSING
        return "an operand the assertion needs " + ("was not observed" if seen is _MISSING else f"{_brief(seen)}")
    except ValueError:
        return "an assertion the host cannot read"
    return None if held else "the assertion does not hold"


def _brief(v: object) -> str:
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


def check_test(
    sites: Mapping[int, Site],
    sub: Sequence[object],
    gold: Sequence[object] | None,
    *,
    overflow: bool = False,
) -> str | None:
    """The verdict of one test's observations: ``None`` when every assertion held, else why not.

    ``sub`` and ``gold`` are ``[site, {slot: text}]`` items, as ``observe.py`` records them.

    With ``gold`` (the reference's observations for this test and seed) the test must have executed
    exactly the reference's sequence of assertion sites: a submission that skips, reorders or adds
    assertions (a no-op'd test, a loop cut short) does not pass.

    Never raises: the texts are the test process's, so one that no check can read fails this test
    and no other (an exception here would end the whole run unscored, which any submission that
    reaches an assertion could then choose).
    """
    try:
        return _check_test(sites, sub, gold, overflow=overflow)
    except Exception as exc:  # noqa: BLE001 (see above)
        return f"observations that could not be checked ({type(exc).__name__})"


def _check_test(
    sites: Mapping[int, Site], sub: Sequence[object], gold: Sequence[object] | None, *, overflow: bool
) -> str | None:
    if overflow:
        return "too many assertions executed to check"
    occ = _occurrences(sub)
    if occ is None:
        return "unreadable observations"
    ref = _occurrences(gold) if gold is not None else None
    if gold is not None and ref is None:
        return "unreadable reference observations"
    if ref is not None and _site_runs(occ) != _site_runs(ref):
        executed, expected = sum(n for _, _, n in occ), sum(n for _, _, n in ref)
        return (
            f"its assertions ran differently from the reference solution's ({executed} executed, {expected} expected)"
        )
    plain: dict[int, bool] = {}
    paired: dict[int, tuple[str, str] | None] = {}
    for k, slots, gold_slots in _aligned(occ, ref):
        site = sites.get(k)
        if site is None:
            return "an assertion the test file does not have"
        if k not in plain:
            plain[k], paired[k] = _just_a_call(site), _paired_equality(site)
        if plain[k] and "0" in slots and not _raised(slots["0"]):
            continue  # check_occurrence's verdict for a plain call (_just_a_call), without its slot maps
        pair = paired[k]
        if pair is not None and gold_slots is not None:
            mine = slots.get("0")
            if _equal_texts(mine, gold_slots.get(pair[0])) and _equal_texts(mine, gold_slots.get(pair[1])) \
                    and not _raised(mine):  # fmt: skip
                continue  # check_occurrence's verdict when the value is the reference's (_paired_equality)
        why = check_occurrence(site, slots, gold_slots)
        if why:
            return why if site.form == "plain" else f"line {site.line}: {why}"
    return None


def _paired_equality(site: Site) -> tuple[str, str] | None:
    """For ``assert T == U`` (``is`` too): the reference's slots of its own ``T`` and of ``U``. An
    execution whose one observed text equals both, holding only plain data and no exception, holds:
    :func:`check_occurrence` would pair it with the reference's ``T`` (equal) and then compare it
    with ``U`` (equal), both on their texts. None for every other site."""
    roles = [o.role for o in site.operands]
    if site.form != "cmp" or site.op not in ("eq", "is") or sorted(roles) != ["T", "U"]:
        return None
    t = roles.index("T")
    return str(t), str(1 - t)


def _just_a_call(site: Site) -> bool:
    """A plain call of the submission with its one value observed: it holds unless it raised."""
    return site.form == "plain" and len(site.operands) == 1 and site.observed == (0,)


MAX_EXECUTED = 50_000
"""Executions a test's observations may stand for (``observe.MAX_OCCURRENCES``; more: unreadable)."""

_Run = tuple[int, dict[str, object], int]


def _occurrences(data: Sequence[object] | None) -> list[_Run] | None:
    """``(site, slots, n)`` per entry: ``[site, slots]`` is one execution, ``[site, slots, n]`` stands
    for ``n`` in a row with the same texts (``observe._record``); anything else is unreadable, and so
    is a record of more than :data:`MAX_EXECUTED` executions in all."""
    out: list[_Run] = []
    executed = 0
    for item in data or ():
        if not (type(item) in (list, tuple) and len(item) in (2, 3) and type(item[0]) is int and type(item[1]) is dict):
            return None
        n = item[2] if len(item) == 3 else 1
        if type(n) is not int or n < 1:
            return None
        executed += n
        if executed > MAX_EXECUTED:
            return None
        out.append((item[0], item[1], n))
    return out


def _site_runs(occ: list[_Run]) -> list[list[int]]:
    """The sequence of sites executed, written as ``[site, times in a row]``: two records executed
    the same sequence exactly when these are equal, however each split its entries."""
    out: list[list[int]] = []
    for k, _, n in occ:
        if out and out[-1][0] == k:
            out[-1][1] += n
        else:
            out.append([k, n])
    return out


_Check = tuple[int, dict[str, object], dict[str, object] | None]


def _aligned(occ: list[_Run], ref: list[_Run] | None) -> Iterator[_Check]:
    """Each stretch of executions over which neither side's texts change, once: ``(site, the
    submission's slots, the reference's slots or None)``. Every execution of a stretch would get the
    same verdict (:func:`check_occurrence` sees only these), so one check decides them all. ``ref``
    has run the same sequence of sites (:func:`_site_runs`)."""
    if ref is None:
        for k, slots, _ in occ:
            yield k, slots, None
        return
    j, left = 0, ref[0][2] if ref else 0
    for k, slots, n in occ:
        while n > 0 and left > 0:
            yield k, slots, ref[j][1]
            step = min(n, left)
            n, left = n - step, left - step
            if left == 0 and j + 1 < len(ref):
                j += 1
                left = ref[j][2]
