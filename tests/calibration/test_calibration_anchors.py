"""Anchor checks: each judge within ±10 of its expected score; a miss names judge, anchor and gap."""

from __future__ import annotations

import shutil
from pathlib import Path

from calib_factories import make_card

from bouts.calibration.anchors import compare, order_problems
from bouts.calibration.check import CheckConfig, check_challenge
from bouts.calibration.report import AnchorReport

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "inventory-ledger"


def test_within_ten_passes_and_a_larger_gap_names_the_judge_the_anchor_and_the_gap() -> None:
    card = make_card({"process": 65.0, "objective": 44.5}, final=21, panel=None)
    report, problems = compare("low", {"process": 80.0, "objective": 50.0, "final": 30}, card)
    assert [c.ok for c in report.checks] == [False, True, True]
    assert len(problems) == 1
    p = problems[0]
    assert p.file == "anchors/low/expected.toml" and p.field == "expected.process"
    assert "anchor 'low'" in p.message and "gap -15.00" in p.message


def test_unknown_or_unscored_components_are_errors() -> None:
    card = make_card({"process": 65.0})
    card.components["process"].score = None
    _, problems = compare("mid", {"process": 60.0, "nonsense": 1.0}, card)
    assert {p.field for p in problems} == {"expected.process", "expected.nonsense"}


def test_anchors_out_of_order_are_a_warning() -> None:
    found = order_problems([AnchorReport(level="low", final=60), AnchorReport(level="mid", final=50)])
    assert len(found) == 1 and found[0].level == "warning"


def test_check_fails_when_an_anchors_expected_score_is_off_by_more_than_ten(tmp_path: Path) -> None:
    root = tmp_path / "ch"
    shutil.copytree(EXAMPLE, root)
    exp = root / "anchors" / "mid" / "expected.toml"
    exp.write_text(exp.read_text().replace("process = 90.0", "process = 70.0"))
    measured = {"low": 65.0, "mid": 90.0, "high": 100.0}

    def fake_score(anchor: Path):  # the real scores of process, the rest as expected
        import tomllib

        expected = tomllib.loads((anchor / "expected.toml").read_text())["expected"]
        comps = {k: v for k, v in expected.items() if k != "final"} | {"process": measured[anchor.name]}
        return make_card(comps, final=int(expected["final"]))

    report = check_challenge(root, CheckConfig(runs=0), score=fake_score)
    assert not report.launch
    errors = [p for p in report.problems if p.level == "error"]
    assert len(errors) == 1, errors
    assert errors[0].check == "anchors" and errors[0].field == "expected.process"
    assert "anchor 'mid'" in errors[0].message and "gap +20.00" in errors[0].message
    assert report.skipped == ["starter", "reference"]
