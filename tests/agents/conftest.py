"""Fixtures of the agents tests: the scripted model server (``llm_fakes``), one score cache for the
session (the reference solution runs once), and a judge panel small enough for quick end-to-end runs."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
for helpers in (HERE.parent / "judges" / "llm", HERE.parent / "service"):
    if str(helpers) not in sys.path:
        sys.path.append(str(helpers))

from scripted import JUDGES  # noqa: E402

from bouts.pipeline import ScoreConfig  # noqa: E402


@pytest.fixture(scope="session")
def score_config(tmp_path_factory: pytest.TempPathFactory) -> ScoreConfig:
    return ScoreConfig(judges=JUDGES, adversarial_generation=False, cache_dir=tmp_path_factory.mktemp("bouts-cache"))
