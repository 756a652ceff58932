"""A submission directory holding a symlink that leaves it is scored, through the real sandbox.

The attack it stops: such a submission used to be refused (exit 2, no scorecard), and "no score"
must never be better than a flagged score. The loader drops the link (never follows it) and
records it; the integrity judge gives it the symlink bright line, so the scorecard shows integrity
0 and the composite adjustment −25.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bouts.pipeline import ScoreConfig, score

pytestmark = pytest.mark.sandbox

GOOD = "def add(a, b):\n    return a + b\n"
FILES = {
    "challenge.toml": 'id = "tiny-links"\ntitle = "Tiny"\n[limits]\ntest_timeout_s = 5\nsuite_timeout_s = 60\n'
                      "[adversarial]\ngenerate = false\n",
    "starter/calc.py": "def add(a, b):\n    return 0\n",
    "reference/calc.py": GOOD,
    "tests/visible/test_calc.py": "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    "tests/hidden/test_calc_hidden.py": "from calc import add\n\ndef test_swapped():\n    assert add(3, 2) == 5\n"
                                        "\n\ndef test_negative():\n    assert add(-2, -3) == -5\n",
}


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.mark.parametrize("target", ["hidden-tests", "etc-passwd"])
def test_symlink_leaving_the_submission_is_scored_with_the_bright_line(tmp_path: Path, target: str) -> None:
    challenge = _write(tmp_path / "challenge", FILES)
    sub = _write(tmp_path / "sub", {"submission.toml": 'agent = "a"\nchallenge = "tiny-links"\n',
                                    "code/calc.py": GOOD})
    os.symlink(challenge / "tests" / "hidden" if target == "hidden-tests" else "/etc/passwd", sub / "code" / "peek")
    card = score(challenge, sub, config=ScoreConfig(judges=("integrity-static",)))
    assert card.final is not None  # a scorecard, not a refusal
    assert card.components["static_tests"].score == 100  # the link changed nothing the tests saw
    assert card.components["integrity"].score == 0
    assert card.adjustments["integrity"] == -25
    assert any("symlink pointing outside the submission: peek" in line for line in card.math), card.math
