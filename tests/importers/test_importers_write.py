"""Writing imported challenges: each loads with load_challenge; a failure leaves no half directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from bouts.importers import ImportedChallenge, parse_humaneval, parse_mbpp, write_challenges
from bouts.loading import load_challenge

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "datasets"
pytestmark = pytest.mark.skipif(not (DATA / "mbpp" / "mbpp.jsonl").is_file(), reason="shared data not present")


def test_imported_challenges_load(tmp_path: Path) -> None:
    mbpp = parse_mbpp((DATA / "mbpp" / "mbpp.jsonl").read_text(encoding="utf-8"), source="mbpp.jsonl")
    picked = [c for c in mbpp if c.id in {"mbpp-1", "mbpp-11", "mbpp-19", "mbpp-367", "mbpp-798", "mbpp-927"}]
    humaneval = parse_humaneval((DATA / "humaneval" / "example_problem.jsonl").read_text(), source="he")
    paths = write_challenges(picked + humaneval, tmp_path)
    assert [p.name for p in paths] == [c.id for c in picked + humaneval]
    for path in paths:
        challenge = load_challenge(path)
        assert challenge.spec.id == path.name
        assert challenge.spec.family == "default" and challenge.spec.profile == "engine"
        assert challenge.spec.tests.tests_per_process == 64  # as the dataset's harness: docs/importers.md
        assert len(challenge.test_files["visible"]) == len(challenge.test_files["hidden"]) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in paths)  # no staging left


def test_a_challenge_that_does_not_load_is_never_published(tmp_path: Path) -> None:
    good = parse_mbpp(
        '{"task_id": 1, "text": "t", "code": "def f():\\n    return 1", "test_list": ["assert f() == 1"]}\n',
        source="x",
    )[0]
    broken = ImportedChallenge(
        id="broken", files={"challenge.toml": 'id = "broken"\ntitle = "b"\n'}, line=2, visible_tests=0, hidden_tests=0
    )
    with pytest.raises(Exception, match="required directory is missing"):
        write_challenges([good, broken], tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mbpp-1"]  # complete, loaded, published
    load_challenge(tmp_path / "mbpp-1")
