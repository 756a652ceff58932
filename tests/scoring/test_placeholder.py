"""SPEC §1: a deliverable that *is* a placeholder (no substance besides TODO/TBD lines) scores 0; a real
document with a follow-up TODO line is not one, and loses only completeness points."""

from __future__ import annotations

import pytest

from bouts.scoring.placeholder import FOLLOW_UP_COST, charge_follow_ups, follow_up_lines, placeholder_reason

REAL = (
    "The outage was caused by a race between the cache refresh and the writer: the refresh read a "
    "stale generation number and overwrote newer entries. We found a TODO in the retry path that "
    "had never been implemented, which is why the failure was silent. The fix takes the lock "
    "before reading the generation and adds a regression test that reproduces the interleaving."
)


@pytest.mark.parametrize(
    "text",
    [
        "TODO",
        "todo",
        "",
        "   \n\n",
        "# Root cause\n\nTODO",
        "# Root cause\n\n- TODO: write this up\n- TBD: the fix\n\nThe cache broke.",  # markers and 3 words
        "# RCA\n\nTODO: explain the outage, the fix, the tests and what we change in the deploy process",
        "TBD",
        "FIXME: fill in",
        "Lorem ipsum dolor sit amet",
        "Coming soon",
        "The bug was in the cache.",  # too short to be a document
    ],
)
def test_placeholders(text):
    assert placeholder_reason(text) is not None


def test_empty_reason_mentions_words():
    assert "0 words" in placeholder_reason("")


def test_real_paragraph_mentioning_todo_mid_sentence():
    assert placeholder_reason(REAL) is None


def test_real_document_with_headings():
    assert placeholder_reason("# Root cause\n\n" + REAL + "\n\n## Fix\n\nSee above.") is None


def test_todo_inside_a_word_is_not_a_marker():
    assert placeholder_reason("Todos were reviewed. " + REAL) is None


def test_real_hard_wrapped_paragraph_with_todo_at_line_start():
    wrapped = (
        "The outage was caused by a race between the cache refresh and the writer. We found a\n"
        "TODO in the retry path that had never been implemented, which is why the failure was\n"
        "silent. The fix takes the lock before reading the generation number.\n"
    )
    assert placeholder_reason(wrapped) is None


def test_a_real_document_with_a_follow_up_todo_line_is_not_a_placeholder():
    """The audit's case: one ``- TODO:`` line turned a real 86.5 document into 0."""
    text = "# Root cause\n\n" + REAL + "\n\n## Follow-up\n\n- TODO: add a load test for the refresh path\n"
    assert placeholder_reason(text) is None
    assert follow_up_lines(text) == [(7, "- TODO: add a load test for the refresh path")]
    assert follow_up_lines(REAL) == []  # a TODO mentioned in prose is no follow-up line


def test_follow_up_lines_cost_completeness_points_floor_zero():
    text = REAL + "\n- TODO: one\n- TBD: two\n"
    assert charge_follow_ups(90, text) == (90 - 2 * FOLLOW_UP_COST, [(2, "- TODO: one", 20.0), (3, "- TBD: two", 20.0)])
    value, charged = charge_follow_ups(30, text)
    assert value == 0 and [lost for _, _, lost in charged] == [20, 10]
    assert charge_follow_ups(70, REAL) == (70, [])
