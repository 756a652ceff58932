"""deliverables-offline: missing and placeholder documents score 0; anchors order low < mid < high."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from bouts.judges.base import JUDGES, Judge, JudgeInput
from bouts.judges.deliverables.offline import MAX_BYTES, OfflineDeliverablesJudge
from bouts.loading import load_challenge
from bouts.models.challenge import Challenge, ChallengeSpec, Deliverable
from bouts.scoring.explain import Explained, NotScored

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "inventory-ledger"
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


def make(tmp_path: Path, *deliverables: Deliverable) -> Challenge:
    (tmp_path / "starter").mkdir(exist_ok=True)
    suites = {"visible": "0", "hidden": "0", "adversarial": "0"}
    return Challenge(root=tmp_path, spec=ChallengeSpec(id="d", title="d", deliverables=list(deliverables)),
                     content_hash="0", suite_hashes=suites, test_files={k: [] for k in suites})


RCA = Deliverable(path="ROOT_CAUSE.md", kind="root-cause-analysis",
                  expect=["cancel never decremented the reserved count, so the stock stayed unavailable"])


def judge(challenge: Challenge, files: dict[str, str], tmp_path: Path) -> object:
    out = tmp_path / "deliverables"
    out.mkdir(exist_ok=True)
    for rel, text in files.items():
        (out / rel).write_text(text)
    code = tmp_path / "code"
    code.mkdir(exist_ok=True)
    (code / "core.py").write_text("def cancel(reserved):\n    return reserved\n")
    return OfflineDeliverablesJudge().judge(JudgeInput(challenge, code, out))


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


def test_anchors_order_placeholder_low_mid_high() -> None:
    challenge = load_challenge(EXAMPLE)
    scores = []
    for level in ("low", "mid", "high"):
        anchor = challenge.anchors[level]
        verdict = JUDGES.create("deliverables-offline").judge(
            JudgeInput(challenge, anchor / "code", anchor / "deliverables"))
        scores.append(verdict.score.value)
    assert scores[0] == 0 < scores[1] < scores[2], scores


def test_registered() -> None:
    judge_ = JUDGES.create("deliverables-offline")
    assert isinstance(judge_, Judge) and judge_.component == "deliverables"
