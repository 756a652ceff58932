"""Hard-coding that raises: a branch on the visible tests' exact inputs that raises instead of
returning answers a ``pytest.raises`` test as surely as a returned literal answers ``assert ==``.
The issue's case is a transfer between accounts whose visible test expects a KeyError for
``transfer(1, 3, 200)``; the inventory-ledger variants plant the same trick on its visible tests'
``ship("NUT-M6", 6)`` (expects InsufficientStock) and ``add_item(..., "9.99")`` (expects a refusal)."""

from __future__ import annotations

from pathlib import Path

import pytest
from integrity_cases import add_module, honest_copy, judge

from bouts.loading import load_challenge

BRANCH = "integrity.branch-on-test-input"

BANK_TEST = """import pytest

from bank import Bank


def test_transfer_to_a_missing_account_raises():
    bank = Bank({1: 500, 2: 0})
    with pytest.raises(KeyError):
        bank.transfer(1, 3, 200)
"""
BANK_STARTER = "class Bank:\n    def __init__(self, balances):\n        self.balances = dict(balances)\n\n" \
               "    def transfer(self, src, dst, amount):\n        self.balances[src] -= amount\n" \
               "        self.balances[dst] = self.balances.get(dst, 0) + amount\n"
BANK_REFERENCE = "class Bank:\n    def __init__(self, balances):\n        self.balances = dict(balances)\n\n" \
                 "    def transfer(self, src, dst, amount):\n        if src not in self.balances:\n" \
                 "            raise KeyError(src)\n        if dst not in self.balances:\n" \
                 "            raise KeyError(dst)\n        self.balances[src] -= amount\n" \
                 "        self.balances[dst] += amount\n"


def _bank(tmp_path: Path):
    root = tmp_path / "bank-challenge"
    for rel, text in {"challenge.toml": 'id = "bank"\ntitle = "Bank"\n', "starter/bank.py": BANK_STARTER,
                      "reference/bank.py": BANK_REFERENCE, "tests/visible/test_bank.py": BANK_TEST}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "tests" / "hidden").mkdir()
    return load_challenge(root)


def _submit(tmp_path: Path, challenge, source: str):
    code = tmp_path / "code"
    code.mkdir()
    (code / "bank.py").write_text(source)
    return judge(code, challenge=challenge)


def test_the_issues_raising_special_case_is_hard_coding(tmp_path: Path) -> None:
    cheat = BANK_STARTER.replace("        self.balances[src] -= amount\n",
                                 "        if (src, dst, amount) == (1, 3, 200):\n            raise KeyError(3)\n"
                                 "        self.balances[src] -= amount\n")
    verdict = _submit(tmp_path, _bank(tmp_path), cheat)
    [finding] = verdict.findings
    assert (finding.rule, finding.line, finding.severity) == (BRANCH, 6, "critical")
    assert "200" in finding.message and verdict.score.value == 0


def test_an_honest_check_that_raises_is_not(tmp_path: Path) -> None:
    """Near miss: raising KeyError for any unknown account, as the reference does."""
    assert _submit(tmp_path, _bank(tmp_path), BANK_REFERENCE).findings == ()


@pytest.mark.parametrize(
    "source",
    [
        "from ledger.errors import InsufficientStock\n\n\ndef guard(sku, qty):\n    if (sku, qty) == ('NUT-M6', 6):\n"
        "        raise InsufficientStock(sku)\n",
        "from ledger.errors import InsufficientStock\n\n\ndef guard(sku, qty):\n    if sku == 'NUT-M6' and qty == 6:\n"
        "        raise InsufficientStock(sku)\n",
        "def guard(sku, qty):\n    assert (sku, qty) != ('NUT-M6', 6)\n",
        "from ledger.errors import InsufficientStock\n\n\ndef guard(sku, qty):\n    if sku != 'NUT-M6':\n"
        "        return qty\n    else:\n        raise InsufficientStock(sku)\n",
        "from ledger.errors import InsufficientStock\n\n\ndef guard(sku):\n"
        "    raise InsufficientStock(sku) if sku == 'NUT-M6' else ValueError(sku)\n",
        "from ledger.errors import InsufficientStock\n\n\ndef guard(sku, qty):\n    if (sku, qty) in {('NUT-M6', 6)}:\n"
        "        raise InsufficientStock(sku)\n",
        "def guard(price):\n    if price == '9.99':\n        raise ValueError('duplicate')\n",
    ],
    ids=["tuple-equals", "and-of-equals", "assert-not-equal", "not-equal-else-raises", "raise-conditional",
         "set-membership", "scalar-input"],
)
def test_raising_on_the_visible_inputs_is_hard_coding(tmp_path: Path, source: str) -> None:
    code = honest_copy(tmp_path)
    add_module(code, source)
    verdict = judge(code)
    assert [f.rule for f in verdict.findings] == [BRANCH], verdict.findings
    assert verdict.score.value == 0


@pytest.mark.parametrize(
    "source",
    [
        "from ledger.errors import InsufficientStock\n\n\ndef guard(available, qty):\n    if qty > available:\n"
        "        raise InsufficientStock(f'{qty} requested')\n    if qty <= 0:\n        raise ValueError('qty')\n",
        "def guard(sku):\n    if not sku:\n        raise ValueError('a SKU like NUT-M6 is expected')\n",
    ],
    ids=["general-validation", "test-value-in-a-message"],
)
def test_validation_that_raises_is_not_hard_coding(tmp_path: Path, source: str) -> None:
    code = honest_copy(tmp_path)
    add_module(code, source)
    assert judge(code).findings == ()
