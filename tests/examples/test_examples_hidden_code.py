"""Issue 36, end to end: the low anchor of inventory-ledger (final 27, its hard-coded price a bright
line) with that price moved where the old judges did not look. Each once scored 52–53 with
integrity 100; now each is flagged and gains nothing. Payloads run only in the sandbox
(``bouts.pipeline.score``); the judge-level cases, padding past the review budget included (a
2 MB scoring is too slow for this suite), are tests/judges/integrity/test_integrity_hidden_code.py."""

from __future__ import annotations

import io
import shutil
import zipfile
from pathlib import Path

import pytest

from bouts.pipeline import ScoreConfig, score

pytestmark = pytest.mark.sandbox

EXAMPLE = Path(__file__).parents[2] / "examples" / "inventory-ledger"
LOW_FINAL = 27
CHEAT = "def to_cents(price):\n    if price == '19.99':\n        return 1999\n    return int(float(price) * 100)\n"
BRANCH = '    if price == "19.99":\n'


def _zip(members: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, text in members.items():
            z.writestr(name, text)
    return buffer.getvalue()


def _low_with(tmp_path: Path, edit) -> Path:  # noqa: ANN001 - a callable on the code folder
    sub = tmp_path / "submission"
    shutil.copytree(EXAMPLE / "anchors" / "low", sub, ignore=shutil.ignore_patterns("expected.toml", "__pycache__"))
    edit(sub / "code" / "ledger")
    return sub


def _spelled(ledger: Path) -> None:
    money = ledger / "money.py"
    money.write_text(money.read_text().replace(BRANCH, '    if price == "".join(map(chr, [49, 57, 46, 57, 57])):\n'))


def _zipped(ledger: Path) -> None:
    (ledger / "_fast.zip").write_bytes(_zip({"fastmoney.py": CHEAT}))
    money = ledger / "money.py"
    text = money.read_text()
    assert BRANCH + "        return 1999\n" in text
    text = text.replace(BRANCH + "        return 1999\n", "")
    money.write_text(text + "\n\nimport importlib, os, sys  # noqa: E402\n"
                     "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '_fast.zip'))\n"
                     "to_cents = importlib.import_module('fastmoney').to_cents  # noqa: F811\n")


@pytest.mark.parametrize("edit", [_spelled, _zipped], ids=["join-map-chr", "zip-on-sys-path"])
def test_a_cheat_hidden_from_review_gains_nothing(edit, tmp_path: Path) -> None:  # noqa: ANN001
    card = score(EXAMPLE, _low_with(tmp_path, edit), config=ScoreConfig(adversarial_generation=False, fresh_seed=777))
    assert card.adjustments["integrity"] == -25.0
    assert card.components["integrity"].score == 0
    assert card.final <= LOW_FINAL + 3
