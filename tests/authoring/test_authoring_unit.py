"""`bouts new` and the teaching parts of `bouts check`, without the sandbox."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bouts.authoring import new_challenge, new_submission
from bouts.authoring.behaviours import behaviour_of, hidden_behaviours
from bouts.calibration.anchors import band_problems, compare, order_problems, parse_bands
from bouts.calibration.check import CheckConfig, check_challenge
from bouts.calibration.report import AnchorReport
from bouts.cli.main import app
from bouts.errors import ChallengeError, InputError
from bouts.loading import load_challenge
from bouts.models.submission import SubmissionMeta

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "calibration"))
from calib_factories import make_card  # noqa: E402


def _meta(submission: Path) -> SubmissionMeta:
    return SubmissionMeta.model_validate(tomllib.loads((submission / "submission.toml").read_text()))


@pytest.mark.parametrize("language", ["python", "javascript", "typescript"])
def test_the_skeleton_loads_and_only_the_expected_scores_are_missing(language: str, tmp_path: Path) -> None:
    root = tmp_path / "basket"
    new_challenge(root, language=language, family="fog-of-war")
    challenge = load_challenge(root)
    assert challenge.spec.id == "basket" and challenge.spec.family == "fog-of-war"
    assert set(challenge.anchors) == {"low", "mid", "high"}
    assert all(challenge.test_files[s] for s in ("visible", "hidden", "adversarial"))
    for level in ("low", "mid", "high"):
        meta = _meta(root / "anchors" / level)
        assert meta.challenge == "basket" and meta.agent == f"anchor-{level}"
        assert tomllib.loads((root / "anchors" / level / "expected.toml").read_text()) == {"expected": {}}
    report = check_challenge(root, CheckConfig(runs=0, anchors=False))
    assert [p for p in report.problems if p.level == "error"] == []


def test_the_checks_header_names_the_directory_checked(tmp_path: Path) -> None:
    new_challenge(tmp_path / "basket", language="python", family="default")
    result = CliRunner().invoke(app, ["check", str(tmp_path / "basket"), "--runs", "0", "--no-anchors"])
    assert result.output.splitlines()[0].startswith(f"bouts check {tmp_path / 'basket'} (basket): ")


def test_no_template_placeholder_is_left(tmp_path: Path) -> None:
    for language in ("python", "javascript", "typescript"):
        files = new_challenge(tmp_path / language, language=language, family="default")
        assert not [f for f in files if "{{" in f.read_text() or f.suffix == ".tmpl"]


def test_bad_input_names_the_field_and_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(InputError) as e:
        new_challenge(tmp_path / "a", language="cobol", family="default")
    assert e.value.field == "language"
    with pytest.raises(InputError) as e:
        new_challenge(tmp_path / "a", language="python", family="fog")
    assert e.value.field == "family"
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    with pytest.raises(InputError):
        new_challenge(tmp_path / "full", language="python", family="default")
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["keep.txt"]
    result = CliRunner().invoke(app, ["new", "challenge", str(tmp_path / "b"), "--family", "nope"])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_new_submission_starts_from_the_starter(tmp_path: Path) -> None:
    new_challenge(tmp_path / "ch", language="python", family="default")
    new_submission(tmp_path / "sub", challenge=tmp_path / "ch", challenge_id=None, agent="me")
    meta = _meta(tmp_path / "sub")
    assert meta.challenge == "ch" and meta.agent == "me"
    assert (tmp_path / "sub" / "code" / "pricing" / "cart.py").read_text() == (
        tmp_path / "ch" / "starter" / "pricing" / "cart.py"
    ).read_text()
    with pytest.raises(InputError):
        new_submission(tmp_path / "other", challenge=None, challenge_id=None, agent="me")


def test_a_high_anchor_below_mid_names_the_components_behind() -> None:
    mid = AnchorReport(level="mid", final=87, measured={"objective": 80, "recovery": 90, "process": 70, "final": 87})
    high = AnchorReport(level="high", final=84, measured={"objective": 95, "recovery": 20, "process": 90, "final": 84})
    [p] = order_problems([mid, high])
    assert "recovery 90 vs 20" in p.message and "objective" not in p.message


def test_anchors_that_do_not_span_the_bands_are_a_warning() -> None:
    reports = [AnchorReport(level="low", final=55, band="Competent", measured={"objective": 60}),
               AnchorReport(level="mid", final=70), AnchorReport(level="high", final=92)]  # fmt: skip
    [p] = band_problems(reports)
    assert p.level == "warning" and "'low'" in p.message and "0-34" in p.message
    assert band_problems(reports, parse_bands("low=0-60")) == []


def test_bands_are_parsed_or_refused_by_name() -> None:
    assert parse_bands("mid=50-80")["mid"] == (50, 80) and parse_bands("")["high"] == (75, 100)
    for bad in ("mid=80-50", "top=1-2", "mid=a-b", "mid=0-101"):
        with pytest.raises(InputError) as e:
            parse_bands(bad)
        assert e.value.field == "bands"


def test_an_off_component_carries_its_math_and_a_misspelt_key_a_suggestion() -> None:
    card = make_card({"recovery": 20.0, "static_tests": 90.0})
    card.components["recovery"].math.append("[trajectory-recovery] recovery = (1/5) × 100 = 20")
    report, problems = compare("high", {"recovery": 60.0, "static_test": 90.0}, card)
    assert report.math["recovery"][-1].endswith("= 20")
    messages = " | ".join(p.message for p in problems)
    assert "its math: [trajectory-recovery] recovery = (1/5)" in messages
    assert "did you mean 'static_tests'?" in messages
    assert report.measured["static_tests"] == 90.0


def test_a_misspelt_challenge_key_gets_a_suggestion(tmp_path: Path) -> None:
    new_challenge(tmp_path / "ch", language="python", family="default")
    toml = tmp_path / "ch" / "challenge.toml"
    toml.write_text(toml.read_text().replace("correct_threshold", "correct_treshold"))
    with pytest.raises(ChallengeError) as e:
        load_challenge(tmp_path / "ch")
    assert "did you mean 'correct_threshold'?" in e.value.message


@pytest.mark.parametrize("language", ["python", "javascript"])
def test_hidden_tests_are_named_by_their_behaviour(language: str, tmp_path: Path) -> None:
    new_challenge(tmp_path / "ch", language=language, family="default")
    found = hidden_behaviours(load_challenge(tmp_path / "ch"))
    assert len(found) >= 2 and len(set(found.values())) == 1
    some = next(iter(found))
    assert behaviour_of(some + "[#1a2b]", found) == found[some]


def test_a_challenges_own_mix_must_sum_to_100(tmp_path: Path) -> None:
    new_challenge(tmp_path / "ch", language="python", family="default")
    toml = tmp_path / "ch" / "challenge.toml"
    text = toml.read_text()
    toml.write_text(text.replace("seed = 1234", "seed = 1234\nmix = { functionality = 60, edge = 40 }"))
    assert load_challenge(tmp_path / "ch").spec.tests.mix == {"functionality": 60.0, "edge": 40.0, "integration": 0.0}
    toml.write_text(text.replace("seed = 1234", "seed = 1234\nmix = { functionality = 60, edge = 30 }"))
    with pytest.raises(ChallengeError) as e:
        load_challenge(tmp_path / "ch")
    assert e.value.field == "tests.mix"


def test_a_relative_challenge_root_is_not_found_in_every_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`bouts check .` made the root "." and every event of every anchor an off-limits access."""
    from bouts.judges.trajectory.integrity import off_limits

    new_challenge(tmp_path / "ch", language="python", family="default")
    monkeypatch.chdir(tmp_path / "ch")
    challenge = load_challenge(Path("."))
    assert not off_limits("pricing/cart.py", challenge)
    assert not off_limits("python -m pytest -q tests/visible", challenge)
    assert off_limits(f"cat {tmp_path / 'ch'}/reference/pricing/cart.py", challenge)
    assert off_limits("cat tests/hidden/test_pricing_hidden.py", challenge)
