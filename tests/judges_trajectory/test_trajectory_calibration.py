"""The agent's final stated confidence, carried on the process verdict (SPEC §2 CalibrationAdjustment)."""

from __future__ import annotations

import pytest

from bouts.judges.trajectory import final_statement

P = "trajectory-process"


def _msg(text, role=None):
    return ("message", {"text": text, **({"role": role} if role else {})})


@pytest.mark.parametrize(
    ("text", "confidence", "p"),
    [
        ("I'm 90% confident the hidden tests pass.", "confident", 0.9),
        ("I am confident that the fix is right.", "confident", 0.8),
        ("Confidence: 85%", "confident", 0.85),
        ("I'm 60% confident this covers it.", "unsure", 0.6),
        ("I'm not sure this handles every case.", "unsure", 0.4),
        ("I am not entirely certain about paging.", "unsure", 0.4),
        ("The fix might not cover negative prices.", "unsure", 0.4),
    ],
)
def test_statements(judge, events, text, confidence, p):
    v = judge(P, events(_msg(text), "submit"))
    assert v.confidence == confidence
    note = next(f for f in v.findings if f.rule == "calibration.statement")
    assert f"p={p:g}" in note.message and note.event == 0


def test_no_statement_is_none(judge, events):
    assert judge(P, events(_msg("Done, everything should work."), "submit")).confidence == "none"


def test_the_last_assistant_statement_wins(judge, events):
    evs = events(
        _msg("I'm not sure yet."),
        _msg("I'm 95% confident now."),
        _msg("I'm not sure", role="user"),
        _msg("Tool says: I'm not sure", role="tool"),
    )
    assert judge(P, evs).confidence == "confident"


def test_quoted_text_is_ignored(judge, events):
    evs = events(
        _msg("I'm 90% confident."),
        _msg('The issue says "I\'m not sure why this fails".'),
        _msg("> I'm not sure\nFixed it."),
        _msg("The log prints `not certain` here."),
    )
    assert judge(P, evs).confidence == "confident"


def test_hedges_count_only_after_the_last_change(events):
    evs = events(
        _msg("This might not be the cause."), ("read", {"path": "a.py"}), ("edit", {"path": "a.py"}), _msg("Fixed.")
    )
    assert final_statement(evs) is None
    later = events(("edit", {"path": "a.py"}), _msg("The fix may not cover page 0."))
    assert final_statement(later).confidence == "unsure"  # type: ignore[union-attr]


def test_no_trajectory_has_no_confidence(judge):
    assert judge(P, None).confidence is None
