"""Strategy judge: decomposition against the reference steps, and architecture heuristics over the code."""

from __future__ import annotations

from pathlib import Path

import pytest

from bouts.judges.trajectory.architecture import analyse
from bouts.judges.trajectory.strategy import decompose
from bouts.models.challenge import DecompositionStep
from bouts.scoring.explain import Explained, NotScored

S = "trajectory-strategy"
STEPS = [
    DecompositionStep(id="reproduce", description="run tests", kinds=["run"], paths=["tests/**"]),
    DecompositionStep(id="locate", description="read code", kinds=["read", "search"], paths=["pkg/*.py"]),
    DecompositionStep(id="fix", description="fix it", kinds=["edit"], paths=["pkg/core.py"]),
    DecompositionStep(id="explain", description="write up", kinds=["write"], paths=["NOTES.md"]),
]


def _with_steps(challenge, steps=STEPS):
    return challenge.model_copy(update={"spec": challenge.spec.model_copy(update={"decomposition": steps})})


def test_no_trajectory_is_not_scored(judge):
    assert isinstance(judge(S, None).score, NotScored)


def test_in_order_trajectory_matches_every_step_with_tau_1(events):
    evs = events(
        ("run", {"command": "pytest tests/"}),
        ("read", {"path": "pkg/core.py"}),
        ("edit", {"path": "/w/pkg/core.py"}),
        ("write", {"path": "deliverables/NOTES.md"}),
    )
    assert decompose(evs, STEPS).positions == (0, 1, 2, 3)


def test_out_of_order_and_missing_steps(judge, events, challenge):
    evs = events(("edit", {"path": "pkg/core.py"}), ("run", {"command": "pytest"}), ("write", {"path": "NOTES.md"}))
    d = decompose(evs, STEPS)
    assert d.positions == (1, None, 0, 2)
    v = judge(S, evs, challenge=_with_steps(challenge))
    assert v.dimensions["decomposition"] == pytest.approx(100 * (0.6 * 3 / 4 + 0.4 * (1 / 3 + 1) / 2))
    assert [f.message for f in v.findings if f.rule == "strategy.step-missing"] == [
        "step locate (read code) never realised"
    ]


def test_unnecessary_clusters_cost_5_but_reading_and_scaffolding_do_not(judge, events, challenge):
    evs = events(
        ("read", {"path": "README.md"}),
        ("edit", {"path": "pkg/core.py"}),
        ("run", {"command": "pytest tests/"}),
        ("write", {"path": "Makefile"}),
        ("run", {"command": "make lint"}),
        ("write", {"path": "check.py"}),
        ("run", {"command": "python check.py"}),
        ("delete", {"path": "check.py"}),
    )
    d = decompose(evs, STEPS)
    assert d.unnecessary == ((3, 3), (4, 4))  # check.py was scaffolding; reading README is efficiency's business
    v = judge(S, evs, challenge=_with_steps(challenge))
    assert [(f.event, f.points) for f in v.findings if f.rule == "strategy.unnecessary"] == [(3, 5), (4, 5)]


def test_no_decomposition_leaves_architecture_alone(judge, events, challenge, tmp_path):
    code = tmp_path / "code" / "ledger"
    code.mkdir(parents=True)
    for f in (challenge.starter / "ledger").iterdir():
        (code / f.name).write_text(f.read_text())
    v = judge(S, events("submit"), challenge=_with_steps(challenge, []), code_dir=tmp_path / "code")
    assert isinstance(v.score, Explained) and v.score.value == 100
    assert "decomposition not scored" in v.score.math[-1]


def test_no_python_code_leaves_decomposition_alone(judge, events, challenge, tmp_path):
    v = judge(S, events(("run", {"command": "pytest tests/"})), code_dir=tmp_path)
    assert "architecture not scored" in v.score.math[-1]


def _penalty(penalties, name):
    return next(p for p in penalties if p.heuristic == name)


def test_architecture_hard_coded_special_case():
    old = {"m.py": "def f(x):\n    return int(float(x) * 100)\n"}
    new = {"m.py": "def f(x):\n    if x == '19.99':\n        return 1999\n    return int(float(x) * 100)\n"}
    penalties, seen = analyse(old, new)
    assert _penalty(penalties, "hard-coded special cases").points == 10
    assert [(o.file, o.line) for o in seen] == [("m.py", 2)]


def test_architecture_complexity_growth():
    body = "".join(f"    if x == {i}:\n        y += {i}\n" for i in range(12))
    new = {"m.py": f"def f(x):\n    y = 0\n{body}    return y\n"}
    penalties, _ = analyse({"m.py": "def f(x):\n    return x\n"}, new)
    assert _penalty(penalties, "complexity growth").points == 3 * (13 - 10)


def test_architecture_imports_beyond_an_allowance_of_3():
    new = {"m.py": "import json\nimport re\nimport os\nimport sys\nimport abc\n"}
    assert _penalty(analyse({"m.py": ""}, new)[0], "new imports").points == 4


def test_architecture_duplication_and_unused_abstractions():
    block = "    a = x + 1\n    b = a * 2\n    c = b - 3\n    return a + b + c\n"
    new = {"m.py": f"def f(x):\n{block}\ndef g(x):\n{block}\ndef _helper():\n    return 1\n"}
    penalties, _ = analyse({"m.py": "def f(x):\n    return x\n"}, new)
    assert _penalty(penalties, "duplication").count == 1
    assert _penalty(penalties, "unused abstractions").count == 2  # g and _helper: nothing calls them


def test_starter_debts_are_not_the_agents():
    src = {"m.py": "def f(x):\n    if x == 1:\n        return 2\n    return x\n"}
    assert all(p.points == 0 for p in analyse(src, src)[0])


def test_unparsable_code_is_skipped(tmp_path: Path):
    assert all(p.points == 0 for p in analyse({}, {"m.py": "def (:"})[0])


STARTER_FN = """\
def total(items):
    result = 0
    for item in items:
        if item.price > 0:
            result += item.price * item.quantity
    return result
"""


def test_architecture_copy_of_a_starter_function_with_its_names_changed():
    renamed = STARTER_FN
    for old, new in (("total", "order_total"), ("items", "lines"), ("item", "line"), ("result", "acc"),
                     ("price", "cost"), ("quantity", "count")):  # fmt: skip
        renamed = renamed.replace(old, new)
    copied = STARTER_FN + "\n\n" + renamed
    penalties, seen = analyse({"m.py": STARTER_FN}, {"m.py": copied})
    assert _penalty(penalties, "copies of starter code").points == 8
    assert [o.message for o in seen if o.heuristic == "copy"] == [
        "new order_total is a copy of the starter's total with its names changed (call it instead)"
    ]
    reused = STARTER_FN + "\n\ndef order_total(lines):\n    return total(lines)\n"
    assert _penalty(analyse({"m.py": STARTER_FN}, {"m.py": reused})[0], "copies of starter code").points == 0


def test_architecture_unidiomatic_constructs_introduced_cost_2_each():
    new = """\
def f(xs, y):
    if y == None:
        return 0
    if type(y) == int:
        pass
    for i in range(len(xs)):
        print(xs[i])
    if y > 3:
        return True
    else:
        return False
"""
    penalties, seen = analyse({"m.py": ""}, {"m.py": new})
    assert _penalty(penalties, "unidiomatic constructs").points == 8
    assert {o.message.split(" (")[0] for o in seen if o.heuristic == "idiom"} == {
        "comparison to None with ==/!=", "type(x) == T", "for i in range(len(xs)) indexing xs[i]",
        "if c: return True else: return False",
    }  # fmt: skip
    assert _penalty(analyse({"m.py": new}, {"m.py": new + "\n"})[0], "unidiomatic constructs").points == 0


def test_architecture_equally_valid_styles_cost_nothing():
    """Seed 000: functional vs imperative, classes vs modules, verbose vs concise are not penalised."""
    functional = "def f(xs):\n    return sum(x * 2 for x in xs if x > 0)\n"
    imperative = (
        "def f(xs):\n    total = 0\n    for x in xs:\n        if x > 0:\n            total += x * 2\n    return total\n"
    )
    as_class = "class F:\n    def run(self, xs):\n        return sum(x * 2 for x in xs if x > 0)\n\n\nF().run([1])\n"
    for code in (functional, imperative, as_class):
        assert sum(p.points for p in analyse({"m.py": ""}, {"m.py": code + "\nf([1])\n"})[0]) == 0, code


def test_architecture_a_starter_function_moved_and_renamed_is_no_copy():
    moved = STARTER_FN.replace("def total(items)", "def order_total(lines)")
    penalties, _ = analyse({"m.py": STARTER_FN}, {"m.py": "", "totals.py": moved + "\norder_total([])\n"})
    assert _penalty(penalties, "copies of starter code").points == 0
