"""Imported MBPP references pass their own tests through the real sandboxed runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bouts.importers import mbpp_task, write_challenges
from bouts.loading import load_challenge
from bouts.models.results import Outcome
from bouts.runner import grade
from bouts.sandbox import get_sandbox

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "datasets" / "mbpp" / "mbpp.jsonl"
pytestmark = [pytest.mark.sandbox, pytest.mark.skipif(not DATA.is_file(), reason="shared MBPP data not present")]

# A plain task, one with challenge_test_list, one whose test_setup_code builds objects.
TASKS = (2, 11, 367)


def test_three_imported_references_pass_every_test(tmp_path: Path) -> None:
    lines = DATA.read_text(encoding="utf-8").splitlines()
    records = {json.loads(raw)["task_id"]: (n, json.loads(raw)) for n, raw in enumerate(lines, start=1)}
    challenges = [mbpp_task(records[t][1], source=str(DATA), line=records[t][0]) for t in TASKS]
    sandbox = get_sandbox("bubblewrap")
    for imported, path in zip(challenges, write_challenges(challenges, tmp_path), strict=True):
        challenge = load_challenge(path)
        report = grade(challenge, challenge.reference, sandbox=sandbox)
        outcomes = {r.id: r.outcome for r in report.results}
        assert len(outcomes) == imported.visible_tests + imported.hidden_tests, path.name
        assert set(outcomes.values()) == {Outcome.PASSED}, (path.name, outcomes)
        starter = grade(challenge, challenge.starter, sandbox=sandbox)
        assert not any(r.outcome is Outcome.PASSED for r in starter.results), path.name
