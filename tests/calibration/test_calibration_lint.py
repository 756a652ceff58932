"""The static test-suite lint of ``bouts check`` (behaviour pairing, mix, seeds), on source text."""

from __future__ import annotations

from pathlib import Path

from bouts.calibration._tests_ast import guess_category, parse_tests
from bouts.calibration.lint import lint_suites

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "inventory-ledger"

VISIBLE = '''
def test_add(): assert 1
def test_sub(): assert 1
'''


def _suite(hidden: str, visible: str = VISIBLE) -> dict[str, tuple[str, str]]:
    return {"tests/visible/test_v.py": ("visible", visible), "tests/hidden/test_h.py": ("hidden", hidden)}


def test_the_examples_suites_lint_clean() -> None:
    files = {str(p.relative_to(EXAMPLE)): (p.parent.name, p.read_text()) for p in EXAMPLE.glob("tests/*/test_*.py")}
    report, problems = lint_suites(files)
    assert problems == []
    assert len(report.coverage) == 12 and all(len(c.hidden) >= 2 for c in report.coverage)
    assert report.hidden_total == 28
    assert report.mix is not None and sum(report.mix.counts.values()) == 40
    assert "tests/hidden/test_ledger_hidden.py::test_report_values_stock_exactly__seeded_prices" in report.seeded_hidden


def test_too_few_hidden_tests_is_an_error_naming_the_behaviour_and_file() -> None:
    hidden = '''
import os
def test_add__swap(): os.environ["BOUTS_SEED"]
def test_add__scale(): pass
def test_sub__swap(): pass
'''
    _, problems = lint_suites(_suite(hidden))
    errors = [p for p in problems if p.level == "error"]
    assert len(errors) == 1
    assert errors[0].file == "tests/visible/test_v.py" and errors[0].field == "test_sub"
    assert "1 hidden test case(s) vary the visible behaviour 'sub'" in errors[0].message


def test_markers_and_literal_parametrize_count_as_cases_of_a_behaviour() -> None:
    hidden = '''
import pytest
@pytest.mark.behaviour("add")
@pytest.mark.parametrize("a,b", [(1, 2), (3, 4), (5, 6)])
def test_plus_values(a, b, bouts_seed): pass

class TestSub:
    pytestmark = pytest.mark.behaviour("sub", category="integration")
    def test_one(self): pass
    @pytest.mark.behaviour(category="edge")
    def test_two(self): pass
'''
    report, problems = lint_suites(_suite(hidden))
    assert [p for p in problems if p.level == "error"] == []
    cov = {c.behaviour: c.hidden for c in report.coverage}
    assert len(cov["add"]) == 3 and cov["sub"] == ["TestSub::test_one", "TestSub::test_two"]
    tests = {t.name: t for t in parse_tests(hidden)}
    assert tests["TestSub::test_one"].category == "integration" and tests["TestSub::test_one"].category_declared
    assert tests["TestSub::test_two"].category == "edge"
    assert tests["test_plus_values"].seeded


def test_seed_use_through_a_helper_or_fixture_is_seen_and_unseeded_randomness_warned_once_per_place() -> None:
    hidden = '''
import os, random, pytest
def _rng():
    return random.Random(int(os.environ.get("BOUTS_SEED", "1")))
@pytest.fixture
def data():
    return _rng().sample(range(100), 5)
def test_add__helper(): _rng()
def test_add__fixture(data): pass
def test_sub__unseeded(): random.shuffle([1, 2])
def test_sub__fresh_generator(): random.Random().random()
'''
    report, problems = lint_suites(_suite(hidden))
    assert {s.rsplit("::", 1)[1] for s in report.seeded_hidden} == {"test_add__helper", "test_add__fixture"}
    warned = {p.field for p in problems if "randomness not drawn from the seed" in p.message}
    assert warned == {"test_sub__unseeded", "test_sub__fresh_generator"}


def test_no_seeded_hidden_test_and_a_lopsided_mix_are_warnings() -> None:
    hidden = "\n".join(f"def test_{b}__rejects_{i}(): pass" for b in ("add", "sub") for i in range(10))
    _, problems = lint_suites(_suite(hidden))
    assert all(p.level == "warning" for p in problems)
    assert any("no hidden test reads the seed" in p.message for p in problems)
    assert any(p.field == "edge" and "target mix" in p.message and "[tests] mix" in p.message for p in problems)


def test_a_small_suite_or_the_challenges_own_mix_is_not_told_to_relabel_tests() -> None:
    small = "\n".join(f"def test_{b}__rejects_{i}(): pass" for b in ("add", "sub") for i in range(3))
    report, problems = lint_suites(_suite(small))
    assert report.mix is not None and not [p for p in problems if "target mix" in p.message]
    pure = "\n".join(f"def test_{b}__{w}_{i}(): pass" for b in ("add", "sub") for i in range(5)
                      for w in ("rejects", "value"))  # fmt: skip
    _, problems = lint_suites(_suite(pure))
    assert any(p.field == "integration" for p in problems)  # 0% integration against the default 20
    own = {"functionality": 50.0, "edge": 50.0, "integration": 0.0}
    report, problems = lint_suites(_suite(pure), target=own)
    assert not [p for p in problems if "target mix" in p.message] and report.mix and report.mix.target == own


def test_a_bad_marker_or_syntax_error_is_an_error_with_the_file() -> None:
    bad_marker = 'import pytest\n@pytest.mark.behaviour("add", category="weird")\ndef test_x(): pass\n'
    _, problems = lint_suites(_suite(bad_marker))
    assert any(p.file == "tests/hidden/test_h.py" and "category must be one of" in p.message for p in problems)
    _, problems = lint_suites(_suite("def test_(:\n"))
    assert any(p.file == "tests/hidden/test_h.py" and "not valid Python" in p.message for p in problems)


def test_category_heuristic_reads_the_variant_first() -> None:
    assert guess_category("test_movements_pages_cover_whole_log__page_past_end_is_empty") == "edge"
    assert guess_category("test_cancel_releases_reservation__then_stock_can_ship") == "integration"
    assert guess_category("test_cancel_releases_reservation__reverse_order") == "functionality"
    assert guess_category("test_ship_more_than_available_raises") == "edge"


KINDED_VISIBLE = '''
def test_total(): assert total([1, 2]) == 3
'''


def _kind_problems(hidden: str) -> list:
    _, problems = lint_suites(_suite(hidden, KINDED_VISIBLE))
    return [p for p in problems if "SPEC §3" in p.message and p.level == "warning"]


def test_hidden_tests_that_only_repeat_the_visible_values_are_named_by_the_kinds_they_miss() -> None:
    """Before: two hidden copies of the visible test passed the lint (it counted, never looked at kinds)."""
    copies = '''
def test_total__again(): assert total([1, 2]) == 3
def test_total__once_more(): assert total([1, 2]) == 3
'''
    problems = _kind_problems(copies)
    assert {p.field for p in problems if p.file == "tests/hidden"} == {"value_swap", "order", "scale", "invalid"}
    [behaviour] = [p for p in problems if p.file != "tests/hidden"]
    assert "the 2 hidden test(s) of behaviour 'total' vary it by none" in behaviour.message
    assert (behaviour.file, behaviour.field) == ("tests/hidden/test_h.py", "test_total__again")


def test_each_kind_is_recognised_by_its_code() -> None:
    kinds = '''
import pytest
def test_total__a(): assert total([5, 7]) == 12
def test_total__b(): assert total(list(reversed([1, 2, 3]))) == 6
def test_total__c(): assert total(list(range(10_000))) == 49995000
def test_total__d():
    with pytest.raises(TypeError):
        total([None])
'''
    report, _ = lint_suites(_suite(kinds, KINDED_VISIBLE))
    assert _kind_problems(kinds) == []
    ids = {k: [i.split("::")[1] for i in v] for k, v in report.hidden_kinds.items()}
    assert "test_total__a" in ids["value_swap"] and ids["order"] == ["test_total__b"]
    assert ids["scale"] == ["test_total__c"] and ids["invalid"] == ["test_total__d"]


def test_a_helper_or_fixture_gives_its_kind_to_the_tests_that_use_it_and_4xx_is_invalid_input() -> None:
    hidden = '''
import pytest
@pytest.fixture
def many(): return [1] * 20_000
def shuffled(xs, rng): rng.shuffle(xs); return xs
def test_total__big(many): assert total(many) == 20_000
def test_total__mixed(bouts_seed): assert total(shuffled([1, 2], bouts_seed)) == 3
def test_total__posted(client): assert client.post("/total", json={}).status_code == 422
'''
    report, _ = lint_suites(_suite(hidden, KINDED_VISIBLE))
    assert _kind_problems(hidden) == []
    assert [i.split("::")[1] for i in report.hidden_kinds["scale"]] == ["test_total__big"]
    assert [i.split("::")[1] for i in report.hidden_kinds["order"]] == ["test_total__mixed"]
    assert [i.split("::")[1] for i in report.hidden_kinds["invalid"]] == ["test_total__posted"]


def test_the_bundled_challenges_show_every_kind() -> None:
    for name in ("inventory-ledger", "league-table", "room-bookings"):
        root = EXAMPLE.parent / name
        files = {str(p.relative_to(root)): (p.parent.name, p.read_text()) for p in root.glob("tests/*/test_*.py")}
        report, problems = lint_suites(files)
        assert all(report.hidden_kinds[k] for k in ("value_swap", "order", "scale", "invalid")), name
        assert not [p for p in problems if "SPEC §3" in p.message], name
