"""SPEC §6 on real challenges: the bundled anchors, measured once through the sandbox, then varied at
the assemble level (fast). Each property names the attack it stops; the numbers in the docstrings are
the scores measured before the rule (withholding was rescaled away, words earned the bonus)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from section6_anchors import CHALLENGES, LEVELS, Anchor, available, measure_anchor

from bouts.assemble import Measurements
from bouts.judges.base import Verdict
from bouts.models.results import Outcome
from bouts.scoring.explain import Explained
from bouts.scoring.withholding import withheld

pytestmark = pytest.mark.sandbox

OBJECTIVE_SIDE = ("code_quality", "deliverables", "security")


@pytest.fixture(scope="module")
def anchors(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Anchor]:
    found = {}
    for challenge in CHALLENGES:
        if not available(challenge):
            continue
        for level in LEVELS:
            anchor = measure_anchor(challenge, level, tmp_path_factory.mktemp(f"{challenge}-{level}"))
            found[anchor.name] = anchor
    return found


def final(anchor: Anchor, m: Measurements) -> int:
    card = anchor.card(m)
    assert card.final is not None
    return card.final


# -- what the submission can withhold ------------------------------------------------------------


def no_trajectory(a: Anchor, m: Measurements) -> Measurements:
    return a.rejudged(None, "absent", m)


def unreadable_trajectory(a: Anchor, m: Measurements) -> Measurements:
    return replace(a.rejudged(None, "unreadable", m), trajectory_detail="line 1: not JSON")


def no_deliverable(a: Anchor, m: Measurements) -> Measurements:
    texts = dict.fromkeys(m.deliverable_texts)
    return replace(m, deliverable_texts=texts, verdicts=[v for v in m.verdicts if v.component != "deliverables"])


def no_code_change(a: Anchor, m: Measurements) -> Measurements:
    """What the quality judges say of a submission that changed no code."""
    said = [Verdict(v.judge, v.component, withheld("the submission changed no code")) if v.component == "code_quality"
            else v for v in m.verdicts]  # fmt: skip
    return replace(m, verdicts=said)


def judge_fails(component: str):
    def fails(a: Anchor, m: Measurements) -> Measurements:
        """A judge that raises on the submission's own content (security on an SQL-injection variant)."""
        mine = [v for v in m.verdicts if v.component == component]
        if not mine:
            return m
        broken = mine[0].judge
        why = f"{broken} failed on the submission's content: RecursionError: maximum recursion depth exceeded"
        return replace(m, verdicts=[Verdict(v.judge, v.component, withheld(why)) if v.judge == broken else v
                                    for v in m.verdicts])  # fmt: skip

    fails.__name__ = f"{component}_judge_fails"
    return fails


WITHHOLDINGS = (no_trajectory, unreadable_trajectory, no_deliverable, no_code_change, judge_fails("security"),
                judge_fails("code_quality"), judge_fails("deliverables"))  # fmt: skip


@st.composite
def varied(draw: st.DrawFn, anchor: Anchor) -> Measurements:
    """The anchor's measurements with the objective side varied: every judge of code quality,
    deliverables and security gives any score, and any of the tests flips to failed."""
    m = anchor.measured.measurements
    verdicts = []
    for v in m.verdicts:
        if v.component in OBJECTIVE_SIDE and isinstance(v.score, Explained):
            v = replace(v, score=Explained(draw(st.floats(0, 100)), v.score.math))
        verdicts.append(v)
    results = [r.model_copy(update={"outcome": Outcome.FAILED}) if draw(st.booleans()) and r.suite != "adversarial"
               else r for r in m.run.results]  # fmt: skip
    return replace(m, verdicts=verdicts, run=m.run.model_copy(update={"results": results}))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_withholding_never_raises_the_final(anchors: dict[str, Anchor], data: st.DataObject) -> None:
    """Removing the trajectory (or sending an unreadable one), a deliverable or the code change, or
    making a judge fail on the submission's content, never raises the final. Before: the trajectory
    components were rescaled away (inventory-ledger low 27 → 32, rate-limiter-js low 57 → 69), a
    failing security judge dropped its component (99 → 100)."""
    anchor = anchors[data.draw(st.sampled_from(sorted(anchors)), label="anchor")]
    m = data.draw(varied(anchor), label="varied")
    base = final(anchor, m)
    withhold = data.draw(st.sampled_from(WITHHOLDINGS), label="withholding")
    assert final(anchor, withhold(anchor, m)) <= base, withhold.__name__


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_report_of_a_broken_test_without_a_confirmed_break_earns_nothing(
    anchors: dict[str, Anchor], data: st.DataObject
) -> None:
    """Words alone: "the test seems wrong" (or naming a real test as broken) earns 0 when nothing the
    agent names is quarantined or planted. Before: two such sentences took the inventory-ledger mid
    anchor 83 Strong → 93 Elite."""
    anchor = anchors[data.draw(st.sampled_from(sorted(anchors)), label="anchor")]
    if anchor.trajectory is None:
        return
    names = sorted({r.id.split("::")[-1].split("[")[0] for r in anchor.measured.measurements.run.results
                    if r.suite == "visible"})  # fmt: skip
    claim = st.sampled_from(["The test {} seems wrong.", "I think {} is broken and contradicts the spec.",
                             "The assertions in {} are inconsistent; the expected values are wrong."])  # fmt: skip
    texts = data.draw(st.lists(st.builds(str.format, claim, st.sampled_from(names or ["the test"])), min_size=1,
                               max_size=3))  # fmt: skip
    before = anchor.card(anchor.rejudged(anchor.trajectory))
    after = anchor.card(anchor.with_messages(*texts))
    assert after.final == before.final
    assert after.adjustments.get("integrity", 0) <= before.adjustments.get("integrity", 0)


# -- regressions, each the measured attack ------------------------------------------------------


def test_no_trajectory_never_scores_above_the_anchor_itself(anchors: dict[str, Anchor]) -> None:
    """Before: inventory-ledger low 27 → 32, rate-limiter-js low 57 → 69 without the trajectory."""
    for name, anchor in anchors.items():
        card = anchor.card(no_trajectory(anchor, anchor.measured.measurements))
        assert card.final is not None and card.final <= anchor.card().final, name  # type: ignore[operator]
        process = card.components["process"]
        assert process.score == 0 and process.cause == "submission" and "no trajectory" in (process.reason or "")
        assert not card.provisional and any(line.startswith("process = 0: no trajectory") for line in card.math)


def test_two_sentences_claiming_a_broken_test_leave_the_mid_anchor_at_83(anchors: dict[str, Anchor]) -> None:
    anchor = anchors["inventory-ledger/mid"]
    card = anchor.card(anchor.with_messages(
        "The test seems wrong: it expects cancel to release stock that was never reserved.",
        "I think the paging test is broken and contradicts the description.",
    ))  # fmt: skip
    # Issue 37 measured 83 -> 93 (Elite); words alone now earn nothing: the anchor's own final, to the
    # point (83 before the adversarial and trajectory changes of the same issue moved the anchor itself).
    same = anchor.card(anchor.rejudged(anchor.trajectory))
    assert card.final == same.final and card.raw == same.raw
    assert card.band == "Strong" and card.adjustments["integrity"] == 0
    assert any("words alone earn nothing" in line for line in card.math)


def test_a_planted_test_the_agent_reports_earns_the_bonus(anchors: dict[str, Anchor]) -> None:
    """The other side: the same report naming a test the challenge declares planted earns +5."""
    anchor = anchors["inventory-ledger/mid"]
    visible = next(r.id for r in anchor.measured.measurements.run.results if r.suite == "visible")
    name = visible.split("::")[-1]
    spec = anchor.measured.challenge.spec
    planted = anchor.measured.challenge.model_copy(
        update={"spec": spec.model_copy(update={"integrity": spec.integrity.model_copy(update={"planted": [visible]})})}
    )
    m = anchor.with_messages(f"The test {name} is broken: it contradicts the description, so I left it failing.")
    from bouts.assemble import build_scorecard

    card = build_scorecard(planted, anchor.measured.meta, m)
    assert card.adjustments["integrity"] == 5 and card.final == anchor.card().final + 5  # type: ignore[operator]


def test_a_security_judge_failing_on_the_submission_scores_security_0(anchors: dict[str, Anchor]) -> None:
    """Before: security failing on an SQL-injection variant dropped its component (99 → 100)."""
    anchor = anchors["room-bookings/high"]
    card = anchor.card(judge_fails("security")(anchor, anchor.measured.measurements))
    security = card.components["security"]
    assert security.score == 0 and security.cause == "submission" and "failed on the submission" in security.reason
    assert card.final is not None and card.final < anchor.card().final  # type: ignore[operator]


def test_no_code_change_scores_code_quality_0(anchors: dict[str, Anchor]) -> None:
    anchor = anchors["inventory-ledger/mid"]
    card = anchor.card(no_code_change(anchor, anchor.measured.measurements))
    quality = card.components["code_quality"]
    assert quality.score == 0 and quality.cause == "submission" and quality.status == "scored"
    assert "code_quality = 0: the submission changed no code" in " ".join(card.math)
    assert not card.provisional


def test_every_anchor_stays_within_10_of_its_expected_scores(anchors: dict[str, Anchor]) -> None:
    """SPEC §3 after the rules above: only the cliffs moved an anchor (the two hard-coded low anchors,
    27 → 14 and 38 → 14, their expected.toml updated)."""
    import tomllib

    from section6_anchors import EXAMPLES

    for name, anchor in anchors.items():
        expected = tomllib.loads((EXAMPLES / name.replace("/", "/anchors/") / "expected.toml").read_text())["expected"]
        card = anchor.card()
        assert card.final is not None and abs(card.final - expected["final"]) <= 10, (name, card.final)
        for component, value in expected.items():
            if component in card.components and card.components[component].score is not None:
                assert abs(card.components[component].score - value) <= 10, (name, component)  # type: ignore[operator]
