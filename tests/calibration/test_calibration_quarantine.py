"""quarantine.toml (SPEC §3): what `bouts check` writes is read at scoring: a quarantined test (it
failed on the reference) is removed from every submission's counts and listed on its scorecard."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bouts.assemble import Measurements, build_scorecard
from bouts.calibration.reference import quarantine_toml
from bouts.calibration.report import QuarantinedTest, ReferenceReport
from bouts.errors import ChallengeError
from bouts.loading import load_challenge
from bouts.loading.quarantine import parse_quarantine
from bouts.models.results import Outcome
from factories import META, make_challenge, result, run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "league-table"


def _written(*tests: QuarantinedTest) -> str:
    return quarantine_toml(ReferenceReport(runs=5, seeds=[1234, 99], tests=9, quarantined=list(tests)))


def test_what_bouts_check_writes_reads_back() -> None:
    text = _written(QuarantinedTest(id="tests/visible/t.py::flaky", failures=["run 2, seed 1234: failed: Boom"]))
    assert parse_quarantine(text) == {"tests/visible/t.py::flaky": "run 2, seed 1234: failed: Boom"}
    assert parse_quarantine(_written()) == {}


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('schema = "other/1"\n', "schema"),
        ('schema = "bouts.quarantine/1"\n[[test]]\nfailures = []\n', "test[0].id"),
        ('schema = "bouts.quarantine/1"\n[[test]]\nid = "a"\nfailures = [1]\n', "test[0].failures"),
        ("schema = [\n", None),
    ],
)
def test_a_malformed_quarantine_file_names_the_file_and_field(text: str, field: str | None) -> None:
    with pytest.raises(ChallengeError) as e:
        parse_quarantine(text, shown="ch/quarantine.toml")
    assert e.value.file == "ch/quarantine.toml" and e.value.field == field


def test_the_loader_reads_the_challenges_quarantine_file(tmp_path: Path) -> None:
    root = tmp_path / "league-table"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("anchors"))
    assert load_challenge(root).quarantined == {}
    (root / "quarantine.toml").write_text(_written(QuarantinedTest(id="tests/hidden/t.py::x[3]", failures=["f"])))
    assert load_challenge(root).quarantined == {"tests/hidden/t.py::x[3]": "f"}


def test_quarantined_tests_are_not_counted_and_are_listed_on_the_scorecard() -> None:
    challenge = make_challenge().model_copy(update={"quarantined": {
        "tests/visible/t.py::flaky": "run 1, seed 1234: failed: AssertionError",
        "tests/hidden/t.py::h[41-42]": "run 1, fresh seed 7: failed: assert 42 == 41",
        "tests/adversarial/a.py::weak": "run 3, seed 1234: error",
    }})  # fmt: skip
    report = run(
        result("tests/visible/t.py::ok", "visible", Outcome.PASSED),
        result("tests/visible/t.py::flaky", "visible", Outcome.FAILED),
        result("tests/hidden/t.py::h[41-42]", "hidden", Outcome.FAILED),
        result("tests/adversarial/a.py::strong", "adversarial", Outcome.PASSED, severity="high"),
        result("tests/adversarial/a.py::weak", "adversarial", Outcome.FAILED, severity="critical"),
    )
    card = build_scorecard(challenge, META, Measurements(report))
    assert card.components["static_tests"].score == 100  # 1/1: the two quarantined failures not counted
    assert card.components["adversarial"].score == 100
    assert card.components["static_tests"].math[0].startswith(
        "static_tests: 2 quarantined test(s) not counted (quarantine.toml: they fail on the reference)"
    )
    listed = {q.id: (q.suite, q.reason) for q in card.quarantined}
    assert listed["tests/visible/t.py::flaky"] == ("visible", "run 1, seed 1234: failed: AssertionError")
    hidden = [q for q in card.quarantined if q.suite == "hidden"]
    assert len(hidden) == 1 and hidden[0].reason == "failed on the reference"
    assert "41" not in hidden[0].id and "42" not in card.model_dump_json()  # expected values never shown
