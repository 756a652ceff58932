"""The assertion rewriter and the host's verdict, without a sandbox (pure functions)."""

from __future__ import annotations

import ast
import importlib.util
import textwrap
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from bouts.runner._decide import check_test, decode
from bouts.runner._externalise import plan_file, site_base

OBSERVE = Path(__file__).parents[2] / "src/bouts/runner/sandboxed/_bouts_driver/observe.py"
_spec = importlib.util.spec_from_file_location("bouts_observe_under_test", OBSERVE)
observe = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(observe)  # type: ignore[union-attr]


B = site_base("tests/hidden/test_x.py")
"""The first site id of the file every test here plans."""


def plan(src: str):  # noqa: ANN201
    return plan_file(textwrap.dedent(src), "tests/hidden/test_x.py")


def test_expected_literals_never_reach_the_external_text() -> None:
    p = plan(
        """
        import pytest
        from calc import add, Thing
        def test_a():
            assert add(1, 2) == 31337
            assert 27182 == add(3, 4)
            assert add(0, 0) is None
            assert isinstance(add(1, 1), Thing)
            assert add(0.1, 0.2) == pytest.approx(0.30001, rel=1e-3)
            assert abs(add(1, 1) - 2.0001) < 0.01
            with pytest.raises(ValueError, match="negat"):
                add(-1, 0)
            assert "needle77" in add("a", "b")
        """
    )
    for secret in ("31337", "27182", "0.30001", "2.0001", "negat", "needle77", "ValueError", "approx"):
        assert secret not in p.external, secret
    assert "isinstance" not in p.external
    assert p.counts == (8, 8)
    ast.parse(p.external)  # still Python
    assert "31337" in p.golden and "_bouts.atom(0, add(1, 2))" in p.golden


def test_a_computed_expected_value_stays_out_and_is_taken_from_the_golden_run() -> None:
    p = plan(
        """
        from calc import total
        def test_t(bouts_seed):
            data = [bouts_seed, 2]
            assert total(data) == sum(data) * 7
        """
    )
    assert "sum(data)" not in p.external and "* 7" not in p.external
    site = p.sites[B]
    assert [o.role for o in site.operands] == ["T", "U"]
    gold = [[B, {"0": 42, "1": 42}]]
    assert check_test(p.sites, [[B, {"0": 42}]], gold) is None
    assert "differs" in check_test(p.sites, [[B, {"0": 41}]], gold)


def test_unittest_and_bouts_expect_assertions_are_externalised() -> None:
    p = plan(
        """
        import unittest
        from calc import add
        class T(unittest.TestCase):
            def test_x(self):
                self.assertEqual(add(1, 2), 3)
                self.assertIsNone(add(None, None))
                self.assertAlmostEqual(add(0.1, 0.2), 0.3)
                self.assertRaises(TypeError, add, "a", 1)
        def test_y(bouts_expect):
            bouts_expect(add(1, 1))
            bouts_expect(add(2, 2), 4)
        """
    )
    assert p.counts == (6, 6)
    assert "assertEqual" not in p.external and "assertRaises" not in p.external


def test_what_cannot_be_externalised_is_counted_with_the_reason() -> None:
    p = plan(
        """
        import pytest
        from calc import add
        @pytest.mark.parametrize("a, expected", [(1, 2), (2, 3)])
        def test_p(a, expected):
            assert add(a, 1) == expected
        def test_g():
            r = add(1, 2)
            assert r > 0 or r is None
        """
    )
    whys = sorted(s.why for s in p.sites.values() if not s.externalised)
    assert p.counts == (0, 2) and "parametrize" in whys[1] and "no recognised shape" in whys[0]


def test_the_host_requires_the_reference_sequence_of_assertions() -> None:
    p = plan(
        """
        from calc import f
        def test_loop():
            for x in f():
                assert x > 0
        """
    )
    gold = [[B, {"0": 1}], [B, {"0": 2}]]
    assert check_test(p.sites, [[B, {"0": 5}], [B, {"0": 6}]], gold) is None  # literal predicate holds
    assert "differently" in check_test(p.sites, [], gold)  # a no-op'd test
    assert "differently" in check_test(p.sites, [[B, {"0": 5}]], gold)  # a loop cut short
    assert check_test(p.sites, [[B, {"0": -1}], [B, {"0": 2}]], gold) is not None
    assert check_test(p.sites, [[B + 9, {}]], [[B + 9, {}]]) == "an assertion the test file does not have"
    assert check_test(p.sites, ["junk"], gold) == "unreadable observations"


def test_raises_is_decided_by_what_the_call_did() -> None:
    p = plan(
        """
        import pytest
        from calc import f
        def test_r():
            with pytest.raises(KeyError):
                f()
        """
    )
    raised = {"$raise": ["builtins.KeyError", "builtins.LookupError"], "m": "x"}
    assert check_test(p.sites, [[B, {"0": raised}]], [[B, {"0": raised}]]) is None
    assert "expected an exception" in check_test(p.sites, [[B, {"0": {"$ret": True}}]], [[B, {"0": raised}]])
    wrong = {"$raise": ["builtins.ValueError"], "m": "x"}
    assert check_test(p.sites, [[B, {"0": wrong}]], [[B, {"0": raised}]]) is not None


class _Always(int):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = int.__hash__


def test_comparison_forging_objects_are_never_equal() -> None:
    enc = observe.encode(_Always(3))
    assert "$sub" in enc and decode(enc) != decode(enc)
    assert observe.encode((1, [2.5, float("nan")], {"k": {1, 2}}))["$t"][0] == 1


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                    lambda kids: st.lists(kids) | st.tuples(kids, kids) | st.dictionaries(st.text(), kids),
                    max_leaves=20))  # fmt: skip
def test_encoding_round_trips_plain_data(value: object) -> None:
    import json

    wire = json.loads(json.dumps(observe.encode(value)))
    assert decode(wire) == value


def test_an_expected_value_built_beside_the_inputs_is_pruned_from_the_external_text() -> None:
    # A forger walking to the test's frame would find ``expected`` and return expected[sku].
    p = plan(
        """
        import random
        from ledger import Ledger
        def test_scale(bouts_seed):
            rng = random.Random(bouts_seed)
            led = Ledger()
            expected = dict.fromkeys("ABC", 0)
            for _ in range(100):
                sku, qty = rng.choice("ABC"), rng.randint(1, 9)
                led.receive(sku, qty)
                expected[sku] += qty
                noise = [rng.random()]
            assert {s: led.on_hand(s) for s in "ABC"} == expected
        """
    )
    assert "expected" not in p.external and "expected" in p.golden
    # statements that draw random numbers stay, so the submission sees the reference's inputs
    assert p.external.count("rng.") == p.golden.count("rng.")


def test_a_single_call_expected_to_raise_looks_like_any_other_observation() -> None:
    p = plan(
        """
        import pytest
        from calc import f
        def test_r():
            with pytest.raises(ValueError):
                f(-1)
            assert f(2) == 4
        """
    )
    assert f"_bouts.obs({B}, lambda: f(-1))" in p.external and f"_bouts.obs({B + 1}, lambda: f(2))" in p.external
    assert "block" not in p.external


def test_site_ids_are_unique_across_a_runs_files_and_stable() -> None:
    # A test may call a helper of another test file: its assertions must not be read as this file's.
    src = "from calc import f\ndef test_a():\n    assert f(1) == 2\n"
    one, other = plan_file(src, "tests/visible/test_a.py"), plan_file(src, "tests/hidden/test_a.py")
    assert set(one.sites).isdisjoint(other.sites)
    assert set(one.sites) == set(plan_file(src, "tests/visible/test_a.py").sites)
