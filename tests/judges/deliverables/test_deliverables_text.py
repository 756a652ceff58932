"""Stemming-lite, Markdown parsing and the four deliverable sub-scores, on small documents."""

from __future__ import annotations

import pytest

from bouts.judges.deliverables import _rubric as rubric
from bouts.judges.deliverables._evidence import CodeEvidence
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


EVIDENCE = CodeEvidence(
    changed_units=(("ledger/money.py", "to_cents"), ("ledger/core.py", "Ledger.cancel")),
    changed_files=frozenset({"ledger/money.py", "ledger/core.py"}),
    files=frozenset({"ledger/money.py", "ledger/core.py", "ledger/errors.py"}),
    changed_defs=frozenset({"to_cents", "Ledger.cancel", "cancel", "Ledger"}),
    defs=frozenset({"to_cents", "Ledger.cancel", "cancel", "Ledger", "Ledger.ship", "ship"}),
    diff_names=frozenset({"Decimal", "reserved"}),
    names=frozenset({"to_cents", "Ledger", "cancel", "ship", "Decimal", "reserved", "ledger", "money"}),
    tests={"test_price_rounding": True, "test_ship": False},
)


def test_evidence_accuracy_precision_and_coverage() -> None:
    doc = parse_markdown("Fixed `to_cents` in `ledger/money.py` with `Decimal`; `ship` untouched; "
                         "`made_up_function` and `test_price_rounding`.\n")
    score = rubric.evidence_accuracy(doc, EVIDENCE)
    verdicts = {c.ref: c.verdict for c in rubric.citations(doc, EVIDENCE)}
    assert verdicts == {"ledger/money.py": "match", "to_cents": "match", "Decimal": "match", "ship": "neutral",
                        "made_up_function": "error", "test_price_rounding": "match"}
    # precision 4/5, coverage 1/2 (Ledger.cancel not named)
    assert score.value == pytest.approx(50 * 4 / 5 + 50 * 1 / 2)
    assert sum(e.lost for e in score.evidence) == pytest.approx(100 - score.value)


def test_accuracy_combines_facts_and_evidence() -> None:
    doc = parse_markdown("# Cancel\n\nThe cancel path never decremented `reserved`, so stock stayed unavailable.\n")
    score = rubric.accuracy(doc, FACTS, EVIDENCE)
    facts, evidence = rubric.fact_accuracy(doc, FACTS), rubric.evidence_accuracy(doc, EVIDENCE)
    assert score.value == pytest.approx(0.6 * facts.value + 0.4 * evidence.value)
    assert sum(e.lost for e in score.evidence) == pytest.approx(100 - score.value)


@pytest.mark.parametrize(
    ("text", "undefined"),
    [
        ("The SLO was missed and the WAL grew.", ["SLO", "WAL"]),
        ("The service level objective (SLO) was missed; the WAL (write-ahead log) grew.", []),
        ("Mean time to recovery MTTR rose. The SLO (SLO) fine.", []),
        ("HTTP, SQL, JSON and an API ID are fine. `XYZ` in code is fine.", []),
    ],
)
def test_undefined_jargon(text: str, undefined: list[str]) -> None:
    assert [w for w, _ in rubric.undefined_jargon(parse_markdown(f"# T\n\n{text}\n"))] == undefined


def test_clarity_charges_jargon_capped_and_knows_the_task_vocabulary() -> None:
    doc = parse_markdown("# T\n\nThe SLO, the WAL, the RPO, the MTTR and the LSN all moved.\n")
    score = rubric.clarity(doc)
    assert [e.rule for e in score.evidence].count("clarity.jargon") == 3
    assert score.value == 100 - rubric.JARGON_CAP
    assert rubric.clarity(doc, frozenset({"SLO", "WAL", "RPO", "MTTR", "LSN"})).value == 100


def test_clarity_penalises_walls_of_text_and_long_sentences() -> None:
    wall = " ".join(["word"] * 60) + ". "
    bad = rubric.clarity(parse_markdown(wall * 4))
    good = rubric.clarity(parse_markdown("# Title\n\nShort clear sentence. Another one.\n"))
    assert good.value == 100
    assert bad.value < 60
    assert {e.rule for e in bad.evidence} >= {"clarity.no-headings", "clarity.wall-of-text", "clarity.long-sentences"}


GOOD_RCA = "# Cause\n\nThe price went through float and lost a cent.\n\n# Fix\n\nConvert with Decimal.\n"


@pytest.mark.parametrize(
    ("padding", "kind"),
    [
        ("\n\n" + ">" * 5000 + " deep\n\n" + "[" * 3000, "symbol runs"),
        ("\n\n" + ("a" * 1000 + "\n") * 50, "overlong tokens"),
        ("\n\n" + "\n\n".join(["The fix converts prices with Decimal and never float."] * 40), "repeated paragraphs"),
    ],
)
def test_clarity_charges_padding_that_tells_the_reader_nothing(padding: str, kind: str) -> None:
    clean = rubric.clarity(parse_markdown(GOOD_RCA))
    padded = rubric.clarity(parse_markdown(GOOD_RCA + padding))
    noise = [e for e in padded.evidence if e.rule == "clarity.noise"]
    assert clean.value == 100 and len(noise) == 1 and kind in noise[0].message
    assert padded.value <= 100 - rubric.NOISE_CAP * 0.5


def test_noise_spares_tables_paths_hashes_and_code() -> None:
    text = (GOOD_RCA + "\n| file | change |\n|------|:------:|\n| `ledger/money.py` | Decimal |\n\n"
            "Commit " + "ab12" * 16 + " touched src/bouts/judges/deliverables/_rubric_helpers_for_clarity_and_more.py "
            "and https://example.org/a/very/long/path/that/goes/on/and/on/for/more/than/sixty/four/characters.\n\n"
            "```\n" + ">" * 200 + "\n```\n")
    assert noise_of(text) == 0


def noise_of(text: str) -> int:
    return rubric.noise(parse_markdown(text))[0]


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


def test_file_references_start_where_a_path_can_and_are_bounded() -> None:
    """A path is matched from its start only, at most 240 characters: a long run such as ``a-a-a-…``
    is read once (matching from every position of it was quadratic: 64 kB of it took 25 s)."""
    from bouts.judges.deliverables._rubric import _FILE_REF

    text = "see src/app.py:12, `tests/test_x.py::test_a` and ledger/core.py. " + "a-" * 5000 + "b.py"
    assert _FILE_REF.findall(text) == ["src/app.py:12", "tests/test_x.py::test_a", "ledger/core.py"]
    assert _FILE_REF.findall("x" * 300 + ".py") == []  # longer than any path a document cites
