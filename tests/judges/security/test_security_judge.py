"""The security judge end to end: real scanners on throwaway trees, the baseline, the verdict, and
infrastructure failures (never scored as the agent's)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from judges_security_paths import EXAMPLE

from bouts.errors import InfrastructureError
from bouts.judges.base import JudgeInput, Verdict
from bouts.judges.security import JUDGE_NAME, SecurityJudge, SecurityReport, verdict_from
from bouts.loading.challenge import load_challenge

STARTER_DB = '''import sqlite3


def find(conn: sqlite3.Connection, name: str):
    return conn.execute(f"SELECT * FROM items WHERE name = '{name}'").fetchall()
'''

# The same flaw, shifted down by new code above it, plus a brand-new command injection.
SUBMISSION_DB = '''"""Item lookups."""

import os
import sqlite3

PAGE = 50


def find(conn: sqlite3.Connection, name: str):
    return conn.execute(f"SELECT * FROM items WHERE name = '{name}'").fetchall()


def backup(path: str) -> int:
    return os.system("cp items.db " + path)
'''

# Each tries to hide an introduced finding from one scanner; none may succeed.
EVASIONS = {
    "app/hidden_nosem.py": 'import pickle\n\n\ndef load(b):\n    return pickle.loads(b)  # nosemgrep # nosec\n',
    "app/ignored/secret.py": 'DB_PASSWORD = "prod-hunter2-xyz"  # pragma: allowlist secret\n',
    ".semgrepignore": "app/ignored/\napp/hidden_nosem.py\n",
    ".gitignore": "app/ignored/\n",
    ".bandit": "[bandit]\nexclude = app\n",
}


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("baseline")
    starter, code = root / "starter", root / "code"
    (starter / "app").mkdir(parents=True)
    (starter / "app" / "db.py").write_text(STARTER_DB)
    (code / "app").mkdir(parents=True)
    (code / "app" / "db.py").write_text(SUBMISSION_DB)
    for rel, text in EVASIONS.items():
        (code / rel).parent.mkdir(parents=True, exist_ok=True)
        (code / rel).write_text(text)
    return starter, code


@pytest.fixture(scope="module")
def baseline_report(trees: tuple[Path, Path]) -> SecurityReport:
    starter, code = trees
    return SecurityJudge().scan(code, starter)


def counted(report: SecurityReport) -> dict[tuple[str, int | None], str]:
    return {(f.file, f.cwe): f.severity for f in report.findings if f.counted}


def test_a_flaw_already_in_the_starter_does_not_count_even_though_its_line_moved(
    baseline_report: SecurityReport,
) -> None:
    pre = [f for f in baseline_report.findings if f.status == "pre-existing"]
    assert [(f.file, f.cwe, f.line) for f in pre] == [("app/db.py", 89, 10)]
    assert ("app/db.py", 89) not in counted(baseline_report)


def test_a_new_flaw_counts(baseline_report: SecurityReport) -> None:
    assert counted(baseline_report)[("app/db.py", 78)] == "critical"


def test_suppression_comments_and_ignore_files_in_the_submission_hide_nothing(baseline_report: SecurityReport) -> None:
    found = counted(baseline_report)
    assert found[("app/hidden_nosem.py", 502)] == "high"
    assert found[("app/ignored/secret.py", 798)] == "critical"


def test_the_verdict_scores_introduced_findings_with_the_spec_formula(baseline_report: SecurityReport) -> None:
    verdict = verdict_from(baseline_report)
    # critical (command injection) + high (pickle) + critical (hard-coded password, CWE-798)
    assert verdict.score.value == 100 - 25 - 15 - 25
    assert verdict.component == "security" and verdict.judge == JUDGE_NAME
    paid = [f for f in verdict.findings if f.points > 0]
    assert sorted(f.points for f in paid) == [15, 25, 25]
    assert all(f.file and f.line and f.severity and f.rule and f.message for f in paid)
    info = [f for f in verdict.findings if f.points == 0 and f.file == "app/db.py"]
    assert info and info[0].message.startswith("pre-existing in starter/")
    assert set(verdict.versions) >= {"semgrep", "bandit", "detect-secrets", "security-rules"}
    assert verdict.versions["security-rules"].startswith("sha256:")
    assert any("security = max(0, 100" in line for line in verdict.score.math)


def test_the_example_reference_solution_scores_100_with_no_findings(reference_verdict: Verdict) -> None:
    assert reference_verdict.score.value == 100
    # With no advisory snapshot configured, one 0-point finding says dependencies were not checked.
    assert [f.rule for f in reference_verdict.findings] == ["security.dependencies-not-checked"]
    assert all(f.points == 0 for f in reference_verdict.findings)
    assert reference_verdict.judge == JUDGE_NAME and reference_verdict.component == "security"


def test_a_missing_code_directory_is_not_scored_rather_than_an_error(tmp_path: Path) -> None:
    challenge = load_challenge(EXAMPLE)
    verdict = SecurityJudge().judge(JudgeInput.read(challenge, tmp_path / "nope"))
    assert verdict.score.value is None


def test_an_absent_semgrep_is_an_infrastructure_error_not_a_score(trees: tuple[Path, Path], tmp_path: Path) -> None:
    starter, code = trees
    with pytest.raises(InfrastructureError, match="semgrep"):
        SecurityJudge(semgrep=tmp_path / "no-such-semgrep").scan(code, starter)


def test_a_hung_semgrep_is_an_infrastructure_error_not_a_score(trees: tuple[Path, Path], tmp_path: Path) -> None:
    starter, code = trees
    fake = tmp_path / "semgrep"
    fake.write_text("#!/bin/sh\nexec sleep 30\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(InfrastructureError, match="time limit"):
        SecurityJudge(semgrep=fake, timeout_s=1.0).scan(code, starter)


def test_a_crashing_semgrep_is_an_infrastructure_error(trees: tuple[Path, Path], tmp_path: Path) -> None:
    starter, code = trees
    fake = tmp_path / "semgrep"
    fake.write_text("#!/bin/sh\necho boom >&2\nexit 7\n")
    os.chmod(fake, 0o755)
    with pytest.raises(InfrastructureError, match="status 7"):
        SecurityJudge(semgrep=fake).scan(code, starter)
