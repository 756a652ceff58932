"""The public API (issue 14 item 5): a small facade whose names are frozen, as httpx freezes its own.
Changing this list is a deliberate, reviewed act: a driver or a user's script depends on it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import bouts

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "league-table"


def test_the_exported_names_are_frozen() -> None:
    assert bouts.__all__ == [
        "BoutsError",
        "InfrastructureError",
        "InputError",
        "ScoreConfig",
        "Scorecard",
        "__version__",
        "load_challenge",
        "score",
    ]


@pytest.mark.parametrize("name", bouts.__all__)
def test_every_exported_name_resolves(name: str) -> None:
    assert getattr(bouts, name) is not None


def test_the_facade_is_the_engine_itself() -> None:
    from bouts.errors import BoutsError
    from bouts.loading import load_challenge
    from bouts.models.scorecard import Scorecard
    from bouts.pipeline import ScoreConfig, score

    assert (bouts.score, bouts.ScoreConfig, bouts.load_challenge, bouts.Scorecard, bouts.BoutsError) == (
        score, ScoreConfig, load_challenge, Scorecard, BoutsError)
    assert bouts.load_challenge(EXAMPLE).spec.id == "league-table"
    with pytest.raises(AttributeError, match="no attribute 'scroe'"):
        bouts.scroe  # noqa: B018


def test_import_bouts_is_light() -> None:
    """``import bouts`` loads no part of the engine until a name is used."""
    code = "import sys, bouts; print(sorted(m for m in sys.modules if m.startswith('bouts')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['bouts']"
