"""Issue 37: dangerous calls reached by computed names are findings of their own, with the severity of
the plain call. Attack stopped: ``getattr(builtins, "ev" + "al")(x)`` and its kin took security from
10 to 100, since Semgrep and Bandit see only the literal names."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from bouts.judges.security import SecurityJudge, SecurityReport, verdict_from
from bouts.judges.security._dynamic import RULE_IMPORT, RULE_LOOKUP, RULE_SINK, python_findings

SPELLINGS: dict[str, tuple[str, str]] = {  # name: (module prelude, what run(x) returns)
    "getattr_concat": ("import builtins", 'getattr(builtins, "ev" + "al")(x)'),
    "import_reversed": ("", '__import__("snitliub"[::-1]).eval(x)'),
    "globals_builtins": ("", 'globals()["__builtins__"]["eval"](x)'),
    "importlib": ("import importlib", 'importlib.import_module("built" + "ins").eval(x)'),
    "vars_builtins": ("import builtins", 'vars(builtins)["ev" "al"](x)'),
    "alias": ("e = eval", "e(x)"),
    "chr_join": ("import builtins", 'getattr(builtins, "".join(map(chr, [101, 118, 97, 108])))(x)'),
    "format": ("import builtins", 'getattr(builtins, "{}{}".format("ev", "al"))(x)'),
    "join_reversed": ('import builtins\n\nNAME = "".join(reversed("lave"))', "getattr(builtins, NAME)(x)"),
    "augmented": ('import builtins\n\nn = "ev"\nn += "al"', "getattr(builtins, n)(x)"),
    "base64": ("import base64\nimport builtins", 'getattr(builtins, base64.b64decode("ZXZhbA==").decode())(x)'),
    "dunder_dict": ("", '__builtins__.__dict__["ex" + "ec"](x)'),
    "attrgetter": ("import builtins\nimport operator", 'operator.attrgetter("ev" + "al")(builtins)(x)'),
    "self_of_builtin": ("", "print.__self__.eval(x)"),
    "function_globals": ("", 'run.__globals__["__builtins__"]["eval"](x)'),
    "fstring": ('import builtins\n\nA = "ev"', 'getattr(builtins, f"{A}al")(x)'),
    "dict_of_functions": ('OPS = {"run": eval}', 'OPS["run"](x)'),
    "import_from_builtins": ("from builtins import eval as e", "e(x)"),
    "class_attribute": ("class Ops:\n    run = eval", "Ops.run(x)"),
}
EVAL_SPELLINGS = {name: f"{prelude}\n\n\ndef run(x):\n    return {call}\n"
                  for name, (prelude, call) in SPELLINGS.items()}
EVAL_SPELLINGS["default_argument"] = "def run(x, e=eval):\n    return e(x)\n"
PLAIN_EVAL = "def run(x):\n    return eval(x)\n"


@pytest.fixture(scope="module")
def spelled(tmp_path_factory: pytest.TempPathFactory) -> SecurityReport:
    """Each spelling in its own file, plus the plain call, scanned by the real judge against an empty starter."""
    root = tmp_path_factory.mktemp("computed")
    (root / "code").mkdir()
    (root / "starter").mkdir()
    for name, source in {**EVAL_SPELLINGS, "plain": PLAIN_EVAL}.items():
        (root / "code" / f"{name}.py").write_text(source)
    return SecurityJudge().scan(root / "code", root / "starter")


def _counted(report: SecurityReport, file: str) -> list[tuple[str, int]]:
    from bouts.scoring.components import SECURITY_DEDUCTIONS

    return [(f.severity, SECURITY_DEDUCTIONS[f.severity]) for f in report.findings if f.file == file and f.counted]


def test_the_plain_call_is_one_critical_finding(spelled: SecurityReport) -> None:
    assert _counted(spelled, "plain.py") == [("critical", 25)]


@pytest.mark.parametrize("name", sorted(EVAL_SPELLINGS))
def test_a_computed_name_eval_is_the_same_finding_as_a_plain_eval(spelled: SecurityReport, name: str) -> None:
    assert _counted(spelled, f"{name}.py") == _counted(spelled, "plain.py"), name


def test_the_verdict_charges_every_spelling(spelled: SecurityReport) -> None:
    verdict = verdict_from(spelled)
    sinks = [f for f in verdict.findings if f.rule == f"bouts:{RULE_SINK}" and f.points == 25]
    assert len(sinks) == len(EVAL_SPELLINGS)
    assert verdict.score.value == 0


def _rules(source: str) -> list[tuple[str, int, str]]:
    return [(f.rule.removeprefix("bouts:"), f.cwe or 0, f.severity) for f in python_findings("m.py", source)]


@pytest.mark.parametrize("source, cwe, severity", [
    ('import os\nvars(os)["sys" + "tem"](cmd)\n', 78, "critical"),
    ('import importlib\nimportlib.import_module("o" + "s").system(cmd)\n', 78, "critical"),
    ('import sys\nsys.modules["so"[::-1]].popen(cmd)\n', 78, "critical"),
    ('m = __import__("pic" + "kle")\nm.loads(data)\n', 502, "high"),
    ('import pickle\nload = getattr(pickle, "lo" + "ads")\nload(data)\n', 502, "high"),
    ('import subprocess\nsubprocess.run(cmd, **{"shell": True})\n', 78, "critical"),
    ('import subprocess\nopts = {"sh" + "ell": 1}\nsubprocess.call(cmd, **opts)\n', 78, "critical"),
    ('import subprocess\nr = getattr(subprocess, "r" + "un")\nr(cmd, shell=True)\n', 78, "critical"),
    ("import os\nrun = os.system\nrun(cmd)\n", 78, "critical"),
])
def test_shell_and_deserialisation_sinks_reached_by_computed_names(source: str, cwe: int, severity: str) -> None:
    assert _rules(source) == [(RULE_SINK, cwe, severity)]


@pytest.mark.parametrize("source", [
    "import os\ngetattr(os, name)(cmd)\n",
    "import builtins\nf = getattr(builtins, input())\n",
    "import subprocess\ngetattr(subprocess, request.args['fn'])(cmd)\n",
    "f = __builtins__[key]\n",
    "import pickle\nvars(pickle)[name](data)\n",
])
def test_a_non_constant_lookup_on_a_dangerous_module_is_a_named_high_finding(source: str) -> None:
    found = _rules(source)
    assert [(r, c, s) for r, c, s in found if r == RULE_LOOKUP] == [(RULE_LOOKUP, 470, "high")]


def test_a_module_imported_by_a_non_constant_name_is_a_medium_finding() -> None:
    assert _rules("m = __import__(name)\n") == [(RULE_IMPORT, 829, "medium")]
    assert _rules("import importlib\nm = importlib.import_module(plugin)\n") == [(RULE_IMPORT, 829, "medium")]


@pytest.mark.parametrize("source", [
    PLAIN_EVAL,  # the scanners report the plain call; the resolver does not count it twice
    "import os\nos.system('ls')\nimport pickle\npickle.loads(b)\n",
    "import subprocess\nsubprocess.run(['ls'], shell=True)\n",
    "import subprocess\nsubprocess.run(['ls'], **{'check': True})\n",
    "import json\nd = getattr(obj, name)\nx = json.loads(s)\neval_score = 3\n",
    "class Model:\n    def eval(self):\n        return 1\n\n\nModel().eval()\n",
    "def submit(exec):\n    exec.submit(task)\n",
    "import importlib\nm = importlib.import_module('json')\nm.loads('{}')\n",
    "import builtins\nprint_ = getattr(builtins, 'print')\nprint_('hi')\n",
    "handlers = {'add': add}\nhandlers[op](x)\n",
    "from functools import partial\nf = partial(max, 0)\n",
    "x = 'a' * 10 ** 9\n",  # folding is bounded: nothing this size is built
])
def test_honest_code_has_no_computed_name_finding(source: str) -> None:
    assert _rules(source) == []


def test_a_file_that_does_not_parse_has_no_finding() -> None:
    assert python_findings("m.py", "def (:\n") == []


def test_hostile_nesting_does_not_crash_the_resolver() -> None:
    deep = "x = " + "(" * 90 + "'a'" + ")" * 90 + "\n" + "y = " + " + ".join(["'a'"] * 3000) + "\n"
    assert python_findings("m.py", deep) == []


def test_an_expression_as_deep_as_the_engine_reads_is_still_followed() -> None:
    """Attack: a long attribute chain beside the eval made the resolver give up on the whole file."""
    chain = "import builtins\nz = builtins" + ".real" * 190 + "\ngetattr(builtins, 'ev' + 'al')(x)\n"
    assert RULE_SINK in {r for r, _, _ in _rules(chain)}


def test_a_computed_eval_in_the_starter_is_pre_existing(tmp_path: Path) -> None:
    source = textwrap.dedent(EVAL_SPELLINGS["getattr_concat"])
    for tree in ("code", "starter"):
        (tmp_path / tree).mkdir()
        (tmp_path / tree / "m.py").write_text(source)
    report = SecurityJudge().scan(tmp_path / "code", tmp_path / "starter")
    assert [f.status for f in report.findings] == ["pre-existing"]
