"""Session-scoped scans for the security judge tests: Semgrep starts slowly (seconds), so each
tree is scanned once per session and the tests read the report."""

from __future__ import annotations

import pytest
from judges_security_paths import EXAMPLE, SNIPPETS

from bouts.judges.base import JUDGES, JudgeInput, Verdict
from bouts.judges.security import JUDGE_NAME, SecurityJudge, SecurityReport
from bouts.loading.challenge import load_challenge


@pytest.fixture(scope="session")
def snippet_report(tmp_path_factory: pytest.TempPathFactory) -> SecurityReport:
    """Every rule's vulnerable and safe snippets, scanned against an empty starter."""
    empty = tmp_path_factory.mktemp("empty-starter")
    return SecurityJudge().scan(SNIPPETS, empty)


@pytest.fixture(scope="session")
def reference_verdict() -> Verdict:
    """The example's reference solution, judged through the registry and the judge contract."""
    challenge = load_challenge(EXAMPLE)
    return JUDGES.create(JUDGE_NAME).judge(JudgeInput.read(challenge, EXAMPLE / "reference"))
