"""Generated tests from the submitted code itself, decided on the host. Pure.

The reference-oracle tests (``_oracle``) are built from the challenge alone: every submission gets
the same ones. These are built from what the analysis finds in *this* submission
(docs/adversarial.md, "Tests from the submitted code"):

- one **probe test** per fuzz or pattern target the analyser reached from a public entry
  (unvalidated input, missing null check, weak type, pattern mismatch): values chosen for the
  target's sink (an index, arithmetic, a conversion, a ``.get``, a case or version comparison),
  the submission's own boundary literals and their neighbours, and a few out-of-contract values;
- one **boundary test** per public entry a visible example shows how to call: the example with
  one value replaced by a literal the submission's code compares with (``qty <= 0`` gives -1, 0
  and 1; ``price == "19.99"`` gives ``"19.99"``), or by its neighbour.

Each call runs on a fresh object; a method's object is then read through its public query methods
(no arguments: ``report()``, ``movements()``), so a wrong state is seen as well as a wrong return
value. How they are judged:

- **differential**, where the entry exists in the reference (same module, name and parameters):
  the same file runs on the reference, and the submission must end each call as the reference
  does (the same value on input of the example's type; the same kind of deliberate rejection
  where the challenge requires invalid input to be rejected; the same state after). A call the
  reference crashes on, times out on or does not answer is not counted;
- **contract**, where it does not: on input of the example's type no crash and no timeout, and the
  call made twice on two fresh objects ends alike with equal values (deterministic, no state
  shared between instances); out-of-contract values must not crash, where the challenge requires
  them rejected.
"""

from __future__ import annotations

import ast
import math
import os
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bouts.adversarial._domain import mutate, shape_of, to_source
from bouts.adversarial._generate import GENERATED_DIR, GeneratedTest
from bouts.adversarial._model import Target
from bouts.adversarial._py_api import Api, reach

PROBE_VERSION = "submission-probe/1"
PROBE_FILE = f"{GENERATED_DIR}/test_gen_probe.py"
"""Differential tests: run on the reference too."""
CONTRACT_FILE = f"{GENERATED_DIR}/test_gen_contract.py"
"""Contract tests: entries the reference does not have; run on the submission only."""
MAX_PROBE_TESTS = 30
CALLS_PER_PROBE = 10
MAX_POOL = 24
"""Boundary literals read from the code an entry reaches, at most."""
MAX_OBSERVERS = 3
PROBED_KINDS = frozenset({"unvalidated_input", "missing_null_check", "weak_type", "pattern_mismatch"})
BAD_ENDINGS = ("crash ", "timeout", "unbuildable ")
Judge = Literal["differential", "contract"]


@dataclass(frozen=True)
class ProbeTest:
    """One generated test from the submission's code: ``calls`` calls of one entry."""

    test: GeneratedTest
    judge: Judge
    calls: tuple[str, ...]
    """Each call as source: what a finding names."""
    in_domain: tuple[bool, ...]
    """Per call: every value has the type its example (or plain hint) shows."""
    observers: tuple[str, ...]

    @property
    def width(self) -> int:
        """Digests per call and run: the call's ending and value, then each observer's."""
        return 2 + 2 * len(self.observers)

    @property
    def runs(self) -> int:
        return 2 if self.judge == "contract" else 1


# -- what the submission's code compares with --------------------------------------------------


def _scalar(value: object) -> bool:
    return type(value) in (int, float, str) and not (type(value) is str and (len(value) > 40 or "\n" in value))


def _constants(node: ast.AST) -> list[object]:
    out = []
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and _scalar(n.value):
            out.append(n.value)
        elif isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub) and isinstance(n.operand, ast.Constant):
            out += [-n.operand.value] if type(n.operand.value) in (int, float) else []
    return out


def boundary_pool(api: Api, entry_key: str) -> tuple[object, ...]:
    """The literals the code ``entry_key`` reaches compares values with (``x < 0``, ``p == "19.99"``,
    ``s.startswith("/srv")``, ``k in ("a", "b")``), its subscripts' constants, and the scalars of
    the module-level tables it reads (``_KNOWN[...]``): the submission's own boundaries."""
    found: list[object] = []
    for key, _, _ in reach(api, entry_key):
        fn = api.functions[key]
        tables = _tables(api, fn.module)
        for n in ast.walk(fn.node):
            if isinstance(n, ast.Compare):
                found += [v for side in (n.left, *n.comparators) for v in _constants(side)
                          if not isinstance(side, ast.Call)]  # fmt: skip
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in (
                "startswith", "endswith", "get"
            ):  # fmt: skip
                found += [v for a in n.args[:1] for v in _constants(a)]
            elif isinstance(n, ast.Subscript):
                found += _constants(n.slice)
            elif isinstance(n, ast.Name) and n.id in tables:
                found += tables[n.id][:16]
    seen: dict[str, object] = {}
    for v in found:
        seen.setdefault(f"{type(v).__name__}:{v!r}", v)
    return tuple(list(seen.values())[:MAX_POOL])


def _tables(api: Api, module: str) -> dict[str, list[object]]:
    """Module-level names bound to literal data, with their scalars in source order."""
    _, tree, _ = api.modules[module]
    out = {}
    for n in tree.body:
        literal = isinstance(n, ast.Assign) and isinstance(
            n.value, ast.Constant | ast.Tuple | ast.List | ast.Dict | ast.Set | ast.UnaryOp
        )  # fmt: skip
        if literal and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):  # type: ignore[union-attr]
            out[n.targets[0].id] = _constants(n.value)  # type: ignore[union-attr]
    return out


# -- values --------------------------------------------------------------------------------------


def _neighbours(pool: Sequence[object], kind: type) -> list[object]:
    out: list[object] = []
    for v in pool:
        if kind is int and type(v) is int:
            out += [v - 1, v, v + 1]
        elif kind is float and type(v) in (int, float):
            out += [float(v), math.nextafter(float(v), math.inf), float(v) - 0.5]
        elif kind is str and type(v) is str:
            out += [v, v.upper(), v + " "]
    return out


_CONVERSIONS = ("0.29", "1.005", "1e3", " 1 ", "-1", "abc", "NaN", "inf", "0.1", "1,5")


def _sink_values(target: Target, base: object) -> list[object]:
    """Values aimed at what the target's sink does with the parameter."""
    sink, lit = target.sink, target.literal
    if target.kind == "pattern_mismatch" and lit is not None:
        if sink == "case":
            return [lit, lit.upper(), lit.title(), lit.lower()]
        if sink == "float":
            x = float(lit)
            return [x, math.nextafter(x, math.inf), 0.1 + 0.2]
        if sink == "path-compare":
            root = lit.rstrip("/") or "/"
            return [root, root + "/.", f"{root}/../outside", os.path.normpath(f"{root}/../outside"), root + "/"]
        if sink == "version":
            return [_bump(lit, i, by) for i in range(3) for by in (1, 10)]
    if sink == "conversion":
        return list(_CONVERSIONS)
    if sink.startswith("re.") or sink in ("dict.get", "optional-return"):
        return ["", "zzz", f"{base}?" if isinstance(base, str) else "?"]
    if sink == "indexing" and isinstance(base, str):
        return [base + "X", base.lower(), ""]
    if sink in ("indexing", "arithmetic") and type(base) is int:
        return [0, -1, -base, base * 3]
    return []


def _bump(version: str, index: int, by: int) -> str:
    parts = [int(p) if p.isdigit() else 0 for p in version.lstrip("v").split(".")]
    parts[index % len(parts)] += by
    return ("v" if version.startswith("v") else "") + ".".join(map(str, parts))


def _general(base: object) -> list[object]:
    kind = type(base)
    if kind is int:
        return [0, 1, -1, base + 1, base - 1, base * 2, -base]  # type: ignore[operator]
    if kind is float:
        return [0.0, -0.0, base / 3, base + 0.1, -base, 1e-9]  # type: ignore[operator]
    if kind is str:
        b = str(base)
        return ["", " ", b + " ", " " + b, b.upper(), b.lower(), b + b, "é" + b, b[:-1], "Ω" * 40]
    if kind is bool:
        return [not base]
    if kind in (list, tuple) and base:
        items = list(base)  # type: ignore[call-overload]
        return [kind(x) for x in ([], items[::-1], items + items[:1], items[:1])]
    if kind is dict:
        return [{}]
    return []


def _out_of_contract(base: object) -> list[object]:
    if type(base) in (int, float):
        return [None, str(base), [base]]
    if type(base) is str:
        return [None, len(base) or 1, [base]]
    return [None, "x"]


def probe_values(target: Target, base: object, pool: Sequence[object], rng: random.Random) -> list[object]:
    """Up to ``CALLS_PER_PROBE`` distinct values for the probed parameter: the target's own first,
    then the submission's boundaries, then general ones of the example's type (seeded order), then
    out-of-contract ones (first, for a weak-type target: a wrong type is what it is about)."""
    own = _sink_values(target, base)
    near = _neighbours(pool, type(base))
    rng.shuffle(near)
    general = _general(base)
    rng.shuffle(general)
    wrong = _out_of_contract(base)
    order = [*wrong, *own, *near, *general] if target.kind == "weak_type" else [*own, *near[:4], *general, *wrong]
    out: dict[str, object] = {}
    for v in order:
        try:
            out.setdefault(to_source(v), v)
        except ValueError:
            continue
    values = list(out.values())
    if target.kind != "weak_type" and len(values) > CALLS_PER_PROBE:
        values = values[: CALLS_PER_PROBE - 2] + wrong[:2]
    return values[:CALLS_PER_PROBE]


def _paths(value: object, prefix: tuple[object, ...] = ()) -> list[tuple[tuple[object, ...], object]]:
    """Every scalar inside ``value`` with its path of indexes and keys."""
    if type(value) in (list, tuple):
        return [p for i, v in enumerate(value) for p in _paths(v, (*prefix, i))]  # type: ignore[arg-type]
    if type(value) is dict:
        return [p for k, v in value.items() for p in _paths(v, (*prefix, k))]  # type: ignore[attr-defined]
    return [(prefix, value)] if type(value) in (int, float, str) else []


def _replaced(value: object, path: tuple[object, ...], new: object) -> object:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if type(value) is dict:
        return {**value, head: _replaced(value[head], rest, new)}  # type: ignore[dict-item,index]
    items = list(value)  # type: ignore[call-overload]
    items[head] = _replaced(items[head], rest, new)  # type: ignore[index,call-overload]
    return type(value)(items)  # type: ignore[call-arg]


def injected_calls(bases: Sequence[dict[str, object]], pool: Sequence[object], count: int,
                   rng: random.Random) -> list[dict[str, object]]:  # fmt: skip
    """``count`` distinct calls: an example with one of its values (at any depth) replaced by a
    boundary literal of the same type, or its neighbour; a second value mutated now and then."""
    shapes = {name: shape_of([b[name] for b in bases if name in b]) for b in bases for name in b}
    usable = [b for b in bases if any(_neighbours(pool, type(v)) for name in b for _, v in _paths(b[name]))]
    out: dict[str, dict[str, object]] = {}
    for _ in range(count * 8 if usable else 0):
        if len(out) >= count:
            break
        call = dict(rng.choice(usable))
        spots = [(name, path, v) for name in sorted(call) for path, v in _paths(call[name])
                 if [n for n in _neighbours(pool, type(v)) if n != v]]  # fmt: skip
        name, path, old = rng.choice(spots)
        call[name] = _replaced(call[name], path, rng.choice([n for n in _neighbours(pool, type(old)) if n != old]))
        if rng.random() < 0.3:
            other = rng.choice(sorted(call))
            if other != name:
                call[other] = mutate(call[other], shapes[other], rng)
        try:
            out.setdefault(to_source(call), call)
        except ValueError:
            continue
    return list(out.values())
