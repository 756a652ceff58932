"""Test files' rewrites kept in the engine's cache (``_plans``) and their JSON (``_planjson``):
every value a literal can have comes back as itself (type and value), a stored entry of any other
shape is a miss (the file is rewritten again), never a different plan."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bouts.cache import Store
from bouts.runner import _plans
from bouts.runner._externalise import FilePlan, Operand, Site, plan_file
from bouts.runner._planjson import Unreadable, decode_plan, decode_value, encode_plan, encode_value

ROOT = Path(__file__).resolve().parents[2]

_scalars = (
    st.none() | st.booleans() | st.integers() | st.integers(min_value=2**70)
    | st.floats(allow_nan=False) | st.text() | st.binary() | st.just(Ellipsis)
    | st.complex_numbers(allow_nan=False)
)  # fmt: skip
_hashable = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=3).map(tuple), max_leaves=8)
literals = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.lists(inner, max_size=4).map(tuple)
    | st.sets(_hashable, max_size=4) | st.frozensets(_hashable, max_size=3)
    | st.dictionaries(_hashable, inner, max_size=4),
    max_leaves=20,
)  # fmt: skip


def same(a: object, b: object) -> bool:
    """Equal and of the same types all the way down (1, 1.0 and True are three different values)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return math.copysign(1, a) == math.copysign(1, b) and (a == b or math.isnan(a) and math.isnan(b))
    if isinstance(a, complex):
        return same(a.real, b.real) and same(a.imag, b.imag)  # type: ignore[union-attr]
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))  # type: ignore[arg-type]
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)  # type: ignore[index]
    return a == b


def through_json(value: object) -> object:
    return decode_value(json.loads(json.dumps(encode_value(value))))


@settings(max_examples=300, deadline=None)
@given(literals)
def test_every_literal_value_comes_back_as_itself(value: object) -> None:
    assert same(through_json(value), value)


@pytest.mark.parametrize("value", [
    float("inf"), float("-inf"), -0.0, float("nan"), 1e999, complex(0, -0.0), (1, 1.0, True),
    {1: "int", "1": "str", (1,): "tuple"}, [b"\x00\xff", "\ud800"], ...,
])  # fmt: skip
def test_the_values_json_loses_are_kept(value: object) -> None:
    assert same(through_json(value), value)


@pytest.mark.parametrize("value", [object(), range(3), bytearray(b"x"), [1, object()]])
def test_a_value_no_literal_has_is_refused(value: object) -> None:
    with pytest.raises(TypeError):
        encode_value(value)


def _example_test_files() -> list[tuple[str, str]]:
    files = sorted(ROOT.glob("examples/*/tests/**/*.py"))
    assert files  # the bundled challenges' own tests
    return [(str(p.relative_to(p.parents[2])), p.read_text()) for p in files]


@pytest.mark.parametrize(("rel", "text"), _example_test_files())
def test_the_bundled_challenges_plans_come_back_equal(rel: str, text: str) -> None:
    plan = plan_file(text, rel)
    assert plan.sites  # something to keep
    back = decode_plan(json.loads(json.dumps(encode_plan(plan))))
    assert back == plan
    for k, site in plan.sites.items():
        assert all(same(a.value, b.value) for a, b in zip(site.operands, back.sites[k].operands, strict=True))


def _good() -> dict:
    site = Site(7, 3, "cmp", (Operand("T"), Operand("L", (1, 2.5))), op="eq", rel=1e-6, abs=0.0)
    return encode_plan(FilePlan("ext", "gold", {7: site}))


def _edit(change) -> dict:  # noqa: ANN001
    data = json.loads(json.dumps(_good()))
    change(data)
    return data


@pytest.mark.parametrize("bad", [
    None, [], {"schema": "planjson/0"}, _edit(lambda d: d.pop("golden")),
    _edit(lambda d: d.update(external=1)),
    _edit(lambda d: d["sites"][0].update(site=True)),
    _edit(lambda d: d["sites"][0].update(form="exec")),
    _edit(lambda d: d["sites"][0].update(rel=1)),
    _edit(lambda d: d["sites"][0].update(types="ValueError")),
    _edit(lambda d: d["sites"][0]["operands"].append(["X", None])),
    _edit(lambda d: d["sites"][0]["operands"].append(["L", {"pickle": "..."}])),
    _edit(lambda d: d["sites"][0]["operands"].append(["L", {"f": "not a float"}])),
    _edit(lambda d: d["sites"][0]["operands"].append(["L", {"d": [[{"l": []}, 1]]}])),  # an unhashable key
    _edit(lambda d: d["sites"][0]["operands"].append(["L", {"t": [1], "l": [2]}])),
    _edit(lambda d: d["sites"].append(d["sites"][0])),  # two sites, one number
])  # fmt: skip
def test_anything_else_is_unreadable(bad: object) -> None:
    assert decode_plan(_good()) == decode_plan(json.loads(json.dumps(_good())))
    with pytest.raises(Unreadable):
        decode_plan(bad)


SOURCE = "from solution import add\n\ndef test_add():\n    assert add(2, 2) == (4, 4.0, b'x')\n"


@pytest.fixture
def fresh_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_plans, "_MEMORY", {})


def test_a_plan_is_read_from_the_cache_by_another_process(tmp_path: Path, fresh_memory, monkeypatch) -> None:  # noqa: ANN001
    first = _plans.plan_for("tests/visible/test_a.py", SOURCE, tmp_path)
    assert list((tmp_path / _plans.NAMESPACE).rglob("*.json"))
    monkeypatch.setattr(_plans, "_MEMORY", {})  # as another process: nothing in memory

    def no_rewrite(*_: object) -> FilePlan:
        raise AssertionError("rewritten again: the stored plan was not read")

    monkeypatch.setattr(_plans, "plan_file", no_rewrite)
    again = _plans.plan_for("tests/visible/test_a.py", SOURCE, tmp_path)
    assert again == first and again is not first
    # The path is part of the key (site numbers follow it): another path is rewritten.
    with pytest.raises(AssertionError, match="rewritten again"):
        _plans.plan_for("tests/hidden/test_a.py", SOURCE, tmp_path)


def test_an_entry_that_does_not_decode_is_rewritten(tmp_path: Path, fresh_memory, monkeypatch) -> None:  # noqa: ANN001
    rel = "tests/visible/test_a.py"
    _plans.plan_for(rel, SOURCE, tmp_path)
    (entry,) = (tmp_path / _plans.NAMESPACE).rglob("*.json")
    store = Store.open(tmp_path, _plans.NAMESPACE)
    material = _plans.key_material(rel, SOURCE)
    assert store.path(store.key(material)) == entry
    store.put(material, {"schema": "planjson/1", "external": "import os; os._exit(0)"})  # a valid MAC, a bad shape
    monkeypatch.setattr(_plans, "_MEMORY", {})
    assert _plans.plan_for(rel, SOURCE, tmp_path) == plan_file(SOURCE, rel)


def test_a_plan_that_cannot_be_encoded_stays_in_memory(tmp_path: Path, fresh_memory, monkeypatch) -> None:  # noqa: ANN001
    odd = FilePlan("ext", "gold", {1: Site(1, 1, "cmp", (Operand("L", object()),))})
    monkeypatch.setattr(_plans, "plan_file", lambda text, rel: odd)
    assert _plans.plan_for("tests/visible/test_a.py", SOURCE, tmp_path) is odd
    assert not list((tmp_path / _plans.NAMESPACE).rglob("*.json"))
