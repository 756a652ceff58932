"""The agent's final stated confidence, carried on the process verdict (SPEC §2 CalibrationAdjustment):
read from its messages and its markdown deliverables, the latest statement winning."""

from __future__ import annotations

from pathlib import Path

import pytest

from bouts.judges.base import JUDGES, JudgeInput
from bouts.judges.trajectory import final_statement, latest_statement
from bouts.judges.trajectory.calibration import WORD_PROBABILITY, statements_in
from bouts.loading.view import read_view
from bouts.models.trajectory import Trajectory
from bouts.models.view import SubmissionView

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
        ("I'm not sure this handles every case.", "unsure", 0.5),
        ("I am not entirely certain about paging.", "unsure", 0.6),
        ("The fix might not cover negative prices.", "unsure", 0.5),
        ("I'm very confident in the paging fix.", "confident", 0.9),
        ("I'm fairly confident in the paging fix.", "confident", 0.7),
        ("We fixed it with high confidence.", "confident", 0.9),
        ("I'm not 100% sure about rounding.", "unsure", 0.6),
        ("My confidence is low.", "unsure", 0.3),
    ],
)
def test_statements(judge, events, text, confidence, p):
    v = judge(P, events(_msg(text), "submit"))
    assert v.confidence == confidence
    note = next(f for f in v.findings if f.rule == "calibration.statement")
    assert f"p={p:g}" in note.message and note.event == 0
    assert v.stated_probability == p


def test_word_probabilities_agree_with_the_confident_threshold():
    # Every "confident" form maps at or above 0.7 (the numeric rule's line), every "unsure" one below.
    assert all((p >= 0.7) == ("confident" in k and "not" not in k) for k, p in WORD_PROBABILITY.items())


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
    v = judge(P, None)
    assert v.confidence is None and v.stated_probability is None


# --- deliverables -----------------------------------------------------------------------------------


def _deliver(root: Path, **docs: str) -> Path:
    for name, text in docs.items():
        path = root / "deliverables" / f"{name}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "deliverables"


def _judge_with(challenge, tmp_path, evs, deliverables):
    traj = None if evs is None else Trajectory(harness="canonical", events=evs)
    inp = JudgeInput.read(challenge, tmp_path, deliverables_dir=deliverables, trajectory=traj)
    return JUDGES.create(P).judge(inp)


RCA = """# Root cause

`to_cents` truncated the float product. Fixed with `Decimal`.

## Risk

The old code may not release stock on a double cancel.
**Confidence:** 90%
"""


def test_a_statement_in_a_deliverable_only(challenge, tmp_path, events):
    v = _judge_with(challenge, tmp_path, events(_msg("Done."), "submit"), _deliver(tmp_path, ROOT_CAUSE=RCA))
    assert (v.confidence, v.stated_probability) == ("confident", 0.9)
    note = next(f for f in v.findings if f.rule == "calibration.statement")
    assert (note.file, note.line, note.event) == ("deliverables/ROOT_CAUSE.md", 8, None)


def test_a_deliverable_is_read_without_a_trajectory(challenge, tmp_path):
    v = _judge_with(challenge, tmp_path, None, _deliver(tmp_path, NOTES="I am not sure whether paging is right."))
    assert v.score.reason == "no trajectory in the submission"  # type: ignore[union-attr]
    assert (v.confidence, v.stated_probability) == ("unsure", 0.5)
    assert _judge_with(challenge, tmp_path, None, _deliver(tmp_path, NOTES="All fixed.")).confidence == "none"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Confidence: 90%", ("confident", 0.9, 1)),
        ("I am fairly confident the fix holds.", ("confident", 0.7, 1)),
        ("Not sure whether page 0 should raise.", ("unsure", 0.5, 1)),
        ("| item | value |\n|---|---|\n| Confidence | 75% |", ("confident", 0.75, 3)),
        ("Confidence: medium", ("unsure", 0.6, 1)),
        ("Paging was fixed and\nI'm 85%\nconfident in it.", ("confident", 0.85, 1)),
        ("# Fix\n\nDone.\n\n- paging fixed\n- I'm not sure about rounding", ("unsure", 0.5, 6)),
    ],
)
def test_deliverable_statements(text, expected):
    (s,) = statements_in(text, "deliverables/X.md")
    assert (s.confidence, s.probability, s.line) == expected


@pytest.mark.parametrize(
    "text",
    [
        "> I'm not sure this is a bug (from the issue)",
        "```\nprint('Confidence: 10%')\n```",
        "~~~text\nI'm not sure\n~~~",
        'The reporter wrote "I am not sure the stock is right".',
        "The log says `uncertain state` here.",
        "<!-- Confidence: 50% -->",
        "The old code may not release stock.",  # a hedge in a write-up describes the bug
        "The 95% confidence interval is irrelevant here.",
    ],
)
def test_quoted_text_in_a_deliverable_is_not_the_agents(text):
    assert statements_in(text, "deliverables/X.md") == []


def docs(deliverables: Path) -> SubmissionView:
    return read_view(None, None, deliverables)


def test_the_latest_statement_wins_across_messages_and_deliverables(events, tmp_path):
    deliverables = _deliver(tmp_path, ROOT_CAUSE="I am not sure the paging fix is complete.")
    said_last = events(
        ("write", {"path": "/testbed/deliverables/ROOT_CAUSE.md"}), _msg("I'm 90% confident now."), "submit"
    )
    s = latest_statement(said_last, docs(deliverables))
    assert (s.confidence, s.event, s.source) == ("confident", 1, "trajectory event 1")  # type: ignore[union-attr]
    written_last = events(_msg("I'm 90% confident."), ("write", {"path": "deliverables/ROOT_CAUSE.md"}))
    s = latest_statement(written_last, docs(deliverables))
    assert (s.confidence, s.source) == ("unsure", "deliverables/ROOT_CAUSE.md:1")  # type: ignore[union-attr]
    # A deliverable the trajectory never shows being written was written at the end: it wins.
    unseen = events(_msg("I'm 90% confident."), "submit")
    assert latest_statement(unseen, docs(deliverables)).confidence == "unsure"  # type: ignore[union-attr]
    # A same-named file elsewhere is not the deliverable.
    elsewhere = events(("write", {"path": "docs/ROOT_CAUSE.md"}), _msg("I'm 90% confident."))
    assert latest_statement(elsewhere, docs(deliverables)).confidence == "unsure"  # type: ignore[union-attr]


def test_deliverables_written_together_are_read_in_path_order(events, tmp_path):
    deliverables = _deliver(tmp_path, A="I'm 90% confident.", B="Not sure about paging.\n\nConfidence: 70%")
    s = latest_statement(events("submit"), docs(deliverables))
    assert (s.probability, s.source) == (0.7, "deliverables/B.md:3")  # type: ignore[union-attr]


def test_a_symlinked_deliverable_is_not_read(tmp_path, challenge):
    outside = tmp_path / "outside.md"
    outside.write_text("I'm 99% confident.", encoding="utf-8")
    deliverables = tmp_path / "deliverables"
    deliverables.mkdir()
    (deliverables / "LINK.md").symlink_to(outside)
    assert latest_statement([], docs(deliverables)) is None
