"""``assert T == U`` decided on its texts (``_decide._paired_equality``): check_test holds an
execution whose value's text is the reference's, for both of the reference's operands, without
building slot maps; every other execution goes to check_occurrence. The verdict must be the one
check_occurrence gives, whatever the texts (forged, escaped, unequal to themselves, missing)."""

from __future__ import annotations

import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from bouts.runner._decide import _paired_equality, check_occurrence, check_test
from bouts.runner._externalise import plan_file, site_base

PLAN = plan_file(
    textwrap.dedent(
        """
        from ledger import f, g
        def test_t():
            assert f(3) == sum([3, 4])
            assert sum([1, 2]) == g(2)
            assert f(1) is sum([1])
            assert f(2) != sum([1])
        """
    ),
    "tests/hidden/test_p.py",
)
B = site_base("tests/hidden/test_p.py")
SITES = [B, B + 1, B + 2, B + 3]

TEXTS = [
    "5", "7", '"a"', "[1,2]", "NaN", '{"$f":"nan"}', '{"$sub":["x.Y"]}', '{"$cut":true}', '"\\u0035"',
    '{"$raise":["builtins.ValueError"],"m":"no"}', '{"$o":["m.C"],"a":null,"?":true}', "not json", 5, None,
]  # fmt: skip
_slots = st.dictionaries(st.sampled_from(["0", "1", "2", "x"]), st.sampled_from(TEXTS), max_size=3)


def test_the_sites_are_what_the_property_takes_them_for() -> None:
    roles = [[o.role for o in PLAN.sites[k].operands] for k in SITES]
    assert roles == [["T", "U"], ["U", "T"], ["T", "U"], ["T", "U"]]
    assert [_paired_equality(PLAN.sites[k]) for k in SITES] == [("0", "1"), ("1", "0"), ("0", "1"), None]


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(SITES), _slots, _slots)
def test_a_paired_equality_gets_check_occurrences_verdict(k: int, mine: dict, gold: dict) -> None:
    site = PLAN.sites[k]
    expected = check_occurrence(site, mine, gold)
    expected = None if expected is None else f"line {site.line}: {expected}"
    assert check_test(PLAN.sites, [[k, mine]], [[k, gold]]) == expected


def test_the_value_equal_to_the_reference_holds_and_a_different_one_fails() -> None:
    k = SITES[0]
    assert check_test(PLAN.sites, [[k, {"0": "7"}]], [[k, {"0": "7", "1": "7"}]]) is None
    assert "differs from the reference" in check_test(PLAN.sites, [[k, {"0": "8"}]], [[k, {"0": "7", "1": "7"}]])
    forger = '{"$sub":["x.Y"]}'  # equal texts of a comparison-forging object: decided in full, never equal
    assert check_test(PLAN.sites, [[k, {"0": forger}]], [[k, {"0": forger, "1": forger}]]) is not None
    raised = '{"$raise":["builtins.ValueError"],"m":"no"}'  # the reference raised too: still no value
    assert "the checked expression raised" in check_test(PLAN.sites, [[k, {"0": raised}]],
                                                         [[k, {"0": raised, "1": raised}]])  # fmt: skip
    nan = '{"$f":"nan"}'  # equal texts holding a NaN: decided in full (a NaN equals a NaN there)
    assert check_test(PLAN.sites, [[k, {"0": nan}]], [[k, {"0": nan, "1": nan}]]) is None
