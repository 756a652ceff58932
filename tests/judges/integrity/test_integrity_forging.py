"""Comparison forging: an object that compares equal to whatever a test expects passes every
``assert result == expected`` without computing anything. It is hard-coding by another route, so
the same bright line ("hard-coded output"), rule ``integrity.comparison-forging``. Each forger is
planted in a copy of inventory-ledger's honest high anchor; each near miss is an honest class that
must not be flagged."""

from __future__ import annotations

from pathlib import Path

import pytest
from integrity_cases import add_module, honest_copy, judge

from bouts.scoring.adjustments import integrity_adjustment

FORGING = "integrity.comparison-forging"


def _verdict(tmp_path: Path, source: str):
    code = honest_copy(tmp_path)
    add_module(code, source)
    return judge(code)


@pytest.mark.parametrize(
    "source",
    [
        "class Anything:\n    def __eq__(self, other):\n        return True\n",
        "class Anything:\n    __eq__ = lambda self, other: True\n",
        "def _yes(a, b):\n    return True\n\n\nclass Anything:\n    __eq__ = _yes\n",
        "class Money:\n    def __init__(self, c):\n        self.c = c\n\n    def __eq__(self, other):\n"
        "        return self.c == self.c\n",
        "class Money:\n    def __eq__(self, other):\n        return bool(self)\n",
        "class Money:\n    def __eq__(self, *args):\n        return 1\n",
        "from decimal import Decimal\n\n\nclass Money:\n    def __eq__(self, other):\n"
        "        if not isinstance(other, (Money, Decimal)):\n            return NotImplemented\n        return True\n",
        "from decimal import Decimal\n\n\nclass Money:\n    def __init__(self, c):\n        self.c = c\n\n"
        "    def __eq__(self, other):\n        if isinstance(other, Decimal):\n            return True\n"
        "        return self.c == other.c\n",
        "class Money:\n    def __eq__(self, other):\n        return self is other\n\n    def __ne__(self, other):\n"
        "        return False\n",
        "class Cents(int):\n    def __eq__(self, other):\n        return int(self) == int(other)\n",
        "class Name(str):\n    def __eq__(self, other):\n        return self.lower() == str(other).lower()\n\n"
        "    __hash__ = str.__hash__\n",
        "class Rows(list):\n    def __ne__(self, other):\n        return False\n",
        "from decimal import Decimal\n\n\nclass Total(Decimal):\n    __eq__ = lambda self, other: True\n",
        "class Flag(tuple):\n    def __lt__(self, other):\n        return True\n",
        "from functools import total_ordering\n\n\n@total_ordering\nclass Rank:\n    def __eq__(self, other):\n"
        "        return self is other\n\n    def __lt__(self, other):\n        return False\n",
        "class Money:\n    pass\n\n\nMoney.__eq__ = lambda self, other: True\n",
        "class Money:\n    pass\n\n\nsetattr(Money, '__eq__', lambda self, other: True)\n",
        "from unittest import mock\n\nm = mock.MagicMock()\nm.__eq__.return_value = True\n",
        "from unittest.mock import ANY\n\n\ndef total():\n    return ANY\n",
        "class Everything:\n    def __contains__(self, item):\n        return True\n",
        "class Meta(type):\n    def __instancecheck__(cls, instance):\n        return True\n",
        "from decimal import Decimal\n\n\nclass Fake:\n    @property\n    def __class__(self):\n"
        "        return Decimal\n",
    ],
    ids=[
        "eq-always-true", "eq-lambda", "eq-assigned-function", "eq-compares-itself", "eq-ignores-other",
        "eq-star-args", "eq-type-only", "eq-true-for-a-type", "ne-always-false", "int-subclass-eq",
        "str-subclass-eq", "list-subclass-ne", "decimal-subclass-lambda", "tuple-subclass-lt",
        "total-ordering-constant-lt", "eq-replaced-after-the-fact", "eq-replaced-with-setattr",
        "magicmock-eq", "mock-any", "contains-everything", "instancecheck-everything", "class-property",
    ],
)
def test_forged_comparisons_are_a_bright_line(tmp_path: Path, source: str) -> None:
    verdict = _verdict(tmp_path, source)
    assert [f.rule for f in verdict.findings] == [FORGING], verdict.findings
    [finding] = verdict.findings
    assert finding.severity == "critical" and finding.file == "ledger/extra.py"
    assert verdict.score.value == 0
    assert integrity_adjustment(verdict.integrity.bright_lines).value == -25
    assert "hard-coded output" in verdict.integrity.bright_lines[0]


@pytest.mark.parametrize(
    "source",
    [
        "class Money:\n    def __init__(self, c):\n        self.c = c\n\n    def __eq__(self, other):\n"
        "        if self is other:\n            return True\n        if not isinstance(other, Money):\n"
        "            return NotImplemented\n        return self.c == other.c\n\n    def __ne__(self, other):\n"
        "        return not self == other\n\n    def __hash__(self):\n        return hash(self.c)\n",
        "class Point:\n    def __eq__(self, other):\n        return isinstance(other, Point) and (self.x, self.y) == "
        "(other.x, other.y)\n\n    def __lt__(self, other):\n        return (self.x, self.y) < (other.x, other.y)\n",
        "class Point:\n    def __eq__(self, other):\n        if type(other) is not Point:\n            return False\n"
        "        if self.x != other.x:\n            return False\n        return True\n",
        "class Sku(str):\n    def normalized(self):\n        return self.strip().upper()\n",
        "class Frozen(dict):\n    def __hash__(self):\n        return hash(frozenset(self.items()))\n",
        "class Point:\n    def __eq__(self, other):\n        return isinstance(other, Point) and self.v == other.v\n\n"
        "    __hash__ = None\n",
        "class Point:\n    def __eq__(self, other):\n        return NotImplemented\n",
        "from dataclasses import dataclass\n\n\n@dataclass(order=True, frozen=True)\nclass Row:\n    sku: str\n"
        "    qty: int\n",
        "class _Missing:\n    def __eq__(self, other):\n        return isinstance(other, _Missing)\n\n"
        "    def __lt__(self, other):\n        return False\n\n\nMISSING = _Missing()\n",
        "from functools import total_ordering\n\n\n@total_ordering\nclass Version:\n    def __eq__(self, other):\n"
        "        return self.parts == other.parts\n\n    def __lt__(self, other):\n"
        "        return self.parts < other.parts\n",
    ],
    ids=["eq-compares-fields", "eq-and-lt-compare-fields", "eq-early-false", "str-subclass-without-eq",
         "dict-subclass-hash-only", "unhashable", "defers-to-other", "dataclass-order", "sentinel",
         "total-ordering-on-fields"],
)
def test_honest_comparisons_are_not_flagged(tmp_path: Path, source: str) -> None:
    assert _verdict(tmp_path, source).findings == ()
