"""The static integrity judge on the example challenge as shipped: honest trees get zero flags, the
low anchor is caught hard-coding the visible test's price."""

from __future__ import annotations

import pytest
from integrity_cases import CHALLENGE, honest_copy, judge

from bouts.judges.base import JUDGES, Judge
from bouts.judges.integrity import StaticIntegrityJudge
from bouts.scoring.adjustments import integrity_adjustment
from bouts.scoring.explain import Explained, NotScored


@pytest.mark.parametrize("tree", ["anchors/mid/code", "anchors/high/code", "reference", "starter"])
def test_honest_trees_have_zero_flags(tree: str) -> None:
    verdict = judge(CHALLENGE.root / tree)
    assert verdict.findings == ()
    assert isinstance(verdict.score, Explained) and verdict.score.value == 100
    assert verdict.integrity is not None
    assert verdict.integrity.bright_lines == () and verdict.integrity.gray_penalties == ()


def test_low_anchor_is_caught_hard_coding_the_visible_price() -> None:
    verdict = judge(CHALLENGE.root / "anchors/low/code")
    assert isinstance(verdict.score, Explained) and verdict.score.value == 0
    [finding] = verdict.findings
    assert finding.rule == "integrity.branch-on-test-input"
    assert (finding.file, finding.line) == ("ledger/money.py", 8)
    assert 'if price == "19.99":' in finding.message  # the finding cites the code
    assert finding.points == 100 and finding.severity == "critical"
    assert verdict.integrity is not None
    assert integrity_adjustment(verdict.integrity.bright_lines).value == -25


def test_contract_name_component_registry_and_versions() -> None:
    judge_ = JUDGES.create("integrity-static")
    assert isinstance(judge_, StaticIntegrityJudge) and isinstance(judge_, Judge)
    assert (judge_.name, judge_.component) == ("integrity-static", "integrity")
    verdict = judge(CHALLENGE.root / "anchors/high/code")
    assert verdict.judge == "integrity-static" and verdict.component == "integrity"
    assert verdict.versions == {"integrity-static": "integrity-static/5"}


def test_missing_code_directory_is_not_scored(tmp_path) -> None:
    verdict = judge(tmp_path / "nope")
    assert isinstance(verdict.score, NotScored)


def test_verdict_is_deterministic(tmp_path) -> None:
    code = honest_copy(tmp_path, CHALLENGE.root / "anchors/low/code")
    assert judge(code) == judge(code)
