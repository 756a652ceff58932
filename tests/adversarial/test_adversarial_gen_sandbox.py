"""Generated tests run in the real sandbox: each planted weakness fails on the weak fixture and
passes on the fixed one; on the example challenge the reference passes, the low anchor fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from bouts.adversarial import PythonAnalyser, generate, read_sources, run_generated
from bouts.loading import load_challenge
from bouts.models.challenge import Challenge, ChallengeSpec
from bouts.models.results import Outcome
from bouts.runner import run_suites
from bouts.sandbox import get_sandbox

FIXTURES = Path(__file__).with_name("fixtures")
LEDGER = Path(__file__).resolve().parents[2] / "examples" / "inventory-ledger"


def make_challenge() -> Challenge:
    """A challenge with no tests of its own: only the generated files run."""
    return Challenge(root=Path("/nonexistent"), spec=ChallengeSpec(id="planted", title="Planted"),
                     content_hash="c" * 64, suite_hashes={}, test_files={})  # fmt: skip


@pytest.fixture(scope="module")
def sandbox():  # noqa: ANN201
    return get_sandbox("bubblewrap")


@pytest.fixture(scope="module")
def planted(sandbox):  # noqa: ANN001, ANN201
    """The weak fixture's generated tests, run against the weak and the fixed code."""
    suite = generate(PythonAnalyser().analyse(read_sources(FIXTURES / "weak", (".py",))), 7)
    ids = [t.id for t in suite.tests]
    out = {}
    for which in ("weak", "fixed"):
        report = run_suites(make_challenge(), FIXTURES / which, sandbox=sandbox, suites=(), seed=7,
                            generated=suite.files, expected_ids=ids)  # fmt: skip
        assert not report.tampering
        out[which] = {r.id: r for r in report.results}
    return suite, out


@pytest.mark.parametrize(
    ("kind", "symptom"),
    [
        ("unvalidated_input", "IndexError"),
        ("non_atomic_update", "lost update"),
        ("missing_null_check", "AttributeError: 'NoneType'"),
        ("pattern_mismatch", "although the two pairs are ordered alike"),
    ],
)
def test_planted_weakness_fails_on_weak_and_passes_on_fixed(planted, kind: str, symptom: str) -> None:  # noqa: ANN001
    suite, results = planted
    (test,) = [t for t in suite.tests if t.target.kind == kind]
    weak, fixed = results["weak"][test.id], results["fixed"][test.id]
    assert weak.outcome is Outcome.FAILED and symptom in weak.detail, weak.detail
    assert fixed.outcome is Outcome.PASSED, fixed.detail


def test_graceful_rule_reads_the_traceback(sandbox, tmp_path: Path) -> None:  # noqa: ANN001
    """Deliberate raise of ValueError or an own class → graceful; the same type from an operation,
    or a deliberate raise of a non-validation type → failure."""
    pkg = tmp_path / "code" / "rules"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        "class Invalid(Exception):\n    pass\n\n"
        "def own(i):\n    if i != 1:\n        raise Invalid(i)\n    return [1][i - 1]\n\n"
        "def deliberate(i):\n    if i != 1:\n        raise ValueError(i)\n    return [1][i - 1]\n\n"
        "def operation(i):\n    return {1: 1}[i] + int(str(i))\n\n"
        "def wrong_type_raised(i):\n    if i != 1:\n        raise RuntimeError(i)\n    return [1][i - 1]\n"
    )
    suite = generate(PythonAnalyser().analyse(read_sources(tmp_path / "code", (".py",))), 3)
    report = run_suites(make_challenge(), tmp_path / "code", sandbox=sandbox, suites=(), seed=3,
                        generated=suite.files, expected_ids=[t.id for t in suite.tests])  # fmt: skip
    by_entry = {t.entry.split(":")[1]: r for t in suite.tests for r in report.results if r.id == t.id}
    assert by_entry["own"].outcome is Outcome.PASSED
    assert by_entry["deliberate"].outcome is Outcome.PASSED
    assert by_entry["operation"].outcome is Outcome.FAILED
    assert "from inside an operation" in by_entry["operation"].detail
    assert by_entry["wrong_type_raised"].outcome is Outcome.FAILED
    assert "not a validation error" in by_entry["wrong_type_raised"].detail


def test_example_challenge_reference_passes_and_low_anchor_fails(sandbox) -> None:  # noqa: ANN001
    challenge = load_challenge(LEDGER)
    ref = run_generated(challenge, LEDGER / "reference", sandbox=sandbox, seed=1234)
    low = run_generated(challenge, LEDGER / "anchors" / "low" / "code", sandbox=sandbox, seed=1234)
    ref_passed = [r is not None and r.outcome is Outcome.PASSED for _, r in ref.outcomes()]
    low_failed = [r is None or r.outcome is not Outcome.PASSED for _, r in low.outcomes()]
    assert len(ref_passed) >= 10 and sum(ref_passed) / len(ref_passed) >= 0.9
    assert sum(low_failed) >= 5
    assert ref.verdict.component == "adversarial_generated" and ref.verdict.versions
