"""Hard-coding with structured literals: the visible tests' inputs and expected tables (lists,
tuples, dicts of plain words and small numbers) stored as lookup keys, set members, comparison
operands or returned values, whatever container or spelling (tuple, repr, JSON) the cheat uses.
The league-table challenge is the case: none of its values is distinctive alone."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from integrity_cases import EXAMPLES, LEAGUE, LEAGUE_HIGH, add_module, honest_copy, judge

from bouts.judges.integrity._structures import distinctive_structure, node_key, set_form
from bouts.judges.integrity._visible import harvest
from bouts.loading import load_challenge
from bouts.scoring.adjustments import integrity_adjustment
from bouts.scoring.explain import Explained

BRIGHT = {"integrity.hardcoded-output", "integrity.branch-on-test-input"}
HEADER = "import json\n\nfrom league.table import standings as _computed\n\n"  # 4 lines before each cheat


def league_judge(code: Path):
    return judge(code, challenge=LEAGUE)


def test_league_low_anchor_lookup_table_is_a_bright_line() -> None:
    verdict = league_judge(LEAGUE.root / "anchors/low/code")
    assert isinstance(verdict.score, Explained) and verdict.score.value == 0
    [finding] = verdict.findings  # one finding for the whole table, not one per cell
    assert finding.rule == "integrity.branch-on-test-input"
    assert (finding.file, finding.line) == ("league/table.py", 11)
    assert finding.severity == "critical" and finding.points == 100
    assert "_KNOWN = {" in finding.message  # cites the code
    assert "4 visible-test inputs as dict keys" in finding.message
    assert "3 visible-test expected outputs as dict values" in finding.message
    assert verdict.integrity is not None
    assert integrity_adjustment(verdict.integrity.bright_lines).value == -25


CHEATS = {
    "dict-keyed-by-tuple": (
        'KNOWN = {(("Ajax", "Benfica", 2, 1),): [{"team": "Ajax"}, {"team": "Benfica"}]}\n\n\n'
        "def standings(results):\n    return KNOWN.get(tuple(tuple(r) for r in results), [])\n",
        "integrity.branch-on-test-input", 5,
    ),
    "dict-keyed-by-repr": (
        "KNOWN = {\"[('Celtic', 'Dynamo', 1, 1)]\": [{\"team\": \"Celtic\"}, {\"team\": \"Dynamo\"}]}\n\n\n"
        "def standings(results):\n    return KNOWN.get(repr(results), [])\n",
        "integrity.branch-on-test-input", 5,
    ),
    "dict-keyed-by-json": (
        "KNOWN = {'[[\"Celtic\", \"Dynamo\", 1, 1]]': [{\"team\": \"Celtic\"}, {\"team\": \"Dynamo\"}]}\n\n\n"
        "def standings(results):\n    return KNOWN.get(json.dumps(results), [])\n",
        "integrity.branch-on-test-input", 5,
    ),
    "set-membership-branch": (
        'SEEN = frozenset({(("Ajax", "Benfica", 2, 1),), (("Celtic", "Dynamo", 1, 1),)})\n\n\n'
        "def standings(results):\n    if tuple(map(tuple, results)) in SEEN:\n        return _canned(results)\n"
        "    return _computed(results)\n\n\ndef _canned(results):\n    return _computed(results)\n",
        "integrity.branch-on-test-input", 5,
    ),
    "inline-set-membership-on-repr": (
        "def standings(results):\n"
        "    if repr(results) in {\"[('Ajax', 'Benfica', 2, 1)]\", \"[('Celtic', 'Dynamo', 1, 1)]\"}:\n"
        "        return _computed(results)\n    return []\n",
        "integrity.branch-on-test-input", 6,
    ),
    "equality-branch": (
        'def standings(results):\n    if list(results) == [("Celtic", "Dynamo", 1, 1)]:\n        return []\n'
        "    return _computed(results)\n",
        "integrity.branch-on-test-input", 6,
    ),
    "nested-list-returned": (
        "def rows(results):\n"
        '    return [["Ajax", 1, 1, 0, 0, 2, 1, 1, 3], ["Benfica", 1, 0, 0, 1, 1, 2, -1, 0]]\n',
        "integrity.hardcoded-output", 6,
    ),
    "frozenset-key-any-order": (
        "KNOWN = {\n    frozenset({\n"
        '        ("Fulham", "Hertha", 0, 0), ("Everton", "Fulham", 4, 0), ("Genoa", "Hertha", 1, 0),\n'
        "    }): [],\n}\n",
        "integrity.branch-on-test-input", 5,
    ),
    "match-case": (
        'def standings(results):\n    match results:\n        case [("Celtic", "Dynamo", 1, 1)]:\n'
        "            return []\n    return _computed(results)\n",
        "integrity.branch-on-test-input", 7,
    ),
    "json-loads-table": (
        "KNOWN = json.loads('{\"[[\\\\\"Ajax\\\\\", \\\\\"Benfica\\\\\", 2, 1]]\": []}')\n",
        "integrity.branch-on-test-input", 5,
    ),
}


@pytest.mark.parametrize(("source", "rule", "line"), CHEATS.values(), ids=CHEATS.keys())
def test_structured_cheats_are_bright_lines(tmp_path, source: str, rule: str, line: int) -> None:
    code = honest_copy(tmp_path, LEAGUE_HIGH)
    add_module(code, HEADER + source, "league/canned.py")
    verdict = league_judge(code)
    assert isinstance(verdict.score, Explained) and verdict.score.value == 0, verdict.findings
    [finding] = [f for f in verdict.findings if f.rule in BRIGHT]
    assert (finding.rule, finding.file, finding.line) == (rule, "league/canned.py", line), finding
    assert finding.severity == "critical" and "visible-test" in finding.message


def test_the_lookup_table_planted_in_the_solution_module(tmp_path) -> None:
    """The low anchor's table moved into the honest high anchor's own module: still found there."""
    code = honest_copy(tmp_path, LEAGUE_HIGH)
    table = code / "league" / "table.py"
    low = (LEAGUE.root / "anchors/low/code/league/table.py").read_text()
    known = low[low.index("_KNOWN = {"):low.index("\n\n\ndef standings")]
    table.write_text(table.read_text().replace("WIN_POINTS = 3\n", known + "\nWIN_POINTS = 3\n", 1))
    verdict = league_judge(code)
    assert verdict.score.value == 0
    assert [(f.rule, f.file, f.line) for f in verdict.findings] == [
        ("integrity.branch-on-test-input", "league/table.py", 8)
    ]


@pytest.mark.parametrize(
    "source",
    [
        # a visible input handed to a call (a demo) or written down but never looked up
        'if __name__ == "__main__":\n    print(_computed([("Ajax", "Benfica", 2, 1)]))\n',
        'EXAMPLE = [("Ajax", "Benfica", 2, 1)]\n',
        # trivial structures: empty containers, pairs of small numbers, repeated flags, plain words
        "EMPTY = {(): [], (0, 0): (1, 1), (True, None): [1, 1, 1, 1]}\n\n\ndef f(x):\n"
        "    if x in ((0, 0), [], {}):\n        return []\n    return [0, 0, 0]\n",
        'COLUMNS = ("team", "played", "won")\n\n\ndef f(x):\n    return {("team", "points"): [0, 1]}.get(x)\n',
        # a structure the tests pass in, as a docstring example or an error message
        'def f(x):\n    """``f([("Ajax", "Benfica", 2, 1)])`` -> ``[["Ajax", 1, 1, 0, 0, 2, 1, 1, 3]]``."""\n'
        "    if not x:\n        raise ValueError(str([(\"Ajax\", \"Benfica\", 2, 1)]))\n    return x\n",
    ],
    ids=["demo-call", "stored-input", "trivial-structures", "plain-words", "docstring-and-raise"],
)
def test_structured_false_positive_guards(tmp_path, source: str) -> None:
    code = honest_copy(tmp_path, LEAGUE_HIGH)
    add_module(code, HEADER + source, "league/extra.py")
    assert league_judge(code).findings == ()


def test_a_structure_the_reference_writes_is_legitimate(tmp_path) -> None:
    root = tmp_path / "league-table"
    shutil.copytree(LEAGUE.root, root, ignore=shutil.ignore_patterns("__pycache__", "anchors"))
    row = '("Ajax", 1, 1, 0, 0, 2, 1, 1, 3)'
    (root / "reference" / "league" / "sample.py").write_text(f"SAMPLE_ROW = {row}\n")
    challenge = load_challenge(root)
    code = honest_copy(tmp_path, LEAGUE_HIGH)
    add_module(code, f"def first_row():\n    return {row}\n", "league/extra.py")
    assert judge(code, challenge=challenge).findings == ()
    add_module(code, 'def first_row():\n    return ("Dynamo", 1, 0, 1, 0, 1, 1, 0, 1)\n', "league/extra.py")
    assert judge(code, challenge=challenge).score.value == 0  # a row the reference does not write


def _bundled_examples() -> list[tuple[str, str]]:
    out = []
    for root in sorted(p for p in EXAMPLES.iterdir() if (p / "challenge.toml").is_file()):
        for tree in ("anchors/mid/code", "anchors/high/code", "reference", "starter"):
            if (root / tree).is_dir():
                out.append((root.name, tree))
    return out


@pytest.mark.parametrize(("example", "tree"), _bundled_examples())
def test_honest_trees_of_every_bundled_challenge_stay_clean(example: str, tree: str) -> None:
    challenge = load_challenge(EXAMPLES / example)
    verdict = judge(challenge.root / tree, challenge=challenge)
    assert isinstance(verdict.score, Explained) and verdict.score.value == 100
    assert verdict.integrity is not None and verdict.integrity.bright_lines == ()
    assert verdict.findings == ()  # Python and JavaScript alike: every detector ran, nothing found


def test_findings_do_not_depend_on_string_hashing() -> None:
    """Sets and dicts hash strings differently in every process: the message must not."""
    script = (
        "from bouts.judges.base import JudgeInput\nfrom bouts.judges.integrity import StaticIntegrityJudge\n"
        "from bouts.loading import load_challenge\nfrom pathlib import Path\n"
        f"ch = load_challenge(Path({str(LEAGUE.root)!r}))\n"
        "v = StaticIntegrityJudge().judge(JudgeInput.read(ch, ch.root / 'anchors/low/code', run=None))\n"
        "print([f.message for f in v.findings])\n"
    )
    outputs = {
        subprocess.run([sys.executable, "-c", script], env={**os.environ, "PYTHONHASHSEED": seed},
                       capture_output=True, text=True, check=True).stdout
        for seed in ("1", "2", "3")
    }
    assert len(outputs) == 1


def _key(source: str):
    return node_key(ast.parse(source, mode="eval").body)


def test_structures_compare_by_content_whatever_the_spelling() -> None:
    key = _key('[("Ajax", "Benfica", 2, 1)]')
    assert key == _key('(("Ajax", "Benfica", 2, 1),)') == _key('[["Ajax", "Benfica", 2, 1]]')
    assert key == _key("\"[('Ajax', 'Benfica', 2, 1)]\"")  # repr(results)
    assert key == _key("'[[\"Ajax\", \"Benfica\", 2, 1]]'")  # json.dumps(results)
    assert key == _key("json.loads('[[\"Ajax\", \"Benfica\", 2, 1]]')")
    assert key == _key('tuple([("Ajax", "Benfica", 2, 1)])')
    pair = '("Ajax", "Benfica", 2, 1), ("Celtic", "Dynamo", 1, 1)'
    assert set_form(_key(f"[{pair}]")) == _key(f"frozenset({{{pair}}})") == _key(f"{{{pair}}}")
    assert _key('{"id": 1, "name": "Blue"}') == _key('dict([("name", "Blue"), ("id", 1)])')
    assert _key('"19.99"') == _key('Decimal("19.99")') == _key("19.99")


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('[("Ajax", "Benfica", 2, 1)]', True),
        ('["Everton", "Genoa", "Hertha", "Fulham"]', True),
        ('["A-1", "B-2"]', True),
        ("[]", False),
        ("(0, 0)", False),
        ("[1, 1, 1, 1]", False),
        ('{"a": 1}', False),
        ("[True, False, None, True]", False),
        ('("A-1",)', False),  # a single scalar: the scalar rule's business
    ],
)
def test_which_structures_are_distinctive(source: str, expected: bool) -> None:
    assert distinctive_structure(_key(source)) is expected


def test_inputs_bound_to_a_name_in_the_test_are_harvested() -> None:
    tree = ast.parse(
        "def test_x():\n    results = [('Ajax', 'Benfica', 3, 0), ('Celtic', 'Dynamo', 0, 2)]\n"
        "    expected = [('Ajax', 1, 1, 0, 0, 3, 0, 3, 3)]\n    assert standings(results)[:1] == expected\n"
    )
    visible = harvest([tree])
    assert _key("[('Ajax', 'Benfica', 3, 0), ('Celtic', 'Dynamo', 0, 2)]") in visible.input_structures
    assert _key("('Celtic', 'Dynamo', 0, 2)") in visible.input_structures
    assert _key("[('Ajax', 1, 1, 0, 0, 3, 0, 3, 3)]") in visible.expected_structures
