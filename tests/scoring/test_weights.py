"""SPEC §2: the nine families and the override rules."""

from __future__ import annotations

import pytest

from bouts.errors import WeightsError
from bouts.scoring.weights import (
    COMPOSITE_COMPONENTS,
    FAMILIES,
    CompositeWeights,
    check_weights,
    resolve_weights,
)

SPEC_FAMILIES = {
    "default": (45, 15, 15, 10, 10),
    "blacksite-debug": (45, 20, 10, 20, 5),
    "fog-of-war": (35, 20, 25, 15, 5),
    "false-summit": (40, 15, 10, 15, 10),
    "versus-arena": (30, 15, 25, 20, 10),
    "marathon-strategy": (30, 15, 30, 15, 10),
    "constraint-maze": (40, 20, 20, 10, 10),
    "recovery-lab": (30, 15, 10, 35, 10),
    "humanity-gap": (30, 15, 30, 10, 10),
}


def custom(o, p, s, r, e):
    return {
        "objective": o / 100,
        "process": p / 100,
        "strategy": s / 100,
        "recovery": r / 100,
        "efficiency": e / 100,
    }


def test_exactly_the_nine_families():
    assert set(FAMILIES) == set(SPEC_FAMILIES)


@pytest.mark.parametrize(("name", "ws"), SPEC_FAMILIES.items())
def test_family_weights_exactly_as_spec(name, ws):
    fam = FAMILIES[name]
    assert tuple(fam.as_dict()) == COMPOSITE_COMPONENTS
    assert tuple(round(v * 100, 9) for v in fam.as_dict().values()) == ws
    assert fam.source == name
    assert not fam.custom
    assert resolve_weights(name) == fam


@pytest.mark.parametrize("name", [n for n in SPEC_FAMILIES if n != "recovery-lab"])
def test_builtin_families_pass_the_rules(name):
    assert check_weights(FAMILIES[name]) == []


def test_recovery_lab_breaks_exactly_one_rule():
    problems = check_weights(FAMILIES["recovery-lab"])
    assert len(problems) == 1
    assert "recovery" in problems[0] and "larger than the objective" in problems[0]


@pytest.mark.parametrize(("name", "total"), [(n, sum(ws)) for n, ws in SPEC_FAMILIES.items()])
def test_family_sums_within_90_100(name, total):
    assert 90 <= total <= 100
    assert FAMILIES[name].total == pytest.approx(total / 100)


def test_family_table_sums_to_90_95_and_100():
    assert {sum(ws) for ws in SPEC_FAMILIES.values()} == {90, 95, 100}


def test_unknown_family_rejected():
    with pytest.raises(WeightsError) as info:
        resolve_weights("nope")
    assert info.value.field == "family"
    assert "nope" in str(info.value)


def test_valid_override_is_custom():
    w = resolve_weights("default", custom(40, 15, 15, 15, 10))
    assert w.custom
    assert w.source == "custom"
    assert w.objective == 0.40


@pytest.mark.parametrize(
    "ws",
    [
        (30, 30, 15, 10, 10),  # ties with objective allowed
        (30, 15, 30, 10, 10),
        (30, 30, 30, 5, 5),  # ties, 5% minimum, sum 100
        (50, 10, 10, 10, 10),  # sum 90
        (30, 20, 20, 15, 15),  # sum 100
    ],
)
def test_override_boundaries_accepted(ws):
    assert check_weights(CompositeWeights(*(w / 100 for w in ws), source="custom")) == []
    resolve_weights("default", custom(*ws))


@pytest.mark.parametrize(
    ("ws", "needle"),
    [
        ((25, 25, 20, 15, 10), "objective weight 0.25 is below the minimum 0.3"),
        ((45, 20, 20, 4, 6), "recovery weight 0.04 is below the minimum 0.05"),
        ((40, 15, 15, 10, 5), "sum to 0.85, outside 0.9-1"),
        ((45, 20, 20, 10, 10), "sum to 1.05, outside 0.9-1"),
        ((30, 31, 14, 10, 10), "process weight 0.31 is larger than the objective weight 0.3"),
    ],
)
def test_override_rule_broken_named(ws, needle):
    with pytest.raises(WeightsError) as info:
        resolve_weights("default", custom(*ws))
    assert needle in str(info.value)
    assert info.value.field == "weights"


def test_override_reports_every_broken_rule():
    problems = check_weights(CompositeWeights(0.2, 0.5, 0.02, 0.1, 0.1, source="custom"))
    text = "; ".join(problems)
    assert "objective weight 0.2 is below" in text
    assert "process weight 0.5 is larger than the objective" in text
    assert "strategy weight 0.02 is below the minimum" in text


def test_override_must_name_exactly_the_five():
    with pytest.raises(WeightsError, match="missing efficiency"):
        resolve_weights("default", {k: 0.2 for k in COMPOSITE_COMPONENTS[:4]})
    with pytest.raises(WeightsError, match="unknown bogus"):
        resolve_weights("default", {**custom(45, 15, 15, 10, 10), "bogus": 0.0})


def test_weights_must_be_fractions():
    problems = check_weights(CompositeWeights(45, 15, 15, 10, 10, source="custom"))
    assert any("must be a fraction" in p for p in problems)
