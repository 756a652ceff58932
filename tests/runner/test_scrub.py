"""The scrubber (``bouts.runner._scrub``): nothing of the hidden tests or the reference leaves in text.

Attack it stops: a submission that reads the hidden test file (or was handed the reference) and
puts it in an exception message, a warning or a crash line, to read it back from its scorecard.
Pure: no sandbox here (the end-to-end attack is ``test_runner_scrub_attack.py``).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bouts._controls import escape_controls, json_safe
from bouts.assemble import _public_id
from bouts.loading import load_challenge
from bouts.models.results import Outcome, RunReport, StabilitySignals, TestResult
from bouts.runner._scrub import MARK, MAX_TEXT, K, SecretIndex, normalise, public_id, scrub_report
from bouts.runner._secrets import read_challenge_texts

SECRET = (
    "from calc import add\n\n"
    "def test_swapped_carry():\n"
    '    assert add(7781, 9902) == 17683, "the quokka ledger must carry"\n'
)
PUBLIC = "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def windows(text: str, k: int = K) -> set[str]:
    norm = normalise(text)
    return {norm[i : i + k] for i in range(len(norm) - k + 1)}


def test_a_copied_hidden_assertion_is_replaced_and_the_rest_is_kept() -> None:
    index = SecretIndex.build([SECRET], [PUBLIC])
    out = index.scrub("ValueError: assert add(7781, 9902) == 17683 as you asked")
    assert out.startswith("ValueError") and out.endswith(" as you asked") and MARK in out
    assert "7781" not in out and "17683" not in out


def test_respacing_quotes_and_invisible_characters_do_not_slip_a_copy_through() -> None:
    index = SecretIndex.build([SECRET], [PUBLIC])
    disguised = "assert  add(7781,9902)\t==\x1b17683,\u200b'the quokka\x00 ledger must carry'"
    out = index.scrub(disguised)
    assert "quokka" not in out and "7781" not in out


def test_text_the_agent_has_anyway_is_not_scrubbed() -> None:
    # Shared with the visible tests or the starter: public, and the commonest false positive.
    index = SecretIndex.build([SECRET], [PUBLIC])
    assert index.scrub("ImportError: from calc import add failed") == "ImportError: from calc import add failed"


def test_test_ids_passed_as_public_survive() -> None:
    index = SecretIndex.build([SECRET])
    node = "tests/hidden/test_h.py::test_swapped_carry"
    assert MARK in index.scrub(f"crashed: {node}")
    assert index.scrub(f"crashed: {node}", public=index.grams_of([node])) == f"crashed: {node}"


def test_control_characters_are_escaped_after_scrubbing() -> None:
    index = SecretIndex.build([SECRET])
    assert index.scrub("boom\x1b[2J\x9b1m\r") == "boom\\x1b[2J\\x9b1m\\x0d"


def test_huge_texts_are_cut_and_scrubbed_in_bounded_time() -> None:
    index = SecretIndex.build([SECRET * 50])
    start = time.perf_counter()
    out = index.scrub(("x" * 1000 + SECRET) * 1000)  # ~1 MB
    assert time.perf_counter() - start < 1.0
    assert len(out) < MAX_TEXT + 100 and "more characters cut" in out and "quokka" not in out


def test_thousands_of_lines_are_fast() -> None:
    secret, public = read_challenge_texts(load_challenge(EXAMPLES / "inventory-ledger"))
    index = SecretIndex.build(secret, public)
    lines = [
        f"AssertionError: assert {i} == {i + 1} where {i} = balance(ledger, {i}) and nothing else" for i in range(5000)
    ]
    start = time.perf_counter()
    for line in lines:
        index.scrub(line)
    assert time.perf_counter() - start < 2.0  # ~0.1 s measured on a loaded 2-core machine


def test_the_index_is_bounded() -> None:
    index = SecretIndex.build(["a" * 3_000_000])
    assert not index.complete


def test_hidden_details_are_cut_to_the_exception_type_whatever_the_worker_sent() -> None:
    # The worker sends only the type, but it runs submission code: the host does not take its word.
    results = [
        TestResult(id="tests/hidden/t.py::test_a[7781-9902]", suite="hidden", outcome=Outcome.FAILED,
                   detail="AssertionError: assert add(7781, 9902) == 17683"),
        TestResult(id="tests/hidden/t.py::test_b", suite="hidden", outcome=Outcome.CRASHED,
                   detail="killed by signal 9: " + SECRET),
        TestResult(id="tests/visible/t.py::test_c", suite="visible", outcome=Outcome.FAILED,
                   detail="AssertionError: " + SECRET),
    ]  # fmt: skip
    report = RunReport(
        results=results,
        sandbox="fake",
        stability=StabilitySignals(
            warnings=["UserWarning: " + SECRET.replace("\n", " ")],
            crashes=[
                "crashed: tests/hidden/t.py::test_a[7781-9902]: the quokka ledger must carry",
                "seed 7: timeout: tests/hidden/t.py::test_b: ValueError: x",
            ],
        ),
        tampering=["a canary passed: " + SECRET],
        infra_error="sandbox said " + SECRET,
    )
    out = scrub_report(report, SecretIndex.build([SECRET], [PUBLIC]))
    assert [r.detail for r in out.results[:2]] == ["AssertionError", "crashed"]
    hashed = public_id("tests/hidden/t.py::test_a[7781-9902]")
    assert out.stability.crashes == [f"crashed: {hashed}", "seed 7: timeout: tests/hidden/t.py::test_b: ValueError"]
    text = json.dumps(out.model_dump(mode="json", exclude={"results": {"__all__": {"id"}}}))  # raw ids: the host's
    assert "quokka" not in text and "7781" not in text and "17683" not in text
    assert "tests/hidden/t.py::test_b" in text  # the test's name is public (the scorecard lists it)


def test_public_id_is_the_scorecards() -> None:
    for node in ("tests/hidden/t.py::f[1-2-3]", "tests/hidden/t.py::f"):
        assert public_id(node) == _public_id(TestResult(id=node, suite="hidden", outcome=Outcome.PASSED))


def test_false_positives_on_the_bundled_examples_hidden_tests_are_public_where_they_share_the_visible() -> None:
    # What docs/sandbox.md reports: printed whole, most of a hidden file is scrubbed; what survives is
    # text it shares with the visible tests or the starter (fixtures, imports).
    for name in ("inventory-ledger", "league-table"):
        ch = load_challenge(EXAMPLES / name)
        secret, public = read_challenge_texts(ch)
        index = SecretIndex.build(secret, public)
        hidden = (EXAMPLES / name / "tests" / "hidden").glob("*.py")
        for path in hidden:
            text = path.read_text()
            out = "".join(index.scrub(text[i : i + MAX_TEXT]) for i in range(0, len(text), MAX_TEXT))
            assert len(normalise(out).replace(MARK, "")) < 0.2 * len(normalise(text))


# -- properties ---------------------------------------------------------------------------------
SECRET_ALPHABET = st.sampled_from("abcdefghij(),=_'")
TEXT_ALPHABET = st.sampled_from("abcdefghijKLMNOPQRS0123456789(),=_' \n\t\x1b\x00\u200b")


@settings(max_examples=200, deadline=None)
@given(
    secret=st.text(SECRET_ALPHABET, min_size=K, max_size=300),
    before=st.text(TEXT_ALPHABET, max_size=100),
    after=st.text(TEXT_ALPHABET, max_size=100),
    cut=st.tuples(st.integers(0, 300), st.integers(0, 300)),
    noise=st.lists(st.tuples(st.integers(0, 400), st.sampled_from(" \n\t\x1b\x00\u200b\u202e")), max_size=10),
)
def test_no_k_long_window_of_a_secret_survives(secret, before, after, cut, noise) -> None:  # noqa: ANN001
    a, b = sorted(cut)
    copied = list(secret[a:b])
    for at, ch in noise:  # interleave ignorable characters into the copy
        copied.insert(min(at, len(copied)), ch)
    index = SecretIndex.build([secret])
    out = index.scrub(before + "".join(copied) + after)
    assert not windows(out) & windows(secret)


@settings(max_examples=200, deadline=None)
@given(
    secret=st.text(SECRET_ALPHABET, min_size=K, max_size=300),
    text=st.text(st.sampled_from("KLMNOPQRS0123456789 "), max_size=500),
)
def test_text_sharing_no_k_gram_with_the_secrets_is_unchanged(secret, text) -> None:  # noqa: ANN001
    index = SecretIndex.build([secret])
    assert index.scrub(text) == text


def test_escape_controls_and_json_safe() -> None:
    assert escape_controls("a\x1b[2Jb\tc\nd\u202ee\x7f") == "a\\x1b[2Jb\tc\nd\\u202ee\\x7f"
    doc = json.dumps({"d": "x\x9b31m\x1b"}, ensure_ascii=False)
    assert "\x9b" not in json_safe(doc) and json.loads(json_safe(doc)) == json.loads(doc)


def test_generated_adversarial_results_and_their_findings_are_scrubbed() -> None:
    from bouts.adversarial import GeneratedRun
    from bouts.judges.base import Finding, Verdict
    from bouts.pipeline import _scrub_generated
    from bouts.scoring.explain import Explained

    node = "tests/generated/test_gen_weak_type.py::test_gen_001_add_a"
    failed = TestResult(id=node, suite="adversarial", outcome=Outcome.FAILED, detail=f"AssertionError: {SECRET}\x1b[2J")
    report = RunReport(results=[failed], sandbox="fake")
    finding = Finding(rule="adversarial.weak_type", message=f"test_gen_001_add_a failed: {SECRET}")
    verdict = Verdict("adversarial-gen", "adversarial_generated", Explained(0.0, ("x",)), (finding,))
    out = _scrub_generated(GeneratedRun("py", None, report, verdict), SecretIndex.build([SECRET], [PUBLIC]))
    assert out.report is not None and "quokka" not in out.report.results[0].detail
    assert "\x1b" not in out.report.results[0].detail
    message = out.verdict.findings[0].message
    assert "quokka" not in message and message.startswith("test_gen_001_add_a failed")


def test_the_index_is_built_once_per_content_and_again_when_a_secret_changes(tmp_path: Path) -> None:
    """``secret_index`` reuses an index only for the same texts: an edited hidden test (or reference)
    is indexed afresh, whatever its path."""
    import shutil

    from bouts.runner._secrets import secret_index

    root = tmp_path / "ch"
    shutil.copytree(EXAMPLES / "inventory-ledger", root)
    first = secret_index(load_challenge(root))
    assert secret_index(load_challenge(root)) is first
    hidden = next((root / "tests" / "hidden").glob("*.py"))
    hidden.write_text(hidden.read_text() + "\nWOMBAT_QUOKKA_PLATYPUS_NUMBAT = 'a brand new secret line'\n")
    second = secret_index(load_challenge(root))
    assert second is not first
    assert "WOMBAT_QUOKKA" not in second.scrub("leaked: WOMBAT_QUOKKA_PLATYPUS_NUMBAT = 'a brand new secret line'")
    assert "WOMBAT_QUOKKA" in first.scrub("leaked: WOMBAT_QUOKKA_PLATYPUS_NUMBAT = 'a brand new secret line'")
