"""The analysis finds each planted weakness with its location; generation is deterministic.
Pure: no submission code runs here (that happens only in the sandbox, see the other module)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bouts.adversarial import PythonAnalyser, analysers, generate, read_sources
from bouts.adversarial._model import SEVERITY, severity_of

FIXTURES = Path(__file__).with_name("fixtures")
LEDGER = Path(__file__).resolve().parents[2] / "examples" / "inventory-ledger"


def analyse(root: Path):  # noqa: ANN201
    return PythonAnalyser().analyse(read_sources(root, (".py",)))


@pytest.mark.parametrize(
    ("kind", "where", "sink"),
    [
        ("unvalidated_input", "planted/palette.py:6", "indexing"),
        ("non_atomic_update", "planted/counter.py:11", "rmw"),
        ("missing_null_check", "planted/parsing.py:6", "re.match"),
        ("pattern_mismatch", "planted/versions.py:3", "version"),
    ],
)
def test_each_planted_weakness_is_found_with_its_location(kind: str, where: str, sink: str) -> None:
    analysis = analyse(FIXTURES / "weak")
    found = [t for t in analysis.targets if t.kind == kind and t.where == where and t.sink == sink]
    assert found, [(t.kind, t.where, t.sink) for t in analysis.targets]
    assert any(p.target in found for p in analysis.probes), "found but not probed"


def test_fixed_versions_leave_only_guarded_targets() -> None:
    targets = analyse(FIXTURES / "fixed").targets
    assert all(t.guarded for t in targets if t.kind == "unvalidated_input")
    assert not [t for t in targets if t.kind in ("non_atomic_update", "missing_null_check", "pattern_mismatch")]


def test_special_casing_a_value_is_not_a_check() -> None:
    # The low anchor's `if price == "19.99": return 1999` must not hide `float(price)`.
    low = analyse(LEDGER / "anchors" / "low" / "code")
    assert any(t.kind == "weak_type" and t.function == "ledger.money:to_cents" for t in low.targets)
    assert any(p.entry.qualname == "Ledger.add_item" and p.param == "unit_price" for p in low.probes)


def test_only_the_package_exports_are_entries() -> None:
    entries = {p.entry.qualname for p in analyse(LEDGER / "reference").probes}
    assert "from_cents" not in entries  # ledger.money's helper is not exported by ledger/__init__
    assert {"Ledger.receive", "Ledger.movements"} <= entries


def test_generation_is_deterministic_from_the_seed_and_compiles() -> None:
    analysis = analyse(FIXTURES / "weak")
    one, again, other = generate(analysis, 11), generate(analysis, 11), generate(analysis, 12)
    assert one.files == again.files
    assert one.files != other.files
    assert all(t.id.startswith("tests/generated/test_gen_") for t in one.tests)
    assert {t.strategy for t in one.tests} == {"fuzz", "race", "metamorphic"}


def test_a_file_that_does_not_parse_is_a_note_not_an_error() -> None:
    analysis = PythonAnalyser().analyse({"pkg/__init__.py": "def f(:\n", "ok.py": "def g(i):\n    return [1][i]\n"})
    assert any("does not parse" in n for n in analysis.notes)
    assert [p.entry.qualname for p in analysis.probes] == ["g"]


def test_severity_table() -> None:
    assert severity_of("unvalidated_input", "sql") == "critical"
    assert severity_of("unvalidated_input", "indexing") == "high"
    assert SEVERITY["non_atomic_update"] == "high" and SEVERITY["weak_type"] == "low"


def test_python_is_registered_and_javascript_not_yet() -> None:
    assert "python" in analysers.names()
    assert "javascript" not in analysers.names()
