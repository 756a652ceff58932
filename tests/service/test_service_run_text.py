"""Text a submission's running code chooses never reaches agents or the public while the hidden tests
are secret (red-team report of 2026-12-03, H4): the code can read the hidden tests while they run, and
any warning, exception message or output excerpt on the scorecard would carry them out. Operators
see everything. Pure: ``scorecard_view`` on a card dict."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from bouts.service.storage.records import ChallengeInfo, Principal
from bouts.service.views import WITHHELD, failure_word, scorecard_view

SECRET = "def test_value_swap_keeps_totals(): assert led.total('sku-7') == 1234"
"""A line of a hidden test file, as exfiltrating code would smuggle it out (encoded or not)."""
CHUNK = "eJzLSM3JyVcozy_KSQEAGgQEXQ=="


def _challenge(*, active: bool, reveal: str = "after-close") -> ChallengeInfo:
    return ChallengeInfo(
        slug="inventory-ledger", title="Inventory ledger", family="f", profile="composite", active=active,
        version_id=1, content_hash="h", path="/c", registered_at=datetime(2026, 12, 3, tzinfo=UTC),
        reveal_hidden=reveal,
    )  # fmt: skip


def _card() -> dict[str, Any]:
    seen = f"seen: ResourceWarning: audit 000: {CHUNK}; crashed: t::x: ValueError: {SECRET}"
    return {
        "final": 55,
        "components": {
            "stability": {"score": 50.0, "math": ["stability: warnings → 50", seen]},
            "integrity": {"score": 0.0, "math": [], "findings": [
                {"rule": "integrity.grader-tampering",
                 "message": f"the runner saw the grader tampered with: result records forged ({CHUNK})"},
                {"rule": "integrity.off-limits-path", "message": "builds an off-limits path 'tests/hidden'"},
            ]},
        },
        "math": ["static_test_score = (9/20) × 100 = 45", "stability: warnings → 50", seen],
        "flags": [
            {"code": "tampering", "message": f"test run voided: result records forged ({CHUNK})", "level": 1},
            {"code": "integrity_bright_line",
             "message": f"off-limits path; grader tampering: the runner saw the grader tampered with: {CHUNK}"},
            {"code": "provisional", "message": "composite profile is provisional: process not scored"},
        ],
        "tests": [
            {"id": "tests/visible/test_ledger.py::test_ship", "suite": "visible", "outcome": "failed",
             "detail": f"AssertionError: assert '{CHUNK}' == 'x'"},
            {"id": "tests/visible/test_ledger.py::test_report", "suite": "visible", "outcome": "failed",
             "detail": f"ledger.errors.InsufficientStock: {SECRET}"},
            {"id": "tests/generated/test_gen.py::test_gen_001", "suite": "generated", "outcome": "error",
             "detail": f"{CHUNK}Error: x"},
            {"id": "tests/hidden/test_ledger_hidden.py::test_a", "suite": "hidden", "outcome": "failed",
             "detail": "ValueError"},
        ],
    }  # fmt: skip


@pytest.mark.parametrize("role", ["agent", "public"])
def test_no_run_text_reaches_agents_or_the_public_while_hidden_tests_are_secret(role: str) -> None:
    shown = scorecard_view(_card(), Principal(role=role), _challenge(active=True))  # type: ignore[arg-type]
    text = repr(shown)
    assert CHUNK not in text and SECRET not in text and "audit" not in text
    assert [t["detail"] for t in shown["tests"]] == ["AssertionError", "", "", ""]
    assert shown["components"]["stability"]["math"] == [
        "stability: warnings → 50",
        f"seen: warnings or crashes ({WITHHELD})",
    ]
    assert shown["math"][-1] == f"seen: warnings or crashes ({WITHHELD})" and shown["final"] == 55
    flags = {f["code"]: f["message"] for f in shown["flags"]}
    assert flags["tampering"] == f"test run voided: tampering detected (evidence {WITHHELD})"
    assert flags["integrity_bright_line"].startswith("off-limits path; grader tampering: the runner saw")
    assert flags["provisional"] == "composite profile is provisional: process not scored"
    findings = shown["components"]["integrity"]["findings"]
    assert findings[1]["message"] == "builds an off-limits path 'tests/hidden'"


def test_operators_see_every_text_and_a_closed_challenge_shows_it_to_all() -> None:
    operator = scorecard_view(_card(), Principal(role="operator"), _challenge(active=True))
    assert CHUNK in repr(operator) and SECRET in repr(operator)
    closed = scorecard_view(_card(), Principal(role="agent"), _challenge(active=False))
    assert CHUNK in repr(closed) and closed["tests"][0]["detail"] == _card()["tests"][0]["detail"]
    assert closed["tests"][3]["detail"] == ""  # a hidden test's detail is never an agent's
    never = scorecard_view(_card(), Principal(role="agent"), _challenge(active=False, reveal="never"))
    assert CHUNK not in repr(never)


@pytest.mark.parametrize(
    ("detail", "word"),
    [
        ("AssertionError: assert 3 == 4", "AssertionError"),
        ("builtins.ValueError: bad", "ValueError"),
        ("RangeError", "RangeError"),
        ("ledger.errors.InsufficientStock: short by 2", ""),
        ("Expected values to be strictly equal:", ""),
        ("aGVsbG8gd29ybGQ=Error: x", ""),
        ("voided: tampering detected (a canary test that must fail passed)", ""),
        ("line 23: expected an exception; the code <ledger.core.Movement>", "line 23"),
        ("line 7: raised ValueError: x", "line 7"),
        ("line 9: AssertionError", "line 9: AssertionError"),
        ("", ""),
    ],
)
def test_a_failure_detail_keeps_only_a_standard_exception_name(detail: str, word: str) -> None:
    assert failure_word(detail) == word
