"""Fixtures of the quality-judge tests (helpers live in ``quality_helpers``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from quality_helpers import Run, challenge_at, write_tree

from bouts.judges.base import JudgeInput, Verdict


@pytest.fixture
def run_judge(tmp_path: Path) -> Run:
    """``run_judge(judge, starter_files, code_files, **spec)`` → the judge's verdict on that submission."""
    count = 0

    def run(judge: object, starter: Mapping[str, str | bytes], code: Mapping[str, str | bytes],
            **spec: object) -> Verdict:
        nonlocal count
        count += 1
        base = tmp_path / f"case{count}"
        challenge = challenge_at(base / "challenge", starter, **spec)
        code_dir = write_tree(base / "code", code)
        return judge.judge(JudgeInput.read(challenge, code_dir))  # type: ignore[attr-defined]

    return run
