"""Stemming-lite, Markdown parsing and the four deliverable sub-scores, on small documents."""

from __future__ import annotations

import pytest

from bouts.judges.deliverables import _rubric as rubric
from bouts.judges.deliverables._text import parse_markdown, stem, terms


@pytest.mark.parametrize(
    ("words", "root"),
    [(("truncated", "truncates", "truncation", "truncate"), "truncat"), (("cancelled", "cancel"), "cancel"),
     (("prices", "price"), "pric"), (("classes", "class"), "class"), (("dropped", "drop"), "drop")],
)
def test_stemming_lite_meets_word_forms(words: tuple[str, ...], root: str) -> None:
    assert {stem(w) for w in words} == {root}


def test_terms_keep_numbers_and_split_identifiers() -> None:
    found = terms("`page_size` sliced 19.99 to the log")
    assert {"page_size", "pag", "siz", "19.99", "slic", "log"} <= set(found)
    assert "the" not in found and "to" not in found


def test_markdown_parts() -> None:
    doc = parse_markdown("# Title\n\nOne. Two.\n\n```\ncode here\n```\n\nTitle two\n---------\n\nBody.\n")
    assert [h for _, h in doc.headings] == ["Title", "Title two"]
    assert doc.code_blocks == ("code here",)
    assert doc.paragraphs == ("One. Two.", "Body.")
    assert doc.sentences() == ["One.", "Two.", "Body."]


FACTS = ["cancel never decremented the reserved count, so the stock stayed unavailable",
         "regression tests cover each bug"]


def test_accuracy_counts_stated_facts_with_evidence() -> None:
    doc = parse_markdown("# Cancel\n\nThe cancel path never decremented `reserved`, so stock stayed unavailable.\n")
    score = rubric.accuracy(doc, FACTS)
    assert score.value == pytest.approx(50)
    assert score.evidence[0].lost == 0 and "stated" in score.evidence[0].message
    assert score.evidence[1].lost == 50 and "not stated" in score.evidence[1].message


def test_accuracy_partial_credit_between_thresholds() -> None:
    doc = parse_markdown("The cancel path was wrong and the count stayed high.\n")
    assert 0 < rubric.accuracy(doc, FACTS[:1]).value < 100


def test_reference_accuracy_without_expected_facts() -> None:
    doc = parse_markdown("Fixed `to_cents` in `ledger/money.py` and `made_up_function`.\n")
    score = rubric.reference_accuracy(doc, frozenset({"to_cents", "ledger", "money"}))
    assert score.value == pytest.approx(200 / 3)
    assert [e.message for e in score.evidence] == ["cites `made_up_function`, not found in the submission's code"]


def test_clarity_penalises_walls_of_text_and_long_sentences() -> None:
    wall = " ".join(["word"] * 60) + ". "
    bad = rubric.clarity(parse_markdown(wall * 4))
    good = rubric.clarity(parse_markdown("# Title\n\nShort clear sentence. Another one.\n"))
    assert good.value == 100
    assert bad.value < 60
    assert {e.rule for e in bad.evidence} >= {"clarity.no-headings", "clarity.wall-of-text", "clarity.long-sentences"}


@pytest.mark.parametrize(
    ("kind", "text", "value"),
    [
        ("root-cause-analysis", "# Symptom\nx\n# Root cause\ny\n# Fix\nz\n# Prevention\nw\n", 100),
        ("root-cause-analysis", "**Cause.** it broke.\n\nWe fixed it.\n", (0 + 1 + 0.6 + 0) / 4 * 100),
        ("adr", "# Context\na\n# Decision\nb\n# Consequences\nc\n", 100),
        ("adr", "# Decision\nWe chose X.\n", 100 / 3),
    ],
)
def test_completeness_by_kind(kind: str, text: str, value: float) -> None:
    assert rubric.completeness(parse_markdown(text), kind).value == pytest.approx(value)


def test_actionability_rewards_concrete_handles() -> None:
    vague = rubric.actionability(parse_markdown("We should be more careful in the future.\n"))
    concrete = rubric.actionability(parse_markdown(
        "- Fix `to_cents` in `ledger/money.py:12` and `ledger/core.py`\n- Run `pytest tests/visible`\n"
        "- Add `test_price_rounding`, `Ledger.cancel`\n\nOwner: @alice, follow-up next sprint.\n"))
    assert vague.value == 0
    assert concrete.value == 100
    assert all(e.lost == 0 for e in concrete.evidence)
