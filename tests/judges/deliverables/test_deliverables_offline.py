"""deliverables-offline: missing and placeholder documents score 0; anchors order low < mid < high."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from bouts.judges.base import JUDGES, Judge, JudgeInput, Verdict
from bouts.judges.deliverables.offline import OfflineDeliverablesJudge
from bouts.loading import load_challenge
from bouts.models.challenge import Challenge, ChallengeSpec, Deliverable
from bouts.models.results import Outcome, RunReport, TestResult
from bouts.models.view import MAX_FILE_BYTES as MAX_BYTES
from bouts.scoring.explain import Explained, NotScored

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
EXAMPLE = EXAMPLES / "inventory-ledger"
GOOD = textwrap.dedent("""\
    # Root cause

    ## Symptom
    Cancelled reservations kept their stock.

    ## Cause
    `cancel` never decremented the reserved count, so the stock stayed unavailable.

    ## Fix
    `cancel` now decrements `reserved` in `ledger/core.py`.

    ## Prevention
    The regression test `test_cancel_releases` covers the bug.
    """)


STARTER = "def cancel(reserved):\n    return reserved\n\n\ndef other():\n    return 1\n"
CODE = "def cancel(reserved):\n    return reserved - 1\n\n\ndef other():\n    return 1\n"
VISIBLE = ("from ledger.core import cancel, other\n\n\ndef test_cancel_releases():\n    assert cancel(2) == 1\n\n\n"
           "def test_other():\n    assert other() == 1\n")


def make(tmp_path: Path, *deliverables: Deliverable) -> Challenge:
    (tmp_path / "starter" / "ledger").mkdir(parents=True, exist_ok=True)
    (tmp_path / "starter" / "ledger" / "core.py").write_text(STARTER)
    (tmp_path / "tests" / "visible").mkdir(parents=True, exist_ok=True)
    (tmp_path / "tests" / "visible" / "test_core.py").write_text(VISIBLE)
    suites = {"visible": "0", "hidden": "0", "adversarial": "0"}
    files = {k: [] for k in suites} | {"visible": ["tests/visible/test_core.py"]}
    return Challenge(root=tmp_path, spec=ChallengeSpec(id="d", title="d", deliverables=list(deliverables)),
                     content_hash="0", suite_hashes=suites, test_files=files)


RCA = Deliverable(path="ROOT_CAUSE.md", kind="root-cause-analysis",
                  expect=["cancel never decremented the reserved count, so the stock stayed unavailable"])


def judge(challenge: Challenge, files: dict[str, str], tmp_path: Path, run: RunReport | None = None) -> Verdict:
    out = tmp_path / "deliverables"
    out.mkdir(exist_ok=True)
    for rel, text in files.items():
        (out / rel).write_text(text)
    code = tmp_path / "code"
    (code / "ledger").mkdir(parents=True, exist_ok=True)
    (code / "ledger" / "core.py").write_text(CODE)
    return OfflineDeliverablesJudge().judge(JudgeInput.read(challenge, code, out, run=run))


def by_rule(verdict: Verdict, rule: str) -> list[str]:
    return [f.message for f in verdict.findings if f.rule == rule]


def test_good_document_scores_with_sub_scores(tmp_path: Path) -> None:
    verdict = judge(make(tmp_path, RCA), {"ROOT_CAUSE.md": GOOD}, tmp_path)
    assert isinstance(verdict.score, Explained) and verdict.score.value > 80
    assert set(verdict.dimensions) == {"accuracy", "clarity", "completeness", "actionability"}
    assert verdict.dimensions["accuracy"] == 100 and verdict.dimensions["completeness"] == 100
    assert sum(f.points for f in verdict.findings) == pytest.approx(100 - verdict.score.value, abs=0.05)


@pytest.mark.parametrize("text", ["", "# Root cause\n\nTODO\n", "TBD: write the analysis of the three bugs later on."])
def test_placeholder_scores_zero(tmp_path: Path, text: str) -> None:
    verdict = judge(make(tmp_path, RCA), {"ROOT_CAUSE.md": text}, tmp_path)
    assert verdict.score.value == 0
    assert verdict.findings[0].rule == "deliverables.placeholder"


def test_a_follow_up_todo_line_in_a_real_document_costs_completeness_only(tmp_path: Path) -> None:
    clean = judge(make(tmp_path, RCA), {"ROOT_CAUSE.md": GOOD}, tmp_path)
    text = GOOD + "\n## Follow-up\n\n- TODO: add a load test for cancellations\n"
    todo = judge(make(tmp_path, RCA), {"ROOT_CAUSE.md": text}, tmp_path)
    assert clean.dimensions["completeness"] == 100 and todo.dimensions["completeness"] == 80
    for dim in ("accuracy", "clarity", "actionability"):
        assert todo.dimensions[dim] >= clean.dimensions[dim], dim
    follow = [f for f in todo.findings if f.rule == "completeness.follow_up"]
    assert len(follow) == 1 and follow[0].line == 17 and follow[0].dimension == "completeness"
    assert 0 < todo.score.value < clean.score.value
    assert not any(f.rule == "deliverables.placeholder" for f in todo.findings)


def test_missing_scores_zero_and_required_mean(tmp_path: Path) -> None:
    adr = Deliverable(path="ADR.md", kind="adr")
    verdict = judge(make(tmp_path, RCA, adr), {"ROOT_CAUSE.md": GOOD}, tmp_path)
    assert any(f.rule == "deliverables.missing" and f.points == 50 for f in verdict.findings)
    assert any(line.startswith("deliverables = mean(") for line in verdict.score.math)


def test_optional_document_is_not_in_the_mean(tmp_path: Path) -> None:
    extra = Deliverable(path="NOTES.md", required=False)
    alone = judge(make(tmp_path, RCA), {"ROOT_CAUSE.md": GOOD}, tmp_path).score.value
    assert judge(make(tmp_path, RCA, extra), {"ROOT_CAUSE.md": GOOD}, tmp_path).score.value == alone


def test_no_deliverables_asked_is_not_scored(tmp_path: Path) -> None:
    assert isinstance(judge(make(tmp_path), {}, tmp_path).score, NotScored)


def test_symlinked_deliverable_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text(GOOD)
    (tmp_path / "deliverables").mkdir()
    os.symlink(secret, tmp_path / "deliverables" / "ROOT_CAUSE.md")
    verdict = judge(make(tmp_path, RCA), {}, tmp_path)
    assert verdict.score.value == 0 and "symlink" in verdict.findings[0].message


def test_oversized_deliverable_is_capped(tmp_path: Path) -> None:
    verdict = judge(make(tmp_path, RCA), {"ROOT_CAUSE.md": GOOD + "x " * MAX_BYTES}, tmp_path)
    assert any("KiB were read" in line for line in verdict.score.math)


@pytest.mark.parametrize("name", ["inventory-ledger", "league-table", "room-bookings", "rate-limiter-js"])
def test_anchors_order_low_mid_high(name: str) -> None:
    challenge = load_challenge(EXAMPLES / name)
    scores, accuracy = [], []
    for level in ("low", "mid", "high"):
        anchor = challenge.anchors[level]
        verdict = JUDGES.create("deliverables-offline").judge(
            JudgeInput.read(challenge, anchor / "code", anchor / "deliverables"))
        scores.append(verdict.score.value)
        accuracy.append(verdict.dimensions["accuracy"])
    assert scores[0] < scores[1] < scores[2], scores
    assert accuracy[0] < accuracy[1] < accuracy[2], accuracy
    if name != "rate-limiter-js":  # its low anchor wrote two sentences: not a placeholder
        assert scores[0] == 0


def test_evidence_names_match_the_diff(tmp_path: Path) -> None:
    doc = GOOD + "\nAlso touched `other`, `vanished_helper` and `ledger/ghost.py`; see `test_made_up`.\n"
    verdict = judge(make(tmp_path, RCA), {"ROOT_CAUSE.md": doc}, tmp_path)
    matches = " ".join(by_rule(verdict, "deliverables.evidence-match"))
    assert "`cancel`" in matches and "`ledger/core.py`" in matches and "`test_cancel_releases`" in matches
    assert any("`other`" in m for m in by_rule(verdict, "deliverables.evidence-neutral"))  # exists, unchanged
    errors = [f for f in verdict.findings if f.rule == "deliverables.unknown-reference"]
    assert {f.message.split("`")[1] for f in errors} == {"vanished_helper", "ledger/ghost.py", "test_made_up"}
    assert all(f.points > 0 and f.dimension == "accuracy" for f in errors)
    clean = judge(make(tmp_path, RCA), {"ROOT_CAUSE.md": GOOD}, tmp_path)
    assert verdict.dimensions["accuracy"] < clean.dimensions["accuracy"] == 100


def test_accuracy_mixes_facts_and_evidence(tmp_path: Path) -> None:
    # The fact is stated, but the only names cited do not exist: facts 100, evidence 0 (coverage 0).
    doc = ("# Cause\n\ncancel never decremented the reserved count, so the stock stayed unavailable.\n\n"
           "The details are in `imaginary_function`, which the release notes describe.\n")
    verdict = judge(make(tmp_path, RCA), {"ROOT_CAUSE.md": doc}, tmp_path)
    assert verdict.dimensions["accuracy"] == pytest.approx(60)
    assert any("0.6 × facts 100 + 0.4 × evidence 0" in line for line in verdict.score.math)


NOTE = "# Notes\n\nThe reserved count now goes back down when a reservation is cancelled, fixed in {}.\n"


def test_without_expected_facts_accuracy_is_the_evidence(tmp_path: Path) -> None:
    notes = Deliverable(path="NOTES.md", kind="document")
    verdict = judge(make(tmp_path, notes), {"NOTES.md": NOTE.format("`cancel` in `ledger/core.py`")},
                    tmp_path)
    assert verdict.dimensions["accuracy"] == 100
    vague = judge(make(tmp_path, notes), {"NOTES.md": NOTE.format("the stock code")},
                  tmp_path)
    assert vague.dimensions["accuracy"] == 0
    assert by_rule(vague, "deliverables.unverifiable")


def test_a_test_that_failed_in_the_run_is_evidence(tmp_path: Path) -> None:
    doc = GOOD.replace("test_cancel_releases", "test_other")
    without = judge(make(tmp_path, RCA), {"ROOT_CAUSE.md": doc}, tmp_path)
    assert any("`test_other`" in m for m in by_rule(without, "deliverables.evidence-neutral"))
    run = RunReport(sandbox="test", results=[
        TestResult(id="tests/visible/test_core.py::test_other", suite="visible", outcome=Outcome.FAILED)])
    with_run = judge(make(tmp_path, RCA), {"ROOT_CAUSE.md": doc}, tmp_path, run)
    assert any("`test_other`" in m for m in by_rule(with_run, "deliverables.evidence-match"))
    assert OfflineDeliverablesJudge.needs_run is True


def test_length_is_not_a_criterion(tmp_path: Path) -> None:
    concise = judge(make(tmp_path, RCA), {"ROOT_CAUSE.md": GOOD}, tmp_path).score.value
    filler = ("We looked into this carefully. The team cares about quality. Stock matters to everyone here. "
              "Reliability is important.\n\n")
    padded = GOOD.replace("## Fix", filler * 40 + "## Fix")
    assert judge(make(tmp_path, RCA), {"ROOT_CAUSE.md": padded}, tmp_path).score.value <= concise
    long_vague = "# Root cause\n\n## Symptom\nStock was wrong.\n\n## Cause\n" + filler * 60 + (
        "## Fix\nWe fixed it.\n\n## Prevention\nWe will test more.\n")
    assert judge(make(tmp_path, RCA), {"ROOT_CAUSE.md": long_vague}, tmp_path).score.value < concise - 20


def test_registered() -> None:
    judge_ = JUDGES.create("deliverables-offline")
    assert isinstance(judge_, Judge) and judge_.component == "deliverables"


def test_a_fact_about_code_the_diff_does_not_touch_earns_nothing(tmp_path: Path) -> None:
    # Red team 2026-12-03: a strong ROOT_CAUSE.md pasted onto wrong code scored 86 (deliverables 0 ->
    # 86). A fact about a function the diff leaves alone (`other` here) is no analysis of this change.
    facts = RCA.expect + ["other returned the wrong constant and now returns the right one"]
    spec = Deliverable(path="ROOT_CAUSE.md", kind="root-cause-analysis", expect=facts)
    doc = GOOD + "\n## Second bug\n\n`other` returned the wrong constant and now returns the right one.\n"
    verdict = judge(make(tmp_path, spec), {"ROOT_CAUSE.md": doc}, tmp_path)
    notes = by_rule(verdict, "deliverables.fact")
    assert any("fact 2 stated, but the diff changes none of `other`" in n for n in notes)
    assert any("facts = 1 of 2 expected facts stated" in line for line in verdict.score.math)
    # The same fact about the changed function (`cancel`) is credited.
    backed = Deliverable(path="ROOT_CAUSE.md", kind="root-cause-analysis", expect=RCA.expect)
    assert judge(make(tmp_path, backed), {"ROOT_CAUSE.md": doc}, tmp_path).dimensions["accuracy"] > \
        verdict.dimensions["accuracy"]
