"""quality-metrics: each measured signal, on a small fixture, lands in its dimension."""

from __future__ import annotations

import pytest
from quality_helpers import Run

from bouts.judges.quality.metrics import MetricsJudge

STARTER = {"pkg/__init__.py": "", "pkg/core.py": "def base(a: int) -> int:\n    return a\n"}


def findings(run_judge: Run, source: str, rule: str) -> list:
    verdict = run_judge(MetricsJudge(), STARTER, {**STARTER, "pkg/new.py": source})
    return [f for f in verdict.findings if f.rule == rule]


def branches(n: int) -> str:
    body = "".join(f"    if x == {i}:\n        y += {i}\n" for i in range(n))
    return f"def f(x):\n    y = 0\n{body}    return y\n"


def test_complexity_over_ten_costs_robustness(run_judge: Run) -> None:
    assert not findings(run_judge, branches(9), "metrics.complexity")
    (hit,) = findings(run_judge, branches(14), "metrics.complexity")
    assert hit.dimension == "robustness" and "complexity 15" in hit.message


def test_long_function_costs_readability(run_judge: Run) -> None:
    source = "def f(x):\n" + "".join(f"    x = x + {i}\n" for i in range(70)) + "    return x\n"
    (hit,) = findings(run_judge, source, "metrics.length")
    assert hit.dimension == "readability" and "71 lines" in hit.message


def test_deep_nesting_costs_readability(run_judge: Run) -> None:
    source = ("def f(x):\n    for a in x:\n        if a:\n            while a:\n"
              "                with a:\n                    a = 0\n")
    (hit,) = findings(run_judge, source, "metrics.nesting")
    assert "4 deep" in hit.message


def test_too_many_parameters_costs_architecture(run_judge: Run) -> None:
    (hit,) = findings(run_judge, "def f(a, b, c, d, e, g, h, i):\n    return a\n", "metrics.parameters")
    assert hit.dimension == "architecture"


def test_unreachable_statement(run_judge: Run) -> None:
    (hit,) = findings(run_judge, "def f(x):\n    return x\n    print(x)\n", "metrics.unreachable")
    assert hit.line == 3


COPY = """
def receive(self, sku, qty):
    item = self.items[sku]
    if qty <= 0 or qty > item.limit:
        raise ValueError(f"bad {qty}")
    item.on_hand += qty
    self.log.append((sku, "receive", qty, item.on_hand))
    return item.on_hand

def restock(self, code, amount):
    thing = self.items[code]
    if amount <= 0 or amount > thing.limit:
        raise ValueError(f"bad {amount}")
    thing.on_hand += amount
    self.log.append((code, "restock", amount, thing.on_hand))
    return thing.on_hand
"""


def test_renamed_copy_paste_is_duplication(run_judge: Run) -> None:
    hits = findings(run_judge, COPY, "metrics.duplication")
    assert {h.message.split(":")[1] for h in hits} == {"receive", "restock"}
    assert all(h.dimension == "architecture" for h in hits)


def test_distinct_functions_are_not_duplication(run_judge: Run) -> None:
    assert not findings(run_judge, COPY.split("def restock")[0] + "def g(x):\n    return [x] * 3\n",
                        "metrics.duplication")


def test_dead_code_unused_import_and_private_function(run_judge: Run) -> None:
    source = "import os\nimport json\n\n\ndef _unused():\n    return 1\n\n\ndef used():\n    return json.dumps(1)\n"
    messages = sorted(h.message for h in findings(run_judge, source, "metrics.dead-code"))
    assert messages == ["private function '_unused' is never used", "unused import 'os'"]


@pytest.mark.parametrize("source", ['"""Names in __all__."""\nfrom os import path\n__all__ = ["path"]\n'])
def test_exported_import_is_not_dead(run_judge: Run, source: str) -> None:
    assert not findings(run_judge, source, "metrics.dead-code")
