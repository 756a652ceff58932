"""SPEC §1: a missing or placeholder (TODO) deliverable scores 0; a real document does not."""

from __future__ import annotations

import pytest

from bouts.scoring.placeholder import placeholder_reason

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
        "# Root cause\n\n- TODO: write this up\n\n" + REAL,
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
