"""``[integrity] planted`` in challenge.toml: the tests or behaviours a report of a broken test may
name for the open-integrity bonus (SPEC §2). A malformed entry is an error naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_challenge_loading import GOOD_TOML, make_challenge

from bouts.errors import ChallengeError
from bouts.loading import load_challenge


def _with(tmp_path: Path, planted: str) -> Path:
    return make_challenge(tmp_path / "c", GOOD_TOML + f"\n[integrity]\nplanted = {planted}\n")


def test_planted_tests_and_behaviours_load(tmp_path: Path) -> None:
    ch = load_challenge(_with(tmp_path, '["tests/visible/test_v.py::test_v", "negative page numbers"]'))
    assert ch.spec.integrity.planted == ["tests/visible/test_v.py::test_v", "negative page numbers"]
    assert load_challenge(make_challenge(tmp_path / "d")).spec.integrity.planted == []


@pytest.mark.parametrize(("planted", "field", "says"), [
    ('["ab"]', "integrity.planted", "3 to 200 characters"),
    ('["x y::test_v"]', "integrity.planted", "is not a test id"),
    ('["negative pages", "Negative  pages"]', "integrity.planted", "listed twice"),
    ('["tests/visible/test_gone.py::test_v"]', "integrity.planted[0]", "names no test file of the challenge"),
    ("5", "integrity.planted", ""),
])  # fmt: skip
def test_a_malformed_entry_names_the_field(tmp_path: Path, planted: str, field: str, says: str) -> None:
    with pytest.raises(ChallengeError) as info:
        load_challenge(_with(tmp_path, planted))
    assert info.value.field == field and says in info.value.message
    assert info.value.file is not None and info.value.file.endswith("challenge.toml")
