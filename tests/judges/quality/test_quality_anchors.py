"""Calibration on the example challenge: low < mid < high on every quality judge, an honest
reference-quality solution scores high and a deliberately awful one low."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from quality_helpers import EXAMPLE

from bouts.judges.base import JUDGES, Judge, JudgeInput, Verdict
from bouts.judges.quality import PANEL
from bouts.loading import load_challenge
from bouts.models.challenge import Challenge
from bouts.scoring.explain import Explained

AWFUL = Path(__file__).parent / "fixtures" / "awful_processing.py.txt"


@pytest.fixture(scope="module")
def challenge() -> Challenge:
    return load_challenge(EXAMPLE)


@pytest.fixture(scope="module")
def awful_code(tmp_path_factory: pytest.TempPathFactory, challenge: Challenge) -> Path:
    """The starter plus a god function with bare excepts, copy-paste, no types, leaked files."""
    code = tmp_path_factory.mktemp("awful") / "code"
    shutil.copytree(challenge.starter, code)
    shutil.copy(AWFUL, code / "ledger" / "processing.py")
    return code


def verdict(name: str, challenge: Challenge, code: Path) -> Verdict:
    result = JUDGES.create(name).judge(JudgeInput.read(challenge, code))
    assert isinstance(result.score, Explained), result.score
    return result


@pytest.mark.parametrize("name", PANEL)
def test_anchors_order_low_mid_high(name: str, challenge: Challenge) -> None:
    levels = ("low", "mid", "high")
    scores = [verdict(name, challenge, challenge.anchors[level] / "code").score.value for level in levels]
    assert scores[0] < scores[1] < scores[2], scores


@pytest.mark.parametrize("name", PANEL)
def test_reference_solution_scores_high(name: str, challenge: Challenge) -> None:
    assert verdict(name, challenge, challenge.reference).score.value > 75


@pytest.mark.parametrize("name", PANEL)
def test_awful_solution_scores_low(name: str, challenge: Challenge, awful_code: Path) -> None:
    result = verdict(name, challenge, awful_code)
    assert result.score.value < 40
    assert all(f.file == "ledger/processing.py" for f in result.findings if f.points)


@pytest.mark.parametrize("name", PANEL)
def test_findings_explain_every_point(name: str, challenge: Challenge, awful_code: Path) -> None:
    """Findings' points sum to what the judge took away; each names file, line, rule, dimension."""
    for code in (challenge.anchors["low"] / "code", challenge.anchors["mid"] / "code", awful_code):
        result = verdict(name, challenge, code)
        assert sum(f.points for f in result.findings) == pytest.approx(100 - result.score.value, abs=0.05)
        assert all(f.file and f.line and f.rule and f.dimension for f in result.findings)
        assert set(result.dimensions) == {"readability", "architecture", "robustness", "idiomaticity"}
        assert result.score.value == pytest.approx(sum(result.dimensions.values()) / 4, abs=0.01)


@pytest.mark.parametrize("name", PANEL)
def test_registered_as_code_quality_judges(name: str) -> None:
    judge = JUDGES.create(name)
    assert isinstance(judge, Judge)
    assert judge.name == name and judge.component == "code_quality"
    assert JUDGES.describe()[name]
