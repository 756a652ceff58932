"""Two-phase hidden tests, reference expectations, and the pure helpers behind them."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bouts.models.results import Outcome, RunReport, TestResult
from bouts.runner import grade, merge_phases
from bouts.runner._integrity import canary_source
from bouts.runner._workspace import strip_pytest_tables
from bouts.sandbox import Sandbox


def _r(node: str, outcome: Outcome, suite: str = "hidden") -> TestResult:
    return TestResult(id=node, suite=suite, outcome=outcome)  # type: ignore[arg-type]


def test_a_hidden_test_counts_only_if_it_passes_with_both_seeds() -> None:
    first = RunReport(
        results=[_r("h::a", Outcome.PASSED), _r("h::b", Outcome.PASSED), _r("v::c", Outcome.PASSED, "visible")],
        sandbox="x",
        seeds=[1],
    )
    second = RunReport(results=[_r("h::a", Outcome.PASSED), _r("h::b", Outcome.FAILED)], sandbox="x", seeds=[99])
    merged = merge_phases(first, second)
    assert [(r.id, r.outcome) for r in merged.results] == [
        ("h::a", Outcome.PASSED),
        ("h::b", Outcome.FAILED),
        ("v::c", Outcome.PASSED),
    ]
    assert merged.seeds == [1, 99] and "seed 99" in merged.results[1].detail


def test_tampering_in_the_second_phase_voids_the_first() -> None:
    first = RunReport(results=[_r("v::c", Outcome.PASSED, "visible")], sandbox="x", seeds=[1])
    second = RunReport(results=[], sandbox="x", seeds=[2], tampering=["canary passed"])
    merged = merge_phases(first, second)
    assert merged.results[0].outcome is Outcome.FAILED and merged.tampering == ["seed 2: canary passed"]


def test_pytest_tables_are_stripped_from_pyproject(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text('[project]\nname="x"\n[tool.pytest.ini_options]\naddopts="-k x"\n[ tool.pytest ]\n'
                    'a=1\n[tool.ruff]\nx=1\n')  # fmt: skip
    assert strip_pytest_tables(path) == ["pyproject.toml [tool.pytest.ini_options]", "pyproject.toml [tool.pytest]"]
    assert path.read_text() == '[project]\nname="x"\n[tool.ruff]\nx=1\n'


def test_a_canary_is_a_real_test_of_the_file_with_its_expected_literal_changed() -> None:
    source = "from calc import add\n\n\ndef test_adds():\n    assert add(1, 2) == 3\n"
    text, names = canary_source(source, random.Random(3))
    (name,) = names
    assert name.startswith("test_adds_") and "add(1, 2) ==" in text and "== 3\n" not in text
    ast_ok = compile(source + text, "t.py", "exec")  # appends cleanly
    assert ast_ok is not None


def test_a_file_gets_several_canaries_named_with_its_own_words() -> None:
    source = ("from calc import add, sub\n\n\ndef test_adds_small():\n    assert add(1, 2) == 3\n\n\n"
              "def test_subtracts_large():\n    assert sub(900, 1) == 899\n\n\n"
              "def test_negative_sum():\n    assert add(-1, -2) == -3\n")  # fmt: skip
    words = {"adds", "small", "subtracts", "large", "negative", "sum"}
    seen = set()
    for seed in range(6):
        text, names = canary_source(source, random.Random(seed))
        assert 2 <= len(names) <= 3 and len(set(names)) == len(names)
        for name in names:  # no public list of variant words: only the file's own
            assert name.startswith("test_") and set(name.removeprefix("test_").split("_")) <= words, name
        compile(source + text, "t.py", "exec")
        seen.add(tuple(names))
    assert len(seen) == 6


def test_canaries_are_random_and_skip_module_parametrised_files() -> None:
    text, names = canary_source("import unittest\n", random.Random(1))
    other, _ = canary_source("import unittest\n", random.Random(2))
    assert len(names) == 2 and text != other and "assertEqual" in text
    assert canary_source("pytestmark = pytest.mark.parametrize('x', [1])\n", random.Random(1)) == ("", [])


@pytest.mark.sandbox
def test_hard_coding_the_published_seed_fails_the_fresh_seed_phase(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge(
        {
            "visible": {"test_v.py": "from calc import double\ndef test_v(): assert double(2) == 4\n"},
            "hidden": {
                "test_h.py": "from calc import double\n"
                "def test_h(bouts_seed): assert double(bouts_seed) == 2 * bouts_seed\n"
            },
        },
        {"calc.py": "def double(x):\n    return {2: 4, 1234: 2468}.get(x, 0)\n"},
    )
    report = grade(challenge, code, sandbox=bwrap, fresh_seed=77)
    assert {r.id.split("::")[-1]: r.outcome for r in report.results} == {
        "test_v": Outcome.PASSED,
        "test_h": Outcome.FAILED,
    }
    assert report.seeds == [1234, 77]
    honest = code.parent / "honest"
    honest.mkdir()
    (honest / "calc.py").write_text("def double(x):\n    return 2 * x\n")
    assert {r.outcome for r in grade(challenge, honest, sandbox=bwrap).results} == {Outcome.PASSED}


@pytest.mark.sandbox
def test_reference_ids_are_authoritative(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge({"visible": {"test_v.py": "import calc\ndef test_v(): assert calc.ok()\n"}},
                                     {"calc.py": "def ok():\n    return True\n"})  # fmt: skip
    ref = challenge.root / "reference"
    ref.mkdir()
    (ref / "calc.py").write_text("def ok():\n    return True\n")
    assert [(r.id, r.outcome) for r in grade(challenge, code, sandbox=bwrap).results] == [
        ("tests/visible/test_v.py::test_v", Outcome.PASSED)
    ]


def test_a_parametrised_canarys_ids_all_belong_to_it() -> None:
    from bouts.runner._integrity import CanaryIds

    ids = CanaryIds(["t.py::test_a__again"])
    assert "t.py::test_a__again[sqlite]" in ids and "t.py::test_a__again" in ids
    assert "t.py::test_a[sqlite]" not in ids and "t.py::test_a__again_more" not in ids
