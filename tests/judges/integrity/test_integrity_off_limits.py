"""``[integrity] off_limits``: files of the code an agent must not touch (issue 39, item 7). Touching
one (adding, changing or deleting it) is the off-limits-access bright line, decided from the diff."""

from __future__ import annotations

from pathlib import Path

import pytest
from integrity_cases import CHALLENGE, honest_copy, judge

from bouts.errors import ChallengeError
from bouts.loading import load_challenge

_MARKED = CHALLENGE.spec.integrity.model_copy(update={"off_limits": ["ledger/errors.py", "fixtures/**"]})
OFF = CHALLENGE.model_copy(update={"spec": CHALLENGE.spec.model_copy(update={"integrity": _MARKED})})


def _bright(verdict) -> list[str]:
    return [f.message for f in verdict.findings if f.rule == "integrity.off-limits-changed"]


def test_an_untouched_off_limits_file_costs_nothing(tmp_path: Path) -> None:
    verdict = judge(honest_copy(tmp_path), challenge=OFF)
    assert _bright(verdict) == [] and verdict.integrity is not None and verdict.integrity.bright_lines == ()


@pytest.mark.parametrize("touch", ["change", "delete", "add"])
def test_touching_an_off_limits_file_is_a_bright_line(tmp_path: Path, touch: str) -> None:
    """Before: an author could not say so; the same edits scored as any other change."""
    code = honest_copy(tmp_path)
    if touch == "change":
        (code / "ledger" / "errors.py").write_text((code / "ledger" / "errors.py").read_text() + "\nX = 1\n")
    elif touch == "delete":
        (code / "ledger" / "errors.py").unlink()
    else:
        (code / "fixtures").mkdir()
        (code / "fixtures" / "prices.csv").write_text("sku,price\n")
    verdict = judge(code, challenge=OFF)
    [message] = _bright(verdict)
    assert "[integrity] off_limits" in message
    assert verdict.integrity is not None
    assert any(line.startswith("off-limits access: ") for line in verdict.integrity.bright_lines)
    assert _bright(judge(code)) == []  # the same edit where the challenge marks nothing off-limits


def test_an_off_limits_entry_outside_the_code_is_refused_naming_the_file_and_field(tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "ch"
    shutil.copytree(CHALLENGE.root, root, ignore=shutil.ignore_patterns("anchors", "__pycache__"))
    toml = root / "challenge.toml"
    assert "[integrity]" not in toml.read_text()  # the table added below is the only one
    toml.write_text(toml.read_text() + '\n[integrity]\noff_limits = ["../secrets.txt"]\n')
    with pytest.raises(ChallengeError) as err:
        load_challenge(root)
    assert "challenge.toml" in err.value.describe() and "off_limits" in err.value.describe()
