"""Observations as texts (observe.py) and the host's checks of them (_decide), without a sandbox."""

from __future__ import annotations

import enum
import importlib.util
import json
import textwrap
from pathlib import Path

import pytest

from bouts.runner._decide import check_test, decode, parse, same
from bouts.runner._externalise import plan_file, site_base

OBSERVE = Path(__file__).parents[2] / "src/bouts/runner/sandboxed/_bouts_driver/observe.py"
_spec = importlib.util.spec_from_file_location("bouts_observe_texts_under_test", OBSERVE)
observe = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(observe)  # type: ignore[union-attr]

B = site_base("tests/hidden/test_x.py")


def plan(src: str):  # noqa: ANN201
    return plan_file(textwrap.dedent(src), "tests/hidden/test_x.py")


@pytest.fixture(autouse=True)
def _fresh() -> None:
    observe.reset()
    observe._KINDS.clear()


def _gold_site():  # noqa: ANN202
    """A site whose observed value is paired with the reference's (a computed expected value)."""
    p = plan(
        """
        from calc import f
        def test_t():
            data = [1, 2]
            assert f(data) == sum(data) * 7
        """
    )
    assert [o.role for o in p.sites[B].operands] == ["T", "U"]
    return p


def _text(value: object) -> str:
    observe.reset()
    observe.obs(1, lambda: value)
    return observe.occurrences[0][1]["0"]


def test_each_observed_value_is_kept_as_the_text_of_its_encoding() -> None:
    assert observe.obs(7, lambda: (1, "a")) == (1, "a")
    observe.open(8)
    observe.atom(0, {"k": None})
    with observe.block(9):
        pass
    assert observe.occurrences == [
        [7, {"0": '{"$t":[1,"a"]}'}],
        [8, {"0": '{"$d":[["k",null]]}'}],
        [9, {"0": '{"$ret":true}'}],
    ]
    for _, slots in observe.occurrences:  # each text is the encoding, compact
        assert all(isinstance(t, str) and json.loads(t) is not None for t in slots.values())


def test_a_flood_of_observations_hits_the_size_cap_and_stops_growing() -> None:
    big = "x" * (observe.MAX_TEXT - 100)
    n = 0
    while not observe.overflow:
        observe.obs(1, lambda n=n: f"{n:08d}{big}")  # each text new: a repeat would only be counted
        n += 1
        assert n < 1000, "the cap never tripped"
    assert n <= observe.MAX_TOTAL // len(big) + 1
    assert observe.occurrences == []  # the test fails for it: nothing is kept
    for _ in range(200):  # every way of recording, after the cap: nothing more is kept
        observe.obs(1, lambda: big)
        observe.gobs(1, lambda: big)
        observe.open(2)
        observe.atom(0, big)
        with observe.block(3):
            pass
    assert observe.occurrences == []
    assert check_test({}, observe.occurrences, [], overflow=observe.overflow) == "too many assertions executed to check"


def test_the_size_estimate_is_at_least_what_the_record_carries() -> None:
    values = ['say "hi"', "back\\slash", "é\n", {"q": ['"', "\\"]}, 10**20, 1.5, None, b"\x00\xff"]
    for i, v in enumerate(values * 50):
        observe.obs(100_000_000_000 + i, lambda v=v: v)
        observe.open(7)
        observe.atom(1, v)
    wire = observe.text()  # the record's body, as the test process writes it
    assert len(wire) <= observe.total + len("[]")


def test_a_value_too_large_to_send_is_its_digest_and_still_decides() -> None:
    p = _gold_site()
    big, other = list(range(20_000)), list(range(1, 20_001))
    text = _text(big)
    assert len(text) < 100 and json.loads(text).keys() == {"$h"}
    gold = [[B, {"0": text, "1": text}]]
    assert check_test(p.sites, [[B, {"0": _text(big)}]], gold) is None
    assert "differs" in check_test(p.sites, [[B, {"0": _text(other)}]], gold)


class _Always(int):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = int.__hash__


@pytest.mark.parametrize(
    ("value", "equal"),
    [
        ([1, "a", None, (2.5, {"k": b"x"})], True),
        (float("nan"), True),  # NaN is taken as equal to NaN
        (_Always(3), False),  # a comparison-forging object: never equal to anything
        ([_Always(3)], False),
        ({float("nan")}, False),  # a NaN inside a set: the set is unequal to itself
        ({"k": {float("nan")}}, False),
    ],
)
def test_equal_texts_decide_as_their_decoded_values_would(value: object, equal: bool) -> None:
    p = _gold_site()
    text = _text(value)
    assert same(decode(parse(text)), decode(parse(text))) is equal  # what decoding decides
    verdict = check_test(p.sites, [[B, {"0": text}]], [[B, {"0": text, "1": text}]])
    assert (verdict is None) is equal


def test_a_cut_value_is_never_equal_even_to_the_same_text() -> None:
    p = _gold_site()
    deep: object = 1
    for _ in range(observe.MAX_DEPTH + 5):
        deep = [deep]
    text = _text(deep)
    assert '"$cut"' in text
    assert "differs" in check_test(p.sites, [[B, {"0": text}]], [[B, {"0": text, "1": text}]])


@pytest.mark.parametrize(
    "slots",
    [
        {"²": "4"},  # a digit int() cannot read
        {"9" * 5000: "4"},
        {"0": "1" + "0" * 400},  # an int beyond a float, against a number
        {"0": '{"$dec":"sNaN"}'},  # a signalling NaN, against a number
        {"0": 4},  # not a text
        {"0": "[1,"},  # not JSON
        {"0": "[" * 100_000 + "]" * 100_000},  # deeper than a parser goes
        {"0": '{"$t":"abc","$d":5}'},
    ],
)
def test_hostile_observations_fail_the_test_and_never_the_host(slots: dict) -> None:
    p = _gold_site()
    verdict = check_test(p.sites, [[B, slots]], [[B, {"0": "4", "1": "4"}]])
    assert verdict is not None


def test_a_raised_plain_call_is_seen_however_its_text_spells_the_tag() -> None:
    p = plan(
        """
        from ledger import Ledger
        def test_t():
            led = Ledger()
            led.receive("A", 5)
        """
    )
    ok = [[B, {"0": '{"$o":["ledger.Ledger"],"a":null,"?":true}'}], [B + 1, {"0": "null"}]]
    assert check_test(p.sites, ok, ok) is None
    for raised in ('{"$raise":["builtins.ValueError"],"m":"no"}', '{"\\u0024raise":["builtins.ValueError"],"m":"no"}'):
        assert check_test(p.sites, [ok[0], [B + 1, {"0": raised}]], ok) == "ValueError: no"
    harmless = '{"$d":[["$raise",1]]}'  # the word, not the tag: the call returned
    assert check_test(p.sites, [ok[0], [B + 1, {"0": harmless}]], ok) is None


class _Slotted:
    __slots__ = ("a", "b")

    def __init__(self) -> None:
        self.a = 1

    def __eq__(self, other: object) -> bool:  # lies
        return True

    def __repr__(self) -> str:  # lies
        return "2"


class _Colour(enum.Enum):
    RED = 1


class _Failure(ValueError):
    pass


def test_objects_encode_by_their_state_the_same_every_time() -> None:
    for _ in range(2):  # the second time from the per-class cache
        assert observe.encode(_Slotted()) == {"$o": tuple(observe.names(_Slotted)), "a": {"$d": [["a", 1]]}, "?": True}
        assert observe.encode(_Colour.RED)["v"] == 1
        assert observe.encode(_Failure("m", 2))["a"] == {"$t": ["m", 2]}
    assert observe.encode(_Slotted())["$o"][0].endswith("_Slotted")
    assert _text(_Slotted()) != _text(2)


def test_a_dict_that_changes_while_it_is_encoded_is_encoded_as_it_was() -> None:
    observe.encode(_Slotted())
    observe.encode(observe._KINDS)  # encoding its keys (classes) adds to it
    d: dict[str, object] = {}

    class Grows:
        def __bool__(self) -> bool:
            d[f"k{len(d)}"] = 0
            return True

    d["g"] = Grows()
    assert [k for k, _ in observe.encode(d)["$d"]] == ["g"]


def test_the_per_class_cache_is_bounded_and_past_it_classes_encode_the_same() -> None:
    kinds = [type(f"K{i}", (), {"__slots__": ("v",)}) for i in range(observe._KINDS_MAX + 50)]
    for i, kind in enumerate(kinds):
        obj = kind()
        obj.v = i
        assert observe.encode(obj)["a"] == {"$d": [["v", i]]}
    assert len(observe._KINDS) <= observe._KINDS_MAX


class _Record:
    def __init__(self, **state: object) -> None:
        self.__dict__.update(state)


class _Falsy(_Record):
    def __bool__(self) -> bool:
        return False


class _Raising(_Record):
    def __bool__(self) -> bool:
        raise RuntimeError("no truth")


class _Str(str):
    pass


@pytest.mark.parametrize(
    "value",
    [
        _Record(seq=1, sku='A"\\é', kind="receive", qty=3, ref=None, ok=True, price=2.5, neg=-0.0),
        _Record(),
        _Falsy(a=1),
        _Raising(a=1),
        _Record(inf=float("inf")),  # not written directly: the general path
        _Record(s=_Str("x")),
        _Record(inner=_Record(a=1)),
        _Record(big="x" * (observe.MAX_TEXT + 1)),
    ],
)
def test_a_record_object_written_directly_is_the_text_of_its_encoding(value: object) -> None:
    for _ in range(2):  # the second time, the class is cached and the direct path applies
        assert observe._enc(value) == observe._sized(observe._dumps(observe.encode(value)))
    value.__dict__[1] = "a key that is no attribute name"
    assert observe._enc(value) == observe._sized(observe._dumps(observe.encode(value)))


def test_the_direct_path_takes_record_objects_of_known_classes_only() -> None:
    first = _Record(seq=1, sku="A")
    assert observe._flat_object(first) is None or type(first) in observe._KINDS
    observe.encode(first)
    assert observe._flat_object(_Record(seq=2, sku="B")) == observe._dumps(observe.encode(_Record(seq=2, sku="B")))
    assert observe._flat_object(_Record(inner=[1])) is None  # not a scalar: the general path
    assert observe._flat_object(_Colour.RED) is None and observe._flat_object(_Failure("m")) is None
    assert observe._flat_object(_Slotted()) is None


def test_a_comparison_with_a_computed_expected_value_decides_on_the_texts_as_on_the_values() -> None:
    p = _gold_site()  # assert f(data) == sum(data) * 7: the expected value is the golden run's
    mine = [[B, {"0": "[1,2]"}]]
    assert check_test(p.sites, mine, [[B, {"0": "[1,2]", "1": "[1,2]"}]]) is None
    assert check_test(p.sites, mine, [[B, {"0": "[1,2]", "1": "[1, 2]"}]]) is None  # other text, same value
    assert "does not hold" in check_test(p.sites, mine, [[B, {"0": "[1,2]", "1": "[1,3]"}]])
    raised = '{"$raise":["builtins.KeyError"],"m":"k"}'
    assert check_test(p.sites, [[B, {"0": raised}]], [[B, {"0": raised, "1": raised}]]) is not None
    q = plan(
        """
        from calc import f
        def test_t():
            table = [None, 1]
            assert f(1) is table[0]
        """
    )
    assert [o.role for o in q.sites[B].operands] == ["T", "U"] and q.sites[B].op == "is"
    gold = [[B, {"0": "null", "1": "null"}]]
    assert check_test(q.sites, [[B, {"0": "null"}]], gold) is None
    assert check_test(q.sites, [[B, {"0": "false"}]], gold) is not None
