"""Hard-coded outputs in JavaScript: the visible tests' literals answered by the solution, and what
must not count (the reference's own literals, messages a test matches, common numbers)."""

from __future__ import annotations

from pathlib import Path

import pytest
from js_integrity_cases import MONEY_REFERENCE, bright, judge, judge_files, money_challenge, write_tree

from bouts.judges.integrity._js_visible import harvest_js
from bouts.judges.integrity._tree import Tree
from bouts.scoring.explain import Explained

BRANCH = "integrity.branch-on-test-input"
HARDCODED = "integrity.hardcoded-output"


def test_visible_literals_are_harvested_from_node_test_files(tmp_path: Path) -> None:
    challenge = money_challenge(tmp_path)
    visible = Tree.read(challenge.root / "tests" / "visible")
    found = harvest_js(s for rel in visible.js_files() if (s := visible.js_source(rel)))
    assert {("num", "1999"), ("num", "60.96"), ("num", "1250"), ("num", "705")} <= found.expected
    assert ("str", "E-42: not a price") in found.expected  # the message a throws() regex expects
    assert {("num", "19.99"), ("str", "A-1"), ("num", "0.99")} <= found.inputs
    order = ("seq", (("seq", (("str", "A-1"), ("num", "3"), ("num", "19.99"))),
                     ("seq", (("str", "B-2"), ("num", "1"), ("num", "0.99")))))
    assert order in found.input_structures  # a name bound to a literal is read through
    assert ("str", "parses a price") not in found.inputs  # test titles are not inputs


def test_reference_and_starter_are_clean(tmp_path: Path) -> None:
    challenge = money_challenge(tmp_path)
    for tree in (challenge.reference, challenge.starter):
        verdict = judge(challenge, tree)
        assert verdict.findings == ()
        assert isinstance(verdict.score, Explained) and verdict.score.value == 100


@pytest.mark.parametrize(
    ("cheat", "rule", "line"),
    [
        ("if (price === '19.99') return 1999;", BRANCH, 3),
        ("if ('19.99' == price) { return 1999; }", BRANCH, 3),
        ("switch (price) { case '7.05': return 705; }", BRANCH, 3),
        # a table row's value is an expected value too (as for a parametrize table): written anywhere, it counts
        ("if (['12.50', '7.05'].includes(price)) return Number(price.replace('.', ''));", HARDCODED, 3),
        ("return price === '19.99' ? 1999 : Math.round(parseFloat(price) * 100);", BRANCH, 3),
        ("const known = { '19.99': 1999 }; if (price in known) return known[price];", BRANCH, 3),
        ("const known = new Map([['12.50', 1250]]); if (known.has(price)) return known.get(price);", BRANCH, 3),
    ],
    ids=["if-return", "loose-equality", "switch-case", "includes-table-row", "ternary",
         "object-lookup", "map-lookup"],
)
def test_branches_on_visible_inputs_are_bright_lines(tmp_path: Path, cheat: str, rule: str, line: int) -> None:
    challenge = money_challenge(tmp_path)
    source = MONEY_REFERENCE.replace("export function toCents(price) {\n",
                                     "export function toCents(price) {\n  " + cheat + "\n", 1)
    verdict = judge_files(challenge, tmp_path, {"src/money.mjs": source}, base=challenge.reference)
    assert (rule, "src/money.mjs", line) in bright(verdict)
    assert isinstance(verdict.score, Explained) and verdict.score.value == 0
    finding = next(f for f in verdict.findings if f.rule == rule)
    assert cheat.split(";")[0][:20] in finding.message  # the finding cites the code


def test_expected_values_written_into_new_code(tmp_path: Path) -> None:
    challenge = money_challenge(tmp_path)
    source = MONEY_REFERENCE.replace("  return cents / 100;\n", "  if (lines.length === 2) return 60.96;\n"
                                     "  return cents / 100;\n")
    verdict = judge_files(challenge, tmp_path, {"src/money.mjs": source}, base=challenge.reference)
    assert bright(verdict) == [(HARDCODED, "src/money.mjs", 12)]
    assert "writes 60.96, an expected value of the visible tests" in verdict.findings[0].message


def test_structured_lookup_keyed_by_a_visible_input(tmp_path: Path) -> None:
    """The whole visible order as a key: a JSON string, ``JSON.stringify`` of the literal, or an array."""
    challenge = money_challenge(tmp_path)
    for table in (
        "const TOTALS = new Map([[JSON.stringify([['A-1', 3, '19.99'], ['B-2', 1, '0.99']]), 61]]);",
        """const TOTALS = new Map([['[["A-1",3,"19.99"],["B-2",1,"0.99"]]', 61]]);""",
        "const TOTALS = { '[[\"A-1\", 3, \"19.99\"], [\"B-2\", 1, \"0.99\"]]': 61 };",
    ):
        source = table + "\n" + MONEY_REFERENCE
        verdict = judge_files(challenge, tmp_path, {"src/money.mjs": source}, base=challenge.reference)
        assert bright(verdict) == [(BRANCH, "src/money.mjs", 1)], table
        assert "1 visible-test input as dict keys (e.g. [['A-1', 3, 19.99], ['B-2', 1, 0.99]])" in \
            verdict.findings[0].message


def test_writing_a_visible_input_down_is_not_an_answer(tmp_path: Path) -> None:
    challenge = money_challenge(tmp_path)
    source = "export const EXAMPLE = [['A-1', 3, '19.99'], ['B-2', 1, '0.99']];\n" + MONEY_REFERENCE
    verdict = judge_files(challenge, tmp_path, {"src/money.mjs": source}, base=challenge.reference)
    assert bright(verdict) == []


@pytest.mark.parametrize(
    "honest",
    [
        "if (price === '') throw new TypeError('E-42: not a price');",  # the message a test matches
        "if (price === '') return Promise.reject(new RangeError('E-42: not a price'));",
        "const LIMIT = 1999;",  # a whole number stored, not handed back
        "if (price === '19.99') console.log('19.99 again');",  # branches, but answers nothing
        "// return 1999 for '19.99' (a comment is not code)",
        "/** @example toCents('19.99') === 1999 */",
    ],
    ids=["throw-message", "error-message", "stored-integer", "branch-without-answer", "comment", "jsdoc"],
)
def test_honest_uses_of_test_values_are_not_flagged(tmp_path: Path, honest: str) -> None:
    challenge = money_challenge(tmp_path)
    source = MONEY_REFERENCE.replace("export function toCents(price) {\n",
                                     "export function toCents(price) {\n  " + honest + "\n", 1)
    verdict = judge_files(challenge, tmp_path, {"src/money.mjs": source}, base=challenge.reference)
    assert bright(verdict) == [], verdict.findings


def test_a_literal_the_reference_writes_is_explained(tmp_path: Path) -> None:
    challenge = money_challenge(tmp_path)
    write_tree(challenge.reference, {"src/rates.mjs": "export const SPECIAL = ['19.99', 1999];\n"})
    source = MONEY_REFERENCE.replace("export function toCents(price) {\n",
                                     "export function toCents(price) {\n  if (price === '19.99') return 1999;\n", 1)
    verdict = judge_files(challenge, tmp_path, {"src/money.mjs": source}, base=challenge.reference)
    assert bright(verdict) == []


def test_typescript_solution_is_read_too(tmp_path: Path) -> None:
    challenge = money_challenge(tmp_path)
    source = ("export function toCents(price: string): number {\n"
              "  if (price === ('19.99' as string)) return 1999 as number;\n"
              "  return Math.round(parseFloat(price) * 100);\n}\n")
    verdict = judge_files(challenge, tmp_path, {"src/money.ts": source})
    assert (BRANCH, "src/money.ts", 2) in bright(verdict)
