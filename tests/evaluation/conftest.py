"""Fixtures of the evaluation and cache tests (generation off: they are about caching and batch
evaluation, not the generated tests)."""

from __future__ import annotations

from pathlib import Path

import pytest
from eval_helpers import write_challenge


@pytest.fixture
def tiny_challenge(tmp_path: Path) -> Path:
    return write_challenge(tmp_path / "challenge")
