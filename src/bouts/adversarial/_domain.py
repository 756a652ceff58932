"""Inputs for the reference-oracle tests: pure, seeded, from the domain the challenge shows.

Valid inputs are **type-aware mutations** of the literal arguments of the visible tests (and of
the starter's doctest examples), as EvalPlus mutates HumanEval's base inputs: each mutated value
keeps its type, and keeps what every example of that argument shares (the sign of numbers, the
alphabet of strings, non-empty collections, the element types of a list), so a mutated input is
one the task plausibly accepts. With no example, a parameter's type hint gives small values of
that type. Whether an input is really in the contract is the reference's call: one it rejects or
crashes on is not compared (``_oracle``). Invalid inputs (only for challenges that require
rejection) are fixed boundary and wrong-typed values. See docs/adversarial.md, "The reference
oracle".
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

MAX_INT_SCALE = 2
"""A mutated integer stays within this many times the largest example's magnitude (at least 10)."""
MAX_LEN = 12
"""Collections and strings grow by at most a few items past the longest example, never past this
many more: inputs stay small, so a correct but slower submission is never timed out."""


@dataclass
class Shape:
    """What every example value of one argument (or one element position) has in common."""

    types: set[type] = field(default_factory=set)
    low: float = math.inf
    high: float = -math.inf
    alphabet: set[str] = field(default_factory=set)
    empty: bool = False
    """Some example is an empty string or collection."""
    longest: int = 0
    items: Shape | None = None
    """Elements of lists/sets/tuples, values of dicts."""
    keys: Shape | None = None

    def add(self, value: object) -> None:
        kind = type(value)
        self.types.add(kind)
        if kind in (int, float):
            self.low, self.high = min(self.low, value), max(self.high, value)  # type: ignore[type-var,assignment]
        elif kind is str:
            self.alphabet |= set(value)  # type: ignore[arg-type]
            self.empty |= not value
            self.longest = max(self.longest, len(value))  # type: ignore[arg-type]
        elif kind in (list, tuple, set, frozenset, dict):
            self.empty |= not value
            self.longest = max(self.longest, len(value))  # type: ignore[arg-type]
            if kind is dict:
                self.keys = self.keys or Shape()
                for k in value:  # type: ignore[attr-defined]
                    self.keys.add(k)
            self.items = self.items or Shape()
            for v in value.values() if kind is dict else value:  # type: ignore[attr-defined]
                self.items.add(v)


def shape_of(values: Sequence[object]) -> Shape:
    shape = Shape()
    for v in values:
        shape.add(v)
    return shape


def mutate(value: object, shape: Shape, rng: random.Random) -> object:
    """One type-preserving mutation of ``value`` that keeps ``shape``'s invariants."""
    kind = type(value)
    if kind is bool:
        return not value
    if kind is int:
        return _int(value, shape, rng)  # type: ignore[arg-type]
    if kind is float:
        return _float(value, shape, rng)  # type: ignore[arg-type]
    if kind is str:
        return _str(value, shape, rng)  # type: ignore[arg-type]
    if kind in (list, tuple):
        return kind(_seq(list(value), shape, rng, fixed=kind is tuple))  # type: ignore[call-overload]
    if kind in (set, frozenset):
        return kind(_seq(sorted(value, key=repr), shape, rng, fixed=False))  # type: ignore[call-overload]
    if kind is dict:
        return _dict(value, shape, rng)  # type: ignore[arg-type]
    return value  # None, bytes, anything else: kept as the example has it


def _bounds(shape: Shape) -> tuple[float, float]:
    scale = max(10.0, MAX_INT_SCALE * max(abs(shape.low), abs(shape.high))) if shape.types else 10.0
    low = 0.0 if shape.low >= 0 else -scale
    low = 1.0 if shape.low >= 1 and int in shape.types else low
    return low, scale


def _int(v: int, shape: Shape, rng: random.Random) -> int:
    low, high = _bounds(shape)
    choice = rng.choice((v + 1, v - 1, v * 2, v // 2, -v, 0, 1, rng.randint(int(low), int(high))))
    return int(min(max(choice, low), high))


def _float(v: float, shape: Shape, rng: random.Random) -> float:
    if not math.isfinite(v):
        return v
    low, high = _bounds(shape)
    step = rng.choice((0.5, 0.1, 1.0, 2.5)) * rng.choice((-1, 1))
    choice = rng.choice((v + step, v * 2, v / 2, -v, round(v), rng.uniform(low, high)))
    return float(round(min(max(choice, low), high), 3))


def _str(v: str, shape: Shape, rng: random.Random) -> str:
    alphabet = sorted(shape.alphabet) or list("abc")
    chars = list(v)
    op = rng.choice(("insert", "delete", "replace", "swap", "repeat"))
    i = rng.randrange(len(chars) + 1)
    if op == "insert" or not chars:
        if len(chars) < shape.longest + MAX_LEN:
            chars.insert(i, rng.choice(alphabet))
    elif op == "delete" and (len(chars) > 1 or shape.empty):
        del chars[min(i, len(chars) - 1)]
    elif op == "replace":
        chars[min(i, len(chars) - 1)] = rng.choice(alphabet)
    elif op == "swap" and len(chars) > 1:
        j = rng.randrange(len(chars) - 1)
        chars[j], chars[j + 1] = chars[j + 1], chars[j]
    elif op == "repeat" and len(chars) < shape.longest + MAX_LEN:
        chars.insert(i, chars[min(i, len(chars) - 1)])
    return "".join(chars)


def _seq(items: list[object], shape: Shape, rng: random.Random, *, fixed: bool) -> list[object]:
    inner = shape.items or Shape()
    ops = ["mutate"] if fixed else ["mutate", "mutate", "insert", "delete", "reverse", "shuffle"]
    op = rng.choice(ops)
    if not items:
        op = "insert" if not fixed else "none"
    if op == "mutate":
        i = rng.randrange(len(items))
        items[i] = mutate(items[i], inner, rng)
    elif op == "insert" and len(items) < shape.longest + MAX_LEN:
        pool = items or _pool(inner)
        if pool:
            items.insert(rng.randrange(len(items) + 1), mutate(rng.choice(pool), inner, rng))
    elif op == "delete" and (len(items) > 1 or shape.empty):
        del items[rng.randrange(len(items))]
    elif op == "reverse":
        items.reverse()
    elif op == "shuffle":
        rng.shuffle(items)
    return items


def _pool(shape: Shape) -> list[object]:
    """A value of an element type seen in the examples (an empty list's next element)."""
    for kind, value in ((int, 1), (float, 1.0), (str, "a"), (bool, True)):
        if kind in shape.types:
            return [value]
    return []


def _dict(d: dict[object, object], shape: Shape, rng: random.Random) -> dict[object, object]:
    out = dict(d)
    op = rng.choice(("value", "value", "add", "delete"))
    if op == "delete" and (len(out) > 1 or shape.empty):
        del out[rng.choice(list(out))]
    elif op == "add" and out and len(out) < shape.longest + MAX_LEN:
        key = mutate(rng.choice(list(out)), shape.keys or Shape(), rng)
        out.setdefault(key, mutate(rng.choice(list(out.values())), shape.items or Shape(), rng))
    elif out:
        key = rng.choice(list(out))
        out[key] = mutate(out[key], shape.items or Shape(), rng)
    return out


def mutated_calls(
    examples: Sequence[dict[str, object]], count: int, rng: random.Random, floats: frozenset[str] = frozenset()
) -> list[dict[str, object]]:
    """``count`` distinct calls: the examples themselves first, then mutations of them (each
    changes one or more arguments, once or twice), keeping each argument's shape. A parameter in
    ``floats`` (type hint ``float``) whose examples are whole numbers also gets fractional values."""
    shapes = {name: shape_of([e[name] for e in examples if name in e]) for e in examples for name in e}
    seen: set[str] = set()
    out: list[dict[str, object]] = []

    def keep(call: dict[str, object]) -> None:
        key = _key(call)
        if key is not None and key not in seen and len(out) < count:
            seen.add(key)
            out.append(call)

    for e in examples:
        keep(dict(e))
    for _ in range(count * 8):
        if len(out) >= count:
            break
        call = dict(rng.choice(examples))
        names = [n for n in call if shapes[n].types - {type(None)}]
        if not names:
            break
        chosen = [n for n in names if rng.random() < 0.5] or [rng.choice(names)]
        for name in chosen:
            for _ in range(rng.choice((1, 1, 2))):
                call[name] = mutate(call[name], shapes[name], rng)
            if name in floats and type(call[name]) is int and rng.random() < 0.5:
                call[name] = call[name] + rng.choice((0.25, 0.5, 0.1, 0.3))
        keep(call)
    return out


def _key(call: dict[str, object]) -> str | None:
    try:
        return to_source(call)
    except ValueError:
        return None


_HINTS: dict[str, object] = {"int": 1, "float": 1.5, "str": "ab", "bool": True}


def from_hint(annotation: str | None) -> object | None:
    """An example value for a type hint (``int``, ``list[int]``, ``List[str]``, ``dict[str, int]``,
    ``tuple[int, str]``...); None when the hint is not one of these plain types."""
    ann = (annotation or "").replace(" ", "").replace("typing.", "")
    if ann in _HINTS:
        return _HINTS[ann]
    m = re.fullmatch(r"(?:list|List|Sequence|set|Set|tuple|Tuple)\[(.+)\]", ann)
    if m:
        head = ann.split("[", 1)[0].lower()
        parts = _split(m.group(1))
        values = [from_hint(p) for p in parts if p != "..."]
        if any(v is None for v in values) or not values:
            return None
        if head == "tuple" and "..." not in parts:
            return tuple(values)
        return {"set": set, "tuple": tuple}.get(head, list)(values * 2)  # type: ignore[operator]
    m = re.fullmatch(r"(?:dict|Dict|Mapping)\[(.+)\]", ann)
    if m:
        parts = _split(m.group(1))
        if len(parts) == 2:
            k, v = from_hint(parts[0]), from_hint(parts[1])
            if k is not None and v is not None and isinstance(k, str | int):
                return {k: v}
    return None


def _split(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return [*parts, cur]


INVALID_FIXED: tuple[object, ...] = (None, "", -1, 0, 2**63, float("nan"), float("inf"), [], {}, "\x00")
"""Values no validating code accepts for every parameter: missing, empty, negative, zero, past
64 bits, not-a-number, infinite, wrong containers, a NUL character."""


def invalid_values(example: object) -> list[object]:
    """Out-of-contract values for a parameter whose example is ``example``: the fixed list, plus
    the example's value in the wrong type and, for a number, its negation."""
    out = list(INVALID_FIXED)
    if isinstance(example, bool):
        out.append("yes")
    elif isinstance(example, int | float):
        out += [str(example), -abs(example) - 1]
    elif isinstance(example, str):
        out += [len(example) or 1, example.encode()]
    elif isinstance(example, list | tuple | set | dict):
        out.append(repr(example)[:40])
    return out


def to_source(value: object) -> str:
    """Python source that evaluates to ``value`` (literals only; non-finite floats spelled out).
    Raises ValueError for anything that is not plain data."""
    kind = type(value)
    if value is None or kind in (bool, int, str, bytes):
        return repr(value)
    if kind is float:
        return repr(value) if math.isfinite(value) else f"float({repr(value)!r})"  # type: ignore[arg-type]
    if kind is list:
        return "[" + ", ".join(to_source(v) for v in value) + "]"  # type: ignore[attr-defined]
    if kind is tuple:
        inner = ", ".join(to_source(v) for v in value)  # type: ignore[attr-defined]
        return f"({inner},)" if len(value) == 1 else f"({inner})"  # type: ignore[arg-type]
    if kind in (set, frozenset):
        items = sorted((to_source(v) for v in value), key=str)  # type: ignore[attr-defined]
        return f"{kind.__name__}([{', '.join(items)}])"
    if kind is dict:
        return "{" + ", ".join(f"{to_source(k)}: {to_source(v)}" for k, v in value.items()) + "}"  # type: ignore[attr-defined]
    raise ValueError(f"not plain data: {kind.__name__}")
