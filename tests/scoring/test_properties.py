"""Property-based checks of the scoring core: bounds, monotonicity, weight sums, panel, provisional."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from bouts.scoring import components, panel, profiles
from bouts.scoring.components import WeightedTest
from bouts.scoring.explain import Explained, NotScored, clamp, round_half_up
from bouts.scoring.profiles import Adjustments
from bouts.scoring.weights import FAMILIES

score = st.floats(min_value=0, max_value=100, allow_nan=False)
severity = st.sampled_from(["critical", "high", "medium", "low"])
weighted_tests = st.lists(st.builds(WeightedTest, severity, st.booleans()), min_size=1, max_size=30)
family = st.sampled_from(sorted(FAMILIES))
counts = st.fixed_dictionaries({k: st.integers(0, 10) for k in ("critical", "high", "medium", "low")})

ENGINE = tuple(profiles.ENGINE_WEIGHTS)
FOUR = tuple(profiles.FOUR_JUDGE_WEIGHTS)
COMPOSITE = ("objective", "process", "strategy", "recovery", "efficiency")
ALL_COMPONENTS = tuple(dict.fromkeys(ENGINE + FOUR + COMPOSITE))


def E(v: float) -> Explained:
    return Explained(v, ())


def in_range(x: float) -> bool:
    return 0 <= x <= 100


@st.composite
def passed_total(draw):
    total = draw(st.integers(1, 500))
    return draw(st.integers(0, total)), total


@st.composite
def component_scores(draw, names=ALL_COMPONENTS):
    """Any subset of the components scored, each 0-100; the rest not scored."""
    present = draw(st.lists(st.sampled_from(names), unique=True))
    return {n: (E(draw(score)) if n in present else NotScored("not scored")) for n in names}


adjustments = st.builds(
    Adjustments,
    integrity=st.floats(-25, 10).map(E),
    exploit_penalties=st.floats(0, 200).map(E),
    calibration=st.floats(-5, 5).map(E),
)

# --- bounds ------------------------------------------------------------------------------------


@given(passed_total())
def test_static_tests_in_range(pt):
    assert in_range(components.static_tests(*pt).value)


@given(weighted_tests)
def test_adversarial_in_range(tests):
    assert in_range(components.adversarial(tests).value)


@given(counts)
def test_security_in_range(c):
    assert in_range(components.security(c).value)


@given(st.integers(0, 50), st.integers(0, 50), st.integers(0, 80), st.integers(0, 80))
def test_process_in_range(a, b, c, d):
    assert in_range(components.process(a, b, c, d).value)


@given(st.lists(st.text(max_size=5), max_size=2), st.lists(st.floats(5, 10), max_size=30))
def test_integrity_in_range(bright, gray):
    assert in_range(components.integrity(bright, gray).value)


@given(st.integers(0, 100).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_recovery_in_range(mr):
    assert in_range(components.recovery(*mr).value)


@given(st.fixed_dictionaries({k: score for k in components.DELIVERABLE_WEIGHTS}))
def test_deliverable_in_range(sub):
    assert in_range(components.deliverable(sub).value)


@given(st.one_of(score.map(E), st.just(NotScored("x"))), st.one_of(score.map(E), st.just(NotScored("y"))))
def test_correctness_and_split_in_range(a, b):
    for r in (components.correctness(a, b), components.adversarial_split(a, b)):
        assert isinstance(r, NotScored) or in_range(r.value)


@given(st.lists(score, min_size=1, max_size=5))
def test_panel_in_range(js):
    assert in_range(panel.aggregate(js).score.value)


@given(component_scores(), family, adjustments)
def test_every_profile_in_range(scores, fam, adj):
    for r in profiles.all_profiles(scores, FAMILIES[fam], adj).values():
        if r.raw is None:
            assert r.final is None
            continue
        assert in_range(r.raw)
        assert 0 <= r.final <= 100
        assert r.band == profiles.band(r.final)
        assert r.final == round_half_up(r.raw)


# --- monotonicity -------------------------------------------------------------------------------


@given(component_scores(), st.sampled_from(ALL_COMPONENTS), score, score, family, adjustments)
def test_raising_one_component_never_lowers_any_profile(scores, name, a, b, fam, adj):
    low, high = sorted((a, b))
    lowered = {**scores, name: E(low)}
    raised = {**scores, name: E(high)}
    before = profiles.all_profiles(lowered, FAMILIES[fam], adj)
    after = profiles.all_profiles(raised, FAMILIES[fam], adj)
    for p in before:
        if before[p].raw is not None:
            assert after[p].raw >= before[p].raw - 1e-9, p
            assert after[p].final >= before[p].final, p


@given(st.integers(1, 500).flatmap(lambda t: st.tuples(st.integers(0, t - 1), st.just(t))))
def test_one_more_passing_test_never_lowers_static(pt):
    passed, total = pt
    base = components.static_tests(passed, total).value
    assert components.static_tests(passed + 1, total).value >= base
    assert components.static_tests(passed + 1, total + 1).value >= base  # a new test that passes


@given(weighted_tests, st.data())
def test_one_more_passing_adversarial_test_never_lowers(tests, data):
    base = components.adversarial(tests).value
    failing = [i for i, t in enumerate(tests) if not t.passed]
    if failing:
        i = data.draw(st.sampled_from(failing))
        flipped = [*tests[:i], WeightedTest(tests[i].severity, True), *tests[i + 1 :]]
        assert components.adversarial(flipped).value >= base
    added = [*tests, WeightedTest(data.draw(severity), True)]
    assert components.adversarial(added).value >= base


@given(counts, severity)
def test_one_more_security_finding_never_raises(c, sev):
    more = {**c, sev: c[sev] + 1}
    assert components.security(more).value <= components.security(c).value


@given(st.integers(0, 20), st.integers(0, 20), st.integers(0, 20), st.integers(0, 20), st.integers(0, 3))
def test_one_more_process_fault_never_raises(a, b, c, d, which):
    args = [a, b, c, d]
    more = list(args)
    more[which] += 1
    assert components.process(*more).value <= components.process(*args).value


agreeing_panel = st.tuples(st.floats(0, 85), st.lists(st.floats(0, 15), min_size=3, max_size=3)).map(
    lambda bo: [bo[0] + o for o in bo[1]]
)


@given(agreeing_panel, st.integers(0, 2), st.floats(0, 15))
def test_panel_median_rule_monotone_when_agreeing(js, i, bump):
    """Within the agreement band, raising one judge never lowers the median."""
    raised = list(js)
    raised[i] = min(100.0, js[i] + bump)
    assume(max(js) - min(js) <= 15 and max(raised) - min(raised) <= 15)
    assert panel.aggregate(raised).score.value >= panel.aggregate(js).score.value


# --- weight sums --------------------------------------------------------------------------------


def test_weight_sums():
    assert math.isclose(sum(profiles.ENGINE_WEIGHTS.values()), 1.0)
    assert math.isclose(sum(profiles.FOUR_JUDGE_WEIGHTS.values()), 1.0)
    for name, w in FAMILIES.items():
        assert 0.90 - 1e-9 <= w.total <= 1.00 + 1e-9, name
    assert math.isclose(sum(components.DELIVERABLE_WEIGHTS.values()), 1.0)
    assert math.isclose(sum(components.CORRECTNESS_WEIGHTS.values()), 0.50)


# --- panel --------------------------------------------------------------------------------------


@given(st.lists(score, min_size=1, max_size=3))
def test_panel_within_min_minus_10_and_max(js):
    r = panel.aggregate(js)
    v = r.score.value
    # Explained values are rounded to 6 decimals (explain.PRECISION)
    assert max(0.0, min(js) - 10) - 1e-6 <= v <= max(js) + 1e-6
    assert r.human_review == (r.rule == "disagreement")


@given(st.one_of(agreeing_panel, agreeing_panel.map(lambda js: js[:2]), score.map(lambda v: [v])))
def test_panel_median_whenever_spread_within_15(js):
    assume(max(js) - min(js) <= 15)
    r = panel.aggregate(js)
    median = sorted(js)[len(js) // 2] if len(js) % 2 else sum(js) / len(js)
    assert r.score.value == pytest.approx(median, abs=1e-6)
    assert not r.human_review


@given(st.lists(st.integers(0, 100), min_size=3, max_size=3))
def test_panel_three_integer_judges_rule(js):
    """The SPEC §3 rule, restated independently on integer scores."""
    r = panel.aggregate(js)
    spread = max(js) - min(js)
    qualifying = [i for i in range(3) if all(abs(js[i] - js[j]) > 15 for j in range(3) if j != i)]
    dist = {i: sum(abs(js[i] - t) for t in js) for i in qualifying}
    leaders = [i for i in dist if dist[i] == max(dist.values(), default=None)]
    if spread <= 15:
        assert r.rule == "median" and r.score.value == sorted(js)[1]
    elif len(qualifying) <= 2 and len(leaders) == 1:
        out = leaders[0]
        rest = [s for k, s in enumerate(js) if k != out]
        assert r.rule == "outlier_dropped" and r.outlier == out
        assert r.score.value == pytest.approx(sum(rest) / 2)
    else:
        assert r.rule == "disagreement" and r.human_review
        assert r.score.value == pytest.approx(max(0, sum(js) / 3 - 10))


# --- provisional --------------------------------------------------------------------------------


@given(st.lists(st.sampled_from(ENGINE), min_size=1, unique=True), score)
def test_engine_any_subset_all_equal_gives_v(present, v):
    r = profiles.engine({k: E(v) for k in present})
    assert r.raw == pytest.approx(v, abs=1e-6)
    assert r.provisional == (len(present) < len(ENGINE))
    assert set(r.missing) == set(ENGINE) - set(present)


@given(st.lists(st.sampled_from(FOUR), min_size=1, unique=True), score)
def test_four_judge_any_subset_all_equal_gives_v(present, v):
    assert profiles.four_judge({k: E(v) for k in present}).raw == pytest.approx(v, abs=1e-6)


@given(st.lists(st.sampled_from(COMPOSITE), min_size=1, unique=True), score, family)
def test_composite_any_subset_all_equal_gives_v_times_total_weight(present, v, fam):
    w = FAMILIES[fam]
    r = profiles.composite({k: E(v) for k in present}, w)
    assert r.raw == pytest.approx(v * w.total, abs=1e-6)


# --- adjustments are added, never averaged --------------------------------------------------------


@given(component_scores(COMPOSITE), family, adjustments)
def test_composite_adjustments_added_then_clamped(scores, fam, adj):
    w = FAMILIES[fam]
    plain = profiles.composite(scores, w)
    adjusted = profiles.composite(scores, w, adj)
    if plain.raw is None:
        assert adjusted.raw is None
        return
    # the weighted part is not clamped on its own (a provisional composite can't exceed 100 anyway)
    expected = clamp(
        plain.raw + adj.integrity.value - adj.exploit_penalties.value + adj.calibration.value, 0, 100
    )
    assert adjusted.raw == pytest.approx(expected, abs=2e-6)  # both sides rounded to 6 decimals
    # contributions (the weighted part) are the same with or without adjustments
    assert adjusted.contributions == plain.contributions


@given(st.floats(0, 100, allow_nan=False))
def test_round_half_up_is_nearest(x):
    n = round_half_up(x)
    assert abs(n - x) <= 0.5 + 1e-9
    assert round_half_up(math.floor(x) + 0.5) == math.floor(x) + 1
