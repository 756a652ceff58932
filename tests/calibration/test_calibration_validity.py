"""``bouts stats --labels`` / ``--runs``: the validity report on small labelled data whose AUC is
computed by hand (issue 38: the trajectory components were measured at chance on 500 real runs; this
is the instrument that measures them)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from calib_factories import make_card
from typer.testing import CliRunner

from bouts.calibration.stats_labels import parse_labels, parse_runs
from bouts.calibration.stats_validity import LabelledRun, ValidityError, auc, component_validity, validity
from bouts.cli.main import app

ROOT = Path(__file__).resolve().parents[2]


def _runs(pos: list[float | None], neg: list[float | None], name: str = "process") -> list[LabelledRun]:
    return [LabelledRun(f"p{i}", True, {name: v}) for i, v in enumerate(pos)] + [
        LabelledRun(f"n{i}", False, {name: v}) for i, v in enumerate(neg)
    ]


def test_auc_counts_pairs_and_ties_by_hand() -> None:
    # pairs (pos, neg): (3,1) win, (3,2) win, (2,1) win, (2,2) tie = 0.5 -> 3.5 / 4
    assert auc([3, 2], [1, 2]) == pytest.approx(0.875)
    assert auc([4, 5, 6], [1, 2, 3]) == 1.0
    assert auc([1, 2, 3], [4, 5, 6]) == 0.0
    assert auc([7, 7], [7, 7, 7]) == 0.5  # all ties: chance


def test_component_report_means_auc_interval_and_not_scored() -> None:
    runs = _runs([3, 2, None], [1, 2, None, None])
    c = component_validity(runs, "process", bootstrap=500, seed=1)
    assert c.measure == "auc" and c.value == pytest.approx(0.875)
    assert c.scored == 4 and c.not_scored == 3 and c.not_scored_rate == pytest.approx(3 / 7, abs=1e-4)
    assert c.not_scored_by_label == {"resolved": pytest.approx(1 / 3, abs=1e-4), "not resolved": 0.5}
    assert c.mean_by_label == {"resolved": 2.5, "not resolved": 1.5}
    assert c.ci_low is not None and c.ci_high is not None and c.ci_low <= c.value <= c.ci_high <= 1.0


def test_bootstrap_interval_is_seeded_and_deterministic() -> None:
    runs = _runs([60, 70, 80, 55, 90, 65], [50, 60, 40, 70, 45])
    a = component_validity(runs, "process", seed=3)
    b = component_validity(runs, "process", seed=3)
    assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)
    # the interval of one component does not depend on which other components the report holds
    other = [LabelledRun(r.key, r.label, {**r.components, "aaa": 1.0}) for r in runs]
    assert validity(other, seed=3).components[1].ci_low == a.ci_low


def test_one_label_only_is_a_clear_error() -> None:
    with pytest.raises(ValidityError, match="all 3 runs are labelled resolved") as err:
        validity(_runs([1, 2, 3], []))
    assert err.value.field == "resolved"
    with pytest.raises(ValidityError, match="same rating"):
        validity([LabelledRun(str(i), 4.0, {"process": i}) for i in range(3)], label="rating")


def test_mixed_boolean_and_numeric_labels_are_refused() -> None:
    with pytest.raises(ValidityError, match="mix true/false and numbers"):
        validity([LabelledRun("a", True, {}), LabelledRun("b", 3.0, {})])


def test_component_scored_on_one_label_only_has_no_auc() -> None:
    c = component_validity(_runs([50, 60], [None, None]), "process")
    assert c.value is None and c.ci_low is None and c.not_scored_by_label["not resolved"] == 1.0


def test_top_findings_are_counted_once_per_run_and_per_label() -> None:
    runs = [
        LabelledRun("a", True, {"process": 90}, {"process": ("process.reread", "process.reread")}),
        LabelledRun("b", True, {"process": 80}, {"process": ("process.reread", "process.unread-edit")}),
        LabelledRun("c", False, {"process": 40}, {"process": ("process.untested",)}),
    ]
    top = component_validity(runs, "process", bootstrap=0).top_findings
    assert [(f.rule, f.runs, f.share) for f in top["resolved"]] == [("process.reread", 2, 1.0),
                                                                   ("process.unread-edit", 1, 0.5)]  # fmt: skip
    assert [(f.rule, f.runs) for f in top["not resolved"]] == [("process.untested", 1)]


def test_numeric_rating_gives_spearman_and_median_split() -> None:
    runs = [LabelledRun(str(i), float(i), {"process": 10.0 * i}, baselines={"tokens": 100.0 - i}) for i in range(1, 7)]
    report = validity(runs, label="rating", bootstrap=200)
    assert report.measure == "spearman" and report.by_label == {"above median": 3, "at or below median": 3}
    (c,) = report.components
    assert c.value == 1.0 and c.mean_by_label == {"above median": 50.0, "at or below median": 20.0}
    assert report.baselines[0].component == "tokens" and report.baselines[0].value == -1.0


def test_labels_parse_from_csv_and_json_lines() -> None:
    field, labels = parse_labels("run_id,resolved\na,true\nb,0\nc,Yes\n", source="l.csv")
    assert field == "resolved" and labels == {"a": True, "b": False, "c": True}
    field, labels = parse_labels('{"run_id": "a", "resolved": 1}\n{"run_id": "b", "resolved": 0}\n', source="l.jsonl")
    assert labels == {"a": True, "b": False}  # 1/0 in a resolved field is a boolean label
    field, labels = parse_labels("id,rating\na,4.5\nb,2\n", source="r.csv", id_field="id")
    assert field == "rating" and labels == {"a": 4.5, "b": 2.0}


@pytest.mark.parametrize(
    ("text", "message", "field"),
    [
        ("run_id,resolved\na,\n", "line 2: the label is missing", "resolved"),
        ("run_id,resolved\na,maybe\n", "line 2: 'maybe' is neither", "resolved"),
        ("run_id,resolved\n,true\n", "line 2: the run id is missing", "run_id"),
        ("run_id,resolved\na,true\na,false\n", "labelled twice (first on line 2)", "run_id"),
        ("run_id,outcome\na,true\n", "no label field", None),
        ('{"run_id": "a", "resolved": NaN}\n', "not a finite number", "resolved"),
        ('{"run_id": "a"\n', "line 1: not JSON", None),
    ],
)
def test_bad_labels_name_the_file_line_and_field(text: str, message: str, field: str | None) -> None:
    with pytest.raises(ValidityError, match=re.escape(message)) as err:
        parse_labels(text, source="labels.csv")
    assert err.value.file == "labels.csv" and err.value.field == field


def test_runs_file_needs_a_trajectory_path() -> None:
    with pytest.raises(ValidityError, match="a trajectory path") as err:
        parse_runs('{"resolved": true}\n', source="runs.jsonl")
    assert err.value.field == "trajectory"
    _, entries = parse_runs('{"trajectory": "a.json", "resolved": false}\n', source="runs.jsonl")
    assert entries[0].key == "a.json" and entries[0].label is False


def _cards(tmp_path: Path) -> Path:
    scores = {"r1": (90, 80), "r2": (70, 60), "r3": (40, 70), "r4": (30, 20)}
    cards = [make_card({"process": p, "recovery": r}, agent=k) for k, (p, r) in scores.items()]
    (tmp_path / "cards.jsonl").write_text("\n".join(c.model_dump_json(by_alias=True) for c in cards) + "\n")
    return tmp_path / "cards.jsonl"


def test_cli_validity_from_scorecards_and_a_labels_csv(tmp_path: Path) -> None:
    cards = _cards(tmp_path)
    (tmp_path / "labels.csv").write_text("run_id,resolved\nr1,true\nr2,true\nr3,false\nr4,false\n")
    args = ["stats", "demo", "--scorecards", str(cards), "--labels", str(tmp_path / "labels.csv")]
    result = CliRunner().invoke(app, [*args, "--json", "--bootstrap", "200"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    comps = {c["component"]: c for c in data["components"]}
    assert data["schema"] == "bouts.stats.validity/1" and data["by_label"] == {"resolved": 2, "not resolved": 2}
    assert comps["process"]["value"] == 1.0  # 90, 70 vs 40, 30: every pair won
    assert comps["recovery"]["value"] == 0.75  # 80, 60 vs 70, 20: (60, 70) lost -> 3/4
    text = CliRunner().invoke(app, args)
    assert text.exit_code == 0 and "AUC" in text.output and "process" in text.output


def test_cli_refuses_unlabelled_scorecards_unless_told(tmp_path: Path) -> None:
    cards = _cards(tmp_path)
    (tmp_path / "labels.csv").write_text("run_id,resolved\nr1,true\nr3,false\n")
    args = ["stats", "demo", "--scorecards", str(cards), "--labels", str(tmp_path / "labels.csv")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert "labels.csv" in result.output and "2 scorecard(s) have no label: 'r2', 'r4'" in result.output
    ok = CliRunner().invoke(app, [*args, "--allow-unlabelled", "--json"])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["runs"] == 2


def test_cli_match_field_that_scorecards_lack_is_named(tmp_path: Path) -> None:
    cards = _cards(tmp_path)
    (tmp_path / "labels.csv").write_text("run_id,resolved\nr1,true\nr3,false\n")
    result = CliRunner().invoke(app, ["stats", "demo", "--scorecards", str(cards), "--labels",
                                      str(tmp_path / "labels.csv"), "--match", "submission.id"])  # fmt: skip
    assert result.exit_code == 2 and "submission.id" in result.output and "has no run id" in result.output


def test_cli_judges_labelled_trajectories_against_a_challenge(tmp_path: Path) -> None:
    fixtures = ROOT / "tests" / "trajectory" / "fixtures"
    lines = [
        {"trajectory": str(fixtures / "aider_creations.md"), "resolved": True, "run_id": "a"},
        {"trajectory": str(fixtures / "aider_0.86_per_file_questions.md"), "resolved": False, "run_id": "b"},
        {"trajectory": str(fixtures / "gemini_session.json"), "resolved": False, "run_id": "c"},
    ]
    (tmp_path / "runs.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    result = CliRunner().invoke(app, ["stats", str(ROOT / "examples" / "inventory-ledger"), "--runs",
                                      str(tmp_path / "runs.jsonl"), "--json", "--bootstrap", "50"])  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {c["component"] for c in data["components"]} == {"process", "strategy", "recovery", "efficiency",
                                                            "integrity"}  # fmt: skip
    assert {b["component"] for b in data["baselines"]} == {"tokens", "events"}
    assert data["runs"] == 3 and data["by_label"] == {"resolved": 1, "not resolved": 2}
    missing = tmp_path / "missing.jsonl"
    missing.write_text('{"trajectory": "nowhere.json", "resolved": true}\n')
    bad = CliRunner().invoke(app, ["stats", str(ROOT / "examples" / "inventory-ledger"), "--runs", str(missing)])
    assert bad.exit_code == 2 and "no such trajectory" in bad.output and "missing.jsonl" in bad.output
