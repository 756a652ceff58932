"""The generated tests in the graded session's first phase (``grade_with``'s ``part``) score as in
their own session: same outcomes, same verdict; the graded report is the one without them."""

from __future__ import annotations

from pathlib import Path

import pytest

from bouts.adversarial._run import Prepared, finish_generated, prepare_generated, run_generated
from bouts.loading import load_challenge
from bouts.runner._grade import grade, grade_with
from bouts.sandbox import get_sandbox

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize(
    ("example", "anchor", "draws"),
    # room-bookings' generated tests draw values (a file imports hypothesis at collection): `bouts
    # score` merges them only with one worker (pipeline.run_tests), but they score alike merged.
    [("inventory-ledger", "low", False), ("inventory-ledger", "high", False), ("room-bookings", "high", True)],
)
def test_the_merged_run_s_verdicts_equal_the_separate_sessions(
    example: str, anchor: str, draws: bool, tmp_path: Path
) -> None:
    sandbox = get_sandbox("bubblewrap")
    challenge = load_challenge(EXAMPLES / example)
    code = EXAMPLES / example / "anchors" / anchor / "code"
    seed, fresh = challenge.spec.tests.seed, 4242
    prepared = prepare_generated(challenge, code, sandbox=sandbox, seed=seed, cache_dir=tmp_path)
    assert isinstance(prepared, Prepared)
    assert any("import hypothesis" in text or "from hypothesis" in text for text in prepared.files.values()) == draws
    alone = run_generated(challenge, code, sandbox=sandbox, seed=seed, cache_dir=tmp_path)
    graded = grade(challenge, code, sandbox=sandbox, fresh_seed=fresh, cache_dir=tmp_path)
    both, part = grade_with(challenge, code, sandbox=sandbox, fresh_seed=fresh, cache_dir=tmp_path,
                            part=prepared.part())  # fmt: skip
    assert part is not None
    merged = finish_generated(prepared, part)
    assert alone.report is not None and merged.report is not None
    assert {r.id: r.outcome for r in merged.report.results} == {r.id: r.outcome for r in alone.report.results}
    assert merged.verdict == alone.verdict
    assert {r.id: (r.outcome, r.suite) for r in both.results} == {r.id: (r.outcome, r.suite) for r in graded.results}
    assert not any(r.suite == "generated" for r in both.results)
    assert both.tampering == graded.tampering == [] and merged.report.tampering == alone.report.tampering == []
