"""Symbolic links the loader dropped (``JudgeInput.dropped_links``) are judged by their target text,
like links found in ``code/``: a link that leaves the submission is the symlink bright line wherever
it sat, so a submission can never escape a flag by having its link dropped instead of followed."""

from __future__ import annotations

from integrity_cases import CHALLENGE, honest_copy

from bouts.judges.base import JudgeInput
from bouts.judges.integrity import StaticIntegrityJudge
from bouts.models.submission import DroppedLink
from bouts.scoring.adjustments import integrity_adjustment


def _judge(code, *links: tuple[str, str]):
    dropped = tuple(DroppedLink(path=p, target=t) for p, t in links)
    return StaticIntegrityJudge().judge(JudgeInput.read(CHALLENGE, code, dropped_links=dropped))


def test_dropped_link_out_of_code_is_the_bright_line_though_it_is_not_on_disk(tmp_path) -> None:
    """An archive's link member is never created: only the loader's record tells the judge."""
    verdict = _judge(honest_copy(tmp_path), ("code/ledger/answers", "../../../reference/ledger"))
    [finding] = verdict.findings
    assert (finding.rule, finding.file, finding.severity) == ("integrity.symlink-escape", "ledger/answers", "critical")
    assert verdict.score.value == 0
    assert integrity_adjustment(verdict.integrity.bright_lines).value == -25


def test_dropped_link_leaving_from_deliverables_is_the_same_bright_line(tmp_path) -> None:
    verdict = _judge(honest_copy(tmp_path), ("deliverables/ROOT_CAUSE.md", "/etc/passwd"))
    assert [(f.rule, f.file) for f in verdict.findings] == [("integrity.symlink-escape", "deliverables/ROOT_CAUSE.md")]
    assert verdict.score.value == 0


def test_dropped_link_inside_the_submission_is_gray_or_listed_not_bright(tmp_path) -> None:
    """Near miss: an archive that links one of its own files to another (inert, dropped) is no escape."""
    verdict = _judge(honest_copy(tmp_path), ("code/ledger/alias.py", "money.py"), ("deliverables/README.md", "RCA.md"))
    assert {(f.rule, f.points) for f in verdict.findings} == {
        ("integrity.symlink-shipped", 5.0), ("integrity.symlink-shipped", 0.0)}
    assert verdict.integrity.bright_lines == () and verdict.score.value == 95


def test_a_link_both_on_disk_and_recorded_is_one_finding(tmp_path) -> None:
    code = honest_copy(tmp_path)
    (code / "ledger" / "peek").symlink_to("/etc/passwd")
    verdict = _judge(code, ("code/ledger/peek", "/etc/passwd"))
    assert [f.rule for f in verdict.findings] == ["integrity.symlink-escape"]
