"""A plain call repeated in a loop is one entry with a count (observe.py), and the host's verdict is
the one it would give the executions written out one by one (_decide.check_test), whoever wrote
the counts."""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bouts.runner._decide import MAX_EXECUTED, check_occurrence, check_test
from bouts.runner._externalise import plan_file, site_base

OBSERVE = Path(__file__).parents[2] / "src/bouts/runner/sandboxed/_bouts_driver/observe.py"
_spec = importlib.util.spec_from_file_location("bouts_observe_runs_under_test", OBSERVE)
observe = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(observe)  # type: ignore[union-attr]

B = site_base("tests/hidden/test_x.py")
PLAN = plan_file(
    textwrap.dedent(
        """
        from ledger import Ledger, f
        def test_t():
            led = Ledger()
            led.receive("A", 5)
            assert f(3) == sum([3, 4])
            assert led.on_hand("A") == 5
        """
    ),
    "tests/hidden/test_x.py",
)
PLAIN, GOLD, LITERAL = B + 1, B + 2, B + 3
"""The plain call ``led.receive``, an assertion paired with the reference's value, one against a literal."""


@pytest.fixture(autouse=True)
def _fresh() -> None:
    observe.reset()


def test_the_sites_are_what_the_tests_below_take_them_for() -> None:
    assert PLAN.sites[PLAIN].form == "plain"
    assert [o.role for o in PLAN.sites[GOLD].operands] == ["T", "U"]
    assert [o.role for o in PLAN.sites[LITERAL].operands] == ["T", "L"]


def test_a_call_repeated_with_the_same_result_is_one_entry_counted() -> None:
    for _ in range(10_000):
        observe.obs(PLAIN, lambda: None)
    observe.obs(PLAIN, lambda: 1)
    observe.obs(GOLD, lambda: 1)
    assert observe.occurrences == [[PLAIN, {"0": "null"}, 10_000], [PLAIN, {"0": "1"}], [GOLD, {"0": "1"}]]
    assert observe.executed == 10_002


def test_the_golden_runs_plain_calls_say_only_that_they_returned() -> None:
    """The reference's plain calls: no value encoded (the host pairs none with them), so a loop of
    them is one entry whatever each returned; an exception propagates, as in the test."""
    values = iter(range(1000))
    for _ in range(1000):
        observe.gobs(PLAIN, lambda: next(values))
    assert observe.occurrences == [[PLAIN, {"0": '{"$ret":true}'}, 1000]]
    with pytest.raises(ValueError):
        observe.gobs(PLAIN, lambda: int("x"))
    assert observe.executed == 1000
    gold = observe.occurrences
    graded = [[PLAIN, {"0": str(i)}] for i in range(1000)]
    assert check_test(PLAN.sites, graded, gold) is None
    graded[500] = [PLAIN, {"0": '{"$raise":["builtins.KeyError"],"m":"x"}'}]
    assert check_test(PLAN.sites, graded, gold) == "KeyError: x"
    assert check_test(PLAN.sites, graded[:999], gold).startswith("its assertions ran differently")


def test_an_assertion_evaluated_in_place_is_never_merged() -> None:
    for _ in range(2):
        observe.open(LITERAL)
        observe.atom(0, 5)
        with observe.block(GOLD):
            pass
    assert [len(e) for e in observe.occurrences] == [2, 2, 2, 2]


def test_a_value_added_to_a_counted_entry_leaves_the_executions_before_it_as_they_were() -> None:
    for _ in range(3):
        observe.obs(PLAIN, lambda: None)
    observe.atom(1, "late")
    assert observe.occurrences == [[PLAIN, {"0": "null"}, 2], [PLAIN, {"0": "null", "1": '"late"'}]]
    observe.reset()
    for _ in range(2):
        observe.obs(PLAIN, lambda: None)
    observe.atom(1, "late")
    assert observe.occurrences == [[PLAIN, {"0": "null"}], [PLAIN, {"0": "null", "1": '"late"'}]]


def test_the_execution_cap_counts_every_execution_of_an_entry() -> None:
    for _ in range(observe.MAX_OCCURRENCES):
        observe.obs(PLAIN, lambda: None)
    assert not observe.overflow and observe.occurrences == [[PLAIN, {"0": "null"}, observe.MAX_OCCURRENCES]]
    observe.obs(PLAIN, lambda: None)
    assert observe.overflow
    assert observe.MAX_OCCURRENCES == MAX_EXECUTED  # the host reads no more than the sandbox keeps


def test_the_size_estimate_covers_the_counts() -> None:
    for i in range(300):
        for _ in range(i % 4 + 1):
            observe.obs(PLAIN, lambda i=i: i // 2)
        observe.open(LITERAL)
        observe.atom(0, i)
    wire = observe.text()  # the record's body, as the test process writes it
    assert len(wire) <= observe.total + len("[]")


# -- the host ------------------------------------------------------------------------------------

TEXTS = ["null", "5", "7", '{"$raise":["builtins.ValueError"],"m":"no"}']
_execution = st.tuples(st.sampled_from([PLAIN, GOLD, LITERAL]), st.sampled_from(TEXTS), st.sampled_from(TEXTS))


def _written_out(executions: list[tuple[int, str, str]], gold: bool) -> list[list]:
    """One entry per execution (what the engine sent before counts): the reference's pairs carry the
    expected operand of a paired site too."""
    out = []
    for site, mine, ref in executions:
        if not gold:
            out.append([site, {"0": mine}])
        else:
            out.append([site, {"0": ref, "1": ref}] if site == GOLD else [site, {"0": ref}])
    return out


def _counted(entries: list[list], cuts: list[bool]) -> list[list]:
    """The same executions with each stretch of equal entries written as counted entries, cut where
    ``cuts`` says (any split of a stretch is a record a sandbox may send)."""
    out: list[list] = []
    for i, (site, slots) in enumerate(entries):
        last = out[-1] if out else None
        if last is not None and last[0] == site and last[1] == slots and not cuts[i % len(cuts)]:
            if len(last) == 3:
                last[2] += 1
            else:
                last.append(2)
        else:
            out.append([site, dict(slots)])
    return out


def _one_by_one(mine: list[list], gold: list[list] | None) -> str | None:
    """The verdict on executions written out, one check each, as the host decided before counts."""
    if gold is not None and [k for k, _ in mine] != [k for k, _ in gold]:
        counts = f"({len(mine)} executed, {len(gold)} expected)"
        return f"its assertions ran differently from the reference solution's {counts}"
    for i, (k, slots) in enumerate(mine):
        site = PLAN.sites[k]
        why = check_occurrence(site, slots, gold[i][1] if gold is not None else None)
        if why:
            return why if site.form == "plain" else f"line {site.line}: {why}"
    return None


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_execution, max_size=30),
    st.lists(_execution, max_size=4),
    st.lists(st.booleans(), min_size=1, max_size=7),
    st.lists(st.booleans(), min_size=1, max_size=7),
    st.integers(1, 40),
    st.booleans(),
)
def test_counted_entries_get_the_verdict_of_the_executions_written_out(
    executions: list, pattern: list, cuts_sub: list, cuts_ref: list, times: int, agree: bool
) -> None:
    executions = executions + pattern * times  # long stretches of one execution, as a loop makes
    if agree:  # the submission saw what the reference saw: every check holds unless the runs differ
        executions = [(site, mine, mine) for site, mine, _ in executions]
    sub, ref = _written_out(executions, gold=False), _written_out(executions, gold=True)
    variants = [(sub, ref), (sub[:-1], ref), (sub, ref[:-1]), (sub[1:] + sub[:1], ref)]  # and runs that differ
    for mine, gold in variants:
        assert check_test(PLAN.sites, _counted(mine, cuts_sub), _counted(gold, cuts_ref)) == _one_by_one(mine, gold)
        assert check_test(PLAN.sites, _counted(mine, cuts_sub), None) == _one_by_one(mine, None)
        assert check_test(PLAN.sites, mine, gold) == _one_by_one(mine, gold)


def test_a_loop_of_a_call_that_raises_once_fails_at_that_call() -> None:
    raised = '{"$raise":["builtins.ValueError"],"m":"bad quantity"}'
    gold = [[PLAIN, {"0": "null"}, 10_000]]
    sub = [[PLAIN, {"0": "null"}, 4_000], [PLAIN, {"0": raised}], [PLAIN, {"0": "null"}, 5_999]]
    assert check_test(PLAN.sites, sub, gold) == "ValueError: bad quantity"
    short = [[PLAIN, {"0": "null"}, 9_999]]
    assert "(9999 executed, 10000 expected)" in check_test(PLAN.sites, short, gold)


@pytest.mark.parametrize(
    "entry",
    [
        [PLAIN, {"0": "null"}, 0],
        [PLAIN, {"0": "null"}, -3],
        [PLAIN, {"0": "null"}, True],
        [PLAIN, {"0": "null"}, 2.0],
        [PLAIN, {"0": "null"}, "2"],
        [PLAIN, {"0": "null"}, MAX_EXECUTED + 1],
        [PLAIN, {"0": "null"}, 10**30],
        [PLAIN, {"0": "null"}, 2, 2],
    ],
)
def test_a_count_that_is_no_count_of_executions_fails_the_test(entry: list) -> None:
    assert check_test(PLAN.sites, [entry], [entry]) is not None
    assert check_test(PLAN.sites, [entry], [[PLAIN, {"0": "null"}]]) == "unreadable observations"


def test_counts_past_the_cap_in_all_are_unreadable() -> None:
    half = [PLAIN, {"0": "null"}, MAX_EXECUTED // 2 - 1]
    cap = [half, [LITERAL, {"0": "5"}], half, [LITERAL, {"0": "5"}]]  # exactly MAX_EXECUTED
    assert check_test(PLAN.sites, cap, None) is None
    assert check_test(PLAN.sites, [*cap, [LITERAL, {"0": "5"}]], None) == "unreadable observations"


@pytest.mark.parametrize(
    "slots",
    [
        {},
        {"1": "5"},
        {"0": 5},
        {"0": "null"},
        {"0": '{"$raise":["x.E"],"m":"no"}'},
        {"0": '{"\\u0024raise":["x.E"],"m":"no"}'},
        {"0": "null", "1": '{"$raise":[]}'},
    ],
)
def test_a_plain_call_gets_the_verdict_check_occurrence_gives_it(slots: dict) -> None:
    """The host's shortcut for a plain call (it holds unless it raised) decides as the full check."""
    for gold in ([[PLAIN, {"0": "null"}]], None):
        assert check_test(PLAN.sites, [[PLAIN, slots]], gold) == check_occurrence(PLAN.sites[PLAIN], slots, None)
    assert check_test(PLAN.sites, [[PLAIN, {}]], None) == "an operand was not observed"
