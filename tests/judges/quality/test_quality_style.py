"""Seed 000's style rules in the offline quality judges (``judges/quality/_style.py``): equally valid
styles cost nothing (the same code written functionally or imperatively, as a class or as module
functions, verbosely or concisely scores the same), inconsistent style within a submission costs
its documented share, and cleverness that hides intent is a bounded finding with its line."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from quality_helpers import Run

from bouts.judges.base import JUDGES
from bouts.judges.quality import PANEL
from bouts.judges.quality._changes import ChangeSet, _collect
from bouts.judges.quality._style import MIN_OBSERVATIONS, STYLE_POINTS, cleverness, inconsistency
from bouts.judges.quality.metrics import MetricsJudge
from bouts.judges.quality.structure import CAPS, StructureJudge
from bouts.models.view import FileTree, ViewFile
from bouts.scoring.explain import Explained

STARTER = {"pkg/__init__.py": "", "pkg/core.py": "def base(value: int) -> int:\n    return value\n"}

# The same behaviour, each pair written in two equally valid styles (seed 000: no penalty for the choice).
FUNCTIONAL = '''
from functools import reduce


def total_price(items: list[tuple[str, int, int]]) -> int:
    """Sum of price x quantity over the items that are in stock."""
    in_stock = filter(lambda item: item[2] > 0, items)
    return reduce(lambda acc, item: acc + item[1] * item[2], in_stock, 0)


def names_in_stock(items: list[tuple[str, int, int]]) -> list[str]:
    """Names of the items in stock, sorted."""
    return sorted(map(lambda item: item[0], filter(lambda item: item[2] > 0, items)))
'''
IMPERATIVE = '''
def total_price(items: list[tuple[str, int, int]]) -> int:
    """Sum of price x quantity over the items that are in stock."""
    total = 0
    for _name, price, quantity in items:
        if quantity > 0:
            total += price * quantity
    return total


def names_in_stock(items: list[tuple[str, int, int]]) -> list[str]:
    """Names of the items in stock, sorted."""
    names = []
    for name, _price, quantity in items:
        if quantity > 0:
            names.append(name)
    names.sort()
    return names
'''
AS_CLASS = '''
class Ledger:
    """Items by name, each with a price and a quantity."""

    def __init__(self) -> None:
        self.items: dict[str, tuple[int, int]] = {}

    def add_item(self, name: str, price: int, quantity: int) -> None:
        """Record an item (a name is added once)."""
        if name in self.items:
            raise ValueError(f"duplicate item {name!r}")
        self.items[name] = (price, quantity)

    def stock_value(self) -> int:
        """Sum of price x quantity."""
        return sum(price * quantity for price, quantity in self.items.values())
'''
AS_MODULE = '''
Ledger = dict[str, tuple[int, int]]


def add_item(ledger: Ledger, name: str, price: int, quantity: int) -> None:
    """Record an item (a name is added once)."""
    if name in ledger:
        raise ValueError(f"duplicate item {name!r}")
    ledger[name] = (price, quantity)


def stock_value(ledger: Ledger) -> int:
    """Sum of price x quantity."""
    return sum(price * quantity for price, quantity in ledger.values())
'''
VERBOSE = '''
def describe_order(order_id: str, quantities: dict[str, int]) -> str:
    """One line per ordered item with a positive quantity, under a heading."""
    heading = f"order {order_id}"
    lines = [heading]
    ordered_names = sorted(quantities)
    for name in ordered_names:
        quantity = quantities[name]
        is_ordered = quantity > 0
        if is_ordered:
            line = f"{name}: {quantity}"
            lines.append(line)
    text = "\\n".join(lines)
    return text
'''
CONCISE = '''
def describe_order(order_id: str, quantities: dict[str, int]) -> str:
    """One line per ordered item with a positive quantity, under a heading."""
    lines = [f"{name}: {quantities[name]}" for name in sorted(quantities) if quantities[name] > 0]
    return "\\n".join([f"order {order_id}", *lines])
'''
PAIRS = {"functional-imperative": (FUNCTIONAL, IMPERATIVE), "class-module": (AS_CLASS, AS_MODULE),
         "verbose-concise": (VERBOSE, CONCISE)}  # fmt: skip
TOLERANCE = 1.0
"""Score points two equivalent implementations may differ by on any judge of the panel."""


def score(run_judge: Run, judge_name: str, source: str) -> float:
    verdict = run_judge(JUDGES.create(judge_name), STARTER, {**STARTER, "pkg/orders.py": source})
    assert isinstance(verdict.score, Explained), verdict.score
    return verdict.score.value


@pytest.mark.parametrize("name", PANEL)
@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_equivalent_implementations_in_equally_valid_styles_score_alike(run_judge: Run, name: str, pair: str) -> None:
    first, second = PAIRS[pair]
    a, b = score(run_judge, name, first), score(run_judge, name, second)
    assert abs(a - b) <= TOLERANCE, (pair, name, a, b)


def changes_of(code: dict[str, str], starter: dict[str, str] | None = None) -> ChangeSet:
    """The judged change set of ``code`` against ``starter`` (nothing: every line is the submission's)."""

    def tree(files: dict[str, str]) -> FileTree:
        return FileTree({rel: ViewFile(rel, len(text.encode()), text.encode()) for rel, text in files.items()})

    return _collect(tree(code), tree(starter or {}), "python")


def style_findings(run_judge: Run, source: str) -> list:
    verdict = run_judge(MetricsJudge(), STARTER, {**STARTER, "pkg/orders.py": source})
    return [f for f in verdict.findings if f.rule == "metrics.inconsistent-style"]


def test_a_camel_case_function_among_snake_case_ones_costs_its_share_with_its_line(run_judge: Run) -> None:
    names = ["load_items", "save_items", "count_items", "sortItems", "drop_items"]
    source = "".join(f"def {n}(value: int) -> int:\n    return value\n\n\n" for n in names)
    found = style_findings(run_judge, source)
    assert [(f.file, f.line) for f in found] == [("pkg/orders.py", 13)]
    # 40 x 1/5 = 8 readability points -> 8 x 0.25 = 2 points of the judge's score
    assert found[0].points == pytest.approx(STYLE_POINTS * 1 / 5 * 0.25)
    assert "camelCase" in found[0].message and "4 snake_case, 1 camelCase" in found[0].message


@pytest.mark.parametrize(
    ("source", "signal", "lines"),
    [
        (
            'def f(items: list[str]) -> str:\n    first = \'a\'\n    second = "b"\n    third = "c"\n'
            '    fourth = "d"\n    return first + second + third + fourth\n',
            "quotes",
            [2],
        ),
        (
            "def f(count: int, name: str) -> list[str]:\n"
            "    return [f'{count}', f'{name}', '%d' % count, f'{count}']\n",
            "string formatting",
            [2],
        ),
        (
            "def f(raw_items: list[int], max_count: int) -> int:\n    itemCount = len(raw_items)\n"
            "    total_value = sum(raw_items)\n    return min(itemCount, max_count, total_value)\n",
            "variable names",
            [2],
        ),
        (
            "def f(size: int) -> int:\n    if size:\n        size += 1\n    if size:\n      size += 2\n"
            "    if size:\n        size += 3\n    return size\n",
            "indentation",
            [5],
        ),
    ],
)
def test_each_signal_charges_its_minority(run_judge: Run, source: str, signal: str, lines: list[int]) -> None:
    found = style_findings(run_judge, source)
    assert [f.line for f in found] == lines, found
    assert all(f.message.startswith(signal) and f.dimension == "readability" for f in found)


@pytest.mark.parametrize("convention", ["snake", "camel"])
@pytest.mark.parametrize("quote", ["'", '"'])
@pytest.mark.parametrize("indent", [2, 4])
def test_a_submission_consistent_in_any_one_style_costs_nothing(convention: str, quote: str, indent: int) -> None:
    words = [("load", "items"), ("save", "items"), ("count", "rows"), ("drop", "rows"), ("sum", "values")]
    pad = " " * indent
    source = ""
    for first, second in words:
        name = f"{first}_{second}" if convention == "snake" else f"{first}{second.title()}"
        source += (
            f"def {name}(value):\n{pad}if value:\n{pad}{pad}return {quote}{first}{quote} % value\n"
            f"{pad}return {quote}{second}{quote}\n\n\n"
        )
    assert inconsistency(changes_of({"m.py": source})) == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), min_size=MIN_OBSERVATIONS, max_size=12))
def test_the_cost_of_mixed_names_is_40_times_the_minority_share(camel: list[bool]) -> None:
    source = "".join(
        f"def {'loadItem' if c else 'load_item'}{i}x(value):\n    return value\n\n\n" for i, c in enumerate(camel)
    )
    found = inconsistency(changes_of({"m.py": source}))
    minority = min(sum(camel), len(camel) - sum(camel))
    assert sum(i.cost for i in found) == pytest.approx(STYLE_POINTS * minority / len(camel))
    assert len(found) == minority
    majority = "camelCase" if sum(camel) > len(camel) - sum(camel) else "snake_case"
    if minority and sum(camel) != len(camel) - sum(camel):  # a tie goes to the variant seen first
        assert all(i.majority == majority for i in found)


def test_only_the_submissions_own_lines_are_compared() -> None:
    """A starter in another convention is not the submission's inconsistency."""
    starter = {"m.py": "".join(f"def loadItem{i}(value):\n    return value\n\n\n" for i in range(5))}
    code = {"m.py": starter["m.py"] + "".join(f"def save_item_{i}(value):\n    return value\n\n\n" for i in range(5))}
    assert inconsistency(changes_of(code, starter)) == []


CLEVER = [
    ("def f(grid):\n    return [c for row in grid for cell in row for c in cell]\n", 2, "comprehension 3"),
    ("def f(grid):\n    return [[[c for c in cell] for cell in row] for row in grid]\n", 2, "comprehension 3"),
    ("def f(n):\n    return 'neg' if n < 0 else 'zero' if n == 0 else 'pos'\n", 2, "chained conditional"),
    ("def f(xs):\n    double = lambda x: x * 2\n    return [double(x) for x in xs]\n", 2, "lambda bound to 'double'"),
    ("def f(flag, a, b):\n    value = flag and a or b\n    return value\n", 2, "picks a value with and/or"),
    ("def f(n):\n    return -~n\n", 2, "bit trick"),
    ("def f(lo, hi):\n    return (lo + hi) >> 1\n", 2, "arithmetic with bits"),
    ("def f(a, b):\n    a ^= b\n    b ^= a\n    a ^= b\n    return a, b\n", 2, "XOR swap"),
    ("def f(name):\n    return __import__(name)\n", 2, "__import__"),
    ("def f(xs, g):\n    found = [x for x in xs if (hit := g(x))]\n    return found, hit\n", 2, "sets hit"),
    (
        "def f(xs, p, q):\n    return [x if p(x) else -x for x in xs if p(x) or q(x) if x and q(x)]\n",
        2,
        "one-liner with 6 decision points",
    ),
]
PLAIN = [
    "def f(grid):\n    return [cell for row in grid for cell in row]\n",  # flattening: two clauses
    "def f(n):\n    return 'neg' if n < 0 else 'pos'\n",
    "def f(xs):\n    return sorted(xs, key=lambda x: -x)\n",  # a lambda passed, not bound
    "def f(a, b, force):\n    if a > 0 and b > 0 or force:\n        return 1\n    return 0\n",  # logic, not a pick
    "def f(mask, bit):\n    return (mask >> bit) & 1 | (mask & 0xFF)\n",  # real bit manipulation
    "def f(xs, g):\n    return [y for x in xs if (y := g(x)) is not None]\n",  # PEP 572's filter-and-reuse
    "def f(xs):\n    return sum(x * 2 for x in xs if x > 0)\n",
]


@pytest.mark.parametrize(("source", "line", "what"), CLEVER)
def test_cleverness_is_found_with_its_line(run_judge: Run, source: str, line: int, what: str) -> None:
    verdict = run_judge(StructureJudge(), STARTER, {**STARTER, "pkg/orders.py": source})
    found = [f for f in verdict.findings if f.rule == "structure.cleverness"]
    assert [(f.file, f.line) for f in found] == [("pkg/orders.py", line)], found
    assert what in found[0].message and found[0].dimension == "readability" and found[0].points > 0


def test_module_level_cleverness_counts_too(run_judge: Run) -> None:
    source = "square = lambda x: x * x\nLOADER = __import__('json')\n\n\ndef f(n: int) -> int:\n    return square(n)\n"
    verdict = run_judge(StructureJudge(), STARTER, {**STARTER, "pkg/orders.py": source})
    found = [(f.line, f.message.split(": ")[1][:20]) for f in verdict.findings if f.rule == "structure.cleverness"]
    assert found == [(1, "lambda bound to 'squ"), (2, "__import__() hides a")]


@pytest.mark.parametrize("source", PLAIN)
def test_plain_code_in_any_style_is_not_clever(source: str) -> None:
    changes = changes_of({"m.py": source})
    assert [c for f in changes.files for u in f.units for c in cleverness(u.node)] == []


def test_cleverness_costs_at_most_its_cap(run_judge: Run) -> None:
    source = "".join(f"def f{i}(n):\n    return -~n\n\n\n" for i in range(40))
    verdict = run_judge(StructureJudge(), STARTER, {**STARTER, "pkg/orders.py": source})
    points = sum(f.points for f in verdict.findings if f.rule == "structure.cleverness")
    assert points == pytest.approx(CAPS["structure.cleverness"] * 0.25)
    assert len([f for f in verdict.findings if f.rule == "structure.cleverness"]) == 40


WHAT = """def settle(count: int, total: int, items: list[int]) -> int:
    # increment the count
    count += 1
    # return the total
    return total
"""
WHY = """def settle(count: int, total: int, items: list[int]) -> int:
    # the ledger counts a refund as one more settlement, not a reversal
    count += 1
    # totals are in cents: the caller formats them (see ROOT_CAUSE.md)
    return total
"""


def test_a_comment_restating_the_line_under_it_costs_readability_and_a_reason_does_not(run_judge: Run) -> None:
    """Seed 000: comments explain why, not what. Before: no judge looked at comments (issue 39, item 7)."""
    from bouts.judges.quality._style import what_comments

    [f] = [f for f in changes_of({"pkg/calc.py": WHAT}).changed if f.rel == "pkg/calc.py"]
    assert list(what_comments(f)) == [(2, "increment the count"), (4, "return the total")]
    [g] = [f for f in changes_of({"pkg/calc.py": WHY}).changed if f.rel == "pkg/calc.py"]
    assert list(what_comments(g)) == []
    verdict = run_judge(StructureJudge(), STARTER, {**STARTER, "pkg/calc.py": WHAT})
    hits = [f for f in verdict.findings if f.rule == "structure.what-comment"]
    assert [(h.line, h.dimension) for h in hits] == [(2, "readability"), (4, "readability")]
    assert "says what the line under it does, not why" in hits[0].message
    assert CAPS["structure.what-comment"] == 15.0
    inherited = run_judge(StructureJudge(), {**STARTER, "pkg/calc.py": WHAT}, {**STARTER, "pkg/calc.py": WHAT})
    assert not [f for f in inherited.findings if f.rule == "structure.what-comment"]  # the starter's own
