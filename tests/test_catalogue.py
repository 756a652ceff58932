"""The one catalogue of components (issue 14 item 4): every other list reads it, and a verdict for a
component it does not list is an error naming the judge, never a score silently dropped."""

from __future__ import annotations

import typing

import pytest

from bouts.assemble import Measurements, build_scorecard
from bouts.judges.base import JUDGES
from bouts.judging import builtin_judges
from bouts.models.results import Outcome
from bouts.models.verdict import Component, Verdict
from bouts.scoring import catalogue, profiles
from bouts.scoring.catalogue import UnknownComponentError, check_verdict
from bouts.scoring.explain import Explained
from bouts.scoring.weights import FAMILIES
from factories import META, make_challenge, result, run


def test_the_verdict_vocabulary_is_the_catalogues() -> None:
    assert set(typing.get_args(Component)) == catalogue.VERDICT_COMPONENTS


def test_every_builtin_judge_feeds_a_catalogued_component() -> None:
    judges = builtin_judges()
    assert judges and {j.component for j in judges} <= catalogue.VERDICT_COMPONENTS
    fed = {f for c in catalogue.CATALOGUE if c.source == "judges" for f in c.fed_by}
    assert {j.component for j in judges} - {catalogue.GENERATED} <= fed


def test_profiles_weigh_only_catalogued_components_and_sum_to_one() -> None:
    for weights in (catalogue.ENGINE_WEIGHTS, catalogue.FOUR_JUDGE_WEIGHTS):
        assert set(weights) <= set(catalogue.ORDER) and sum(weights.values()) == pytest.approx(1.0)
    assert set(catalogue.COMPOSITE_COMPONENTS) <= set(catalogue.ORDER)
    assert all(tuple(w.as_dict()) == catalogue.COMPOSITE_COMPONENTS for w in FAMILIES.values())
    assert profiles.ENGINE_WEIGHTS is catalogue.ENGINE_WEIGHTS


def test_the_scorecard_follows_the_catalogue_and_records_its_version() -> None:
    card = build_scorecard(make_challenge(), META, Measurements(run(result("tests/visible/t.py::t", "visible",
                                                                              Outcome.PASSED))))
    assert tuple(card.components) == catalogue.ORDER
    assert card.reproducibility.rule_sets["scoring"] == catalogue.SCORING_VERSION
    pending = card.components["code_quality"]
    assert pending.reason == catalogue.COMPONENTS["code_quality"].pending


def test_a_verdict_for_an_unknown_component_is_an_error_naming_the_judge() -> None:
    bogus = Verdict("my-plugin-judge", "elegance", Explained(90.0, ("x",)))  # type: ignore[arg-type]
    report = run(result("tests/visible/t.py::t", "visible", Outcome.PASSED))
    with pytest.raises(UnknownComponentError, match="my-plugin-judge.*'elegance'"):
        build_scorecard(make_challenge(), META, Measurements(report, verdicts=[bogus]))


def test_a_judge_declaring_an_unknown_component_is_refused_before_anything_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Elegance:
        name = "elegance-judge"
        component = "elegance"

        def judge(self, inp: object) -> Verdict:  # pragma: no cover - never seated
            raise AssertionError("must not run")

    monkeypatch.setitem(JUDGES._factories, "elegance-judge", Elegance)
    with pytest.raises(UnknownComponentError, match="elegance-judge"):
        builtin_judges(["elegance-judge"])
    check_verdict("quality-lint", "code_quality")  # a known one passes


def test_objective_is_fed_by_the_six_engine_components_and_correctness_by_the_tests() -> None:
    assert catalogue.COMPONENTS["objective"].fed_by == tuple(catalogue.ENGINE_WEIGHTS)
    assert catalogue.COMPONENTS["correctness"].fed_by == tuple(catalogue.CORRECTNESS_WEIGHTS)
    for c in catalogue.CATALOGUE:
        if c.source == "derived":
            assert set(c.fed_by) <= set(catalogue.ORDER), c.name
