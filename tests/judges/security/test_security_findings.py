"""De-duplication across tools and the baseline against starter/ (pure, no scanner)."""

from __future__ import annotations

from bouts.judges.security import SecurityReport, ToolFinding, baseline, dedupe, normalise, severity_for, verdict_from
from bouts.judges.security._severity import BANDIT_CWE_OVERRIDES


def tf(tool: str, rule: str, cwe: int | None, severity: str, line: int, *, file: str = "app/db.py",
       snippet: str = "cur.execute(q)", end: int | None = None) -> ToolFinding:
    return ToolFinding(tool=tool, rule=rule, cwe=cwe, severity=severity, file=file, line=line,  # type: ignore[arg-type]
                       end_line=end or line, message=rule, snippet=snippet)


def test_two_tools_on_one_line_and_cwe_are_one_finding_at_the_highest_severity() -> None:
    merged = dedupe([
        tf("bandit", "bandit:B608", 89, "medium", 12),
        tf("semgrep", "semgrep:bouts.python.sql-injection", 89, "critical", 12),
    ])
    assert len(merged) == 1
    (f,) = merged
    assert f.severity == "critical" and f.rule == "semgrep:bouts.python.sql-injection"
    assert f.tools == ("semgrep", "bandit") and f.rules == ("bandit:B608", "semgrep:bouts.python.sql-injection")


def test_a_cwe_family_merges_but_different_weaknesses_on_one_line_do_not() -> None:
    merged = dedupe([
        tf("bandit", "bandit:B324", 327, "medium", 5),  # md5 seen as weak crypto
        tf("semgrep", "semgrep:bouts.python.weak-password-hash", 916, "high", 5),  # ... and as a password hash
        tf("bandit", "bandit:B104", 605, "low", 5),
    ])
    assert sorted((f.cwe, f.severity) for f in merged) == [(605, "low"), (916, "high")]


def test_a_multi_line_match_absorbs_a_report_inside_it_but_not_beyond() -> None:
    merged = dedupe([
        tf("semgrep", "semgrep:r", 352, "medium", 6, end=8),
        tf("bandit", "bandit:x", 352, "medium", 7),
        tf("bandit", "bandit:x", 352, "medium", 9),
    ])
    assert [(f.line, f.end_line) for f in merged] == [(6, 8), (9, 9)]


def test_same_line_in_two_files_stays_two_findings() -> None:
    assert len(dedupe([tf("semgrep", "r", 89, "critical", 3), tf("semgrep", "r", 89, "critical", 3, file="b.py")])) == 2


def test_snippets_ignore_indentation_spacing_and_trailing_comments() -> None:
    assert normalise("        cur.execute( q )   # nosec B608") == "cur.execute( q )"
    assert normalise("\tx  =  1") == "x = 1"


def test_javascript_snippets_drop_slash_comments_and_keep_private_fields() -> None:
    assert normalise("  return require(name); // eslint-disable-line", "src/a.js") == "return require(name);"
    assert normalise("  eval(x); /* eslint-disable-line */", "src/a.ts") == "eval(x);"
    assert normalise("  a /* keep */ + b", "src/a.mjs") == "a /* keep */ + b"
    assert normalise("  #secret = token;", "src/a.js") == "#secret = token;"
    assert normalise('  fetch("http://example.com")', "src/a.js") == 'fetch("http://example.com")'


def test_a_flaw_kept_from_the_starter_is_pre_existing_even_when_its_line_moved() -> None:
    starter = dedupe([tf("semgrep", "r", 89, "critical", 10)])
    submission = dedupe([tf("semgrep", "r", 89, "critical", 42)])
    assert [f.status for f in baseline(submission, starter)] == ["pre-existing"]


def test_a_new_flaw_is_introduced_and_a_copy_of_a_starter_flaw_counts_once() -> None:
    starter = dedupe([tf("semgrep", "r", 89, "critical", 10)])
    submission = dedupe([
        tf("semgrep", "r", 89, "critical", 12),
        tf("semgrep", "r", 89, "critical", 30),  # the same line copied to a second place
        tf("semgrep", "r", 78, "critical", 40, snippet="os.system(cmd)"),
    ])
    assert sorted(f.status for f in baseline(submission, starter)) == ["introduced", "introduced", "pre-existing"]


def test_code_moved_to_another_file_is_still_pre_existing() -> None:
    starter = dedupe([tf("semgrep", "r", 89, "critical", 10, file="app/db.py")])
    submission = dedupe([tf("semgrep", "r", 89, "critical", 3, file="app/repository.py")])
    assert [f.status for f in baseline(submission, starter)] == ["pre-existing"]


def test_a_changed_line_is_new_even_in_the_same_file() -> None:
    starter = dedupe([tf("semgrep", "r", 89, "critical", 10)])
    submission = dedupe([tf("semgrep", "r", 89, "critical", 10, snippet="cur.execute(q + name)")])
    assert [f.status for f in baseline(submission, starter)] == ["introduced"]


def test_new_findings_in_test_code_are_shown_but_not_counted() -> None:
    submission = dedupe([
        tf("semgrep", "r", 798, "high", 3, file="tests/test_login.py", snippet='password = "pw123"'),
        tf("semgrep", "r", 798, "high", 3, file="app/conftest.py", snippet='password = "pw123"'),
        tf("semgrep", "r", 798, "high", 3, file="app/settings.py", snippet='password = "pw123"'),
    ])
    marked = {f.file: f for f in baseline(submission, [])}
    assert marked["tests/test_login.py"].status == "test-code" and not marked["tests/test_login.py"].counted
    assert marked["app/conftest.py"].status == "test-code"
    assert marked["app/settings.py"].counted


def test_hard_coded_credentials_are_critical() -> None:
    # Seed 000 lists hard-coded credentials as critical (-25): CWE-798 and its children, the hard-coded
    # password (259) and cryptographic key (321), whichever tool reports them, bandit's B105-B107 included.
    for cwe in (798, 259, 321, BANDIT_CWE_OVERRIDES["B105"], BANDIT_CWE_OVERRIDES["B107"]):
        assert severity_for(cwe, "low") == "critical", cwe
    found = dedupe([tf("detect-secrets", "detect-secrets:AWS Access Key", 798, severity_for(798, "high"), 4)])
    verdict = verdict_from(SecurityReport(tuple(baseline(found, [])), {}))
    assert verdict.score.value == 75
    assert [(f.severity, f.points) for f in verdict.findings] == [("critical", 25.0)]
