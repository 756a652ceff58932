"""The judge analyses a challenge's starter, reference and visible tests once and shares the analysis
between verdicts on the same content: keyed by the bytes read, never by the challenge's path, so an
edited challenge is analysed afresh and a copy elsewhere shares the analysis."""

from __future__ import annotations

import shutil
from pathlib import Path

from integrity_cases import EXAMPLE, add_module, honest_copy, judge

from bouts.judges.integrity._hardcoded import BRANCH
from bouts.judges.integrity._judge import ChallengeSide, challenge_side
from bouts.judges.integrity._languages import PYTHON
from bouts.judges.integrity._tree import Tree
from bouts.loading import load_challenge
from bouts.models.challenge import Challenge

LOOKUP = 'LOOKUP = {"19.99": 1999}\n\n\ndef cents(p):\n    return LOOKUP[p]\n'
"""The visible tests' price and its answer, as a lookup table: hard-coded unless the challenge writes it."""


def _copy_challenge(tmp_path: Path, name: str) -> Challenge:
    root = tmp_path / name
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", "anchors"))
    return load_challenge(root)


def _side(challenge: Challenge) -> ChallengeSide:
    root = challenge.root
    trees = (Tree.read(root / "starter"), Tree.read(challenge.reference), Tree.read(root / "tests" / "visible"))
    return challenge_side(PYTHON, *trees, root / "challenge.toml")


def test_the_same_content_shares_one_analysis_wherever_it_lies(tmp_path: Path) -> None:
    one, two = _copy_challenge(tmp_path, "one"), _copy_challenge(tmp_path, "two")
    assert _side(one) is _side(one)
    assert _side(one) is _side(two)


def test_a_changed_starter_is_analysed_afresh(tmp_path: Path) -> None:
    challenge = _copy_challenge(tmp_path, "challenge")
    code = honest_copy(tmp_path / "submission")
    add_module(code, LOOKUP)
    before = _side(challenge)
    assert {(f.rule, f.file) for f in judge(code, challenge=challenge).findings if f.severity == "critical"} == {
        (BRANCH, "ledger/extra.py")
    }

    # The same path, new bytes: the starter now writes the table itself, so it explains it.
    money = challenge.root / "starter" / "ledger" / "money.py"
    money.write_text(money.read_text() + "\n\n" + LOOKUP.split("\n")[0] + "\n")
    after = _side(challenge)
    assert after is not before
    assert after.explained > before.explained
    assert not [f for f in judge(code, challenge=challenge).findings if f.severity == "critical"]


def test_a_changed_reference_or_visible_test_is_analysed_afresh(tmp_path: Path) -> None:
    challenge = _copy_challenge(tmp_path, "challenge")
    before = _side(challenge)
    core = challenge.reference / "ledger" / "core.py"
    core.write_text(core.read_text() + "\n# touched\n")
    after_reference = _side(challenge)
    assert after_reference is not before
    visible = next((challenge.root / "tests" / "visible").rglob("test_*.py"))
    visible.write_text(visible.read_text() + "\n")
    assert _side(challenge) is not after_reference
