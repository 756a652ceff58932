"""ESLint (eslint-plugin-security, eslint-plugin-no-unsanitized) as the security judge's
JavaScript/TypeScript scanner: every mapped rule on a vulnerable and a safe snippet, the
submission's attempts to switch it off, its output bound, and a missing or broken install."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from judges_security_paths import DOCS, ESLINT_SNIPPETS, EXAMPLE, EXAMPLE_JS, SNIPPETS

from bouts.errors import InfrastructureError
from bouts.judges.base import JUDGES, JudgeInput, Verdict
from bouts.judges.security import (
    CWE_SEVERITY,
    ESLINT_OFF,
    ESLINT_RULES,
    JUDGE_NAME,
    SecurityJudge,
    SecurityReport,
    to_sarif,
    verdict_from,
)
from bouts.judges.security._eslint import default_package_dir, find_node, parse_eslint
from bouts.judges.security._findings import JS_SUFFIXES
from bouts.judges.security._judge import ESLINT_NOT_RUN
from bouts.judging import judge_around
from bouts.loading.challenge import load_challenge
from bouts.models.results import RunReport
from bouts.scoring.explain import NotScored

RULE_IDS = sorted(ESLINT_RULES)
PINNED = json.loads((default_package_dir() / "package.json").read_text())["dependencies"]


def snippets(rule_id: str, kind: str) -> list[Path]:
    """``security/detect-child-process`` → ``snippets/eslint/security/detect-child-process.bad.*``."""
    plugin, short = rule_id.split("/")
    found = sorted((ESLINT_SNIPPETS / plugin).glob(f"{short}.{kind}.*"))
    assert found, f"{rule_id} has no {kind} snippet in snippets/eslint/{plugin}/"
    return found


def eslint_lines(report: SecurityReport, path: Path, rule_id: str) -> list[int]:
    rel = path.relative_to(SNIPPETS).as_posix()
    return [f.line for f in report.findings if f.file == rel and f"eslint:{rule_id}" in f.rules]


# --- every mapped rule: vulnerable fires, safe stays silent ---------------------------------------


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_eslint_rule_fires_on_its_vulnerable_snippets(snippet_report: SecurityReport, rule_id: str) -> None:
    for path in snippets(rule_id, "bad"):
        assert eslint_lines(snippet_report, path, rule_id), f"{rule_id} missed {path.name}"


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_eslint_rule_is_silent_on_its_safe_snippet(snippet_report: SecurityReport, rule_id: str) -> None:
    for path in snippets(rule_id, "good"):
        assert eslint_lines(snippet_report, path, rule_id) == [], f"{rule_id} fired on {path.name}"


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_eslint_finding_carries_the_cwe_and_severity_of_the_table(snippet_report: SecurityReport, rule_id: str) -> None:
    rule = ESLINT_RULES[rule_id]
    path = snippets(rule_id, "bad")[0]
    rel = path.relative_to(SNIPPETS).as_posix()
    found = [f for f in snippet_report.findings if f.file == rel and f"eslint:{rule_id}" in f.rules]
    assert {(f.cwe if f.rule.startswith("eslint:") else rule.cwe) for f in found} == {rule.cwe}
    assert rule.severity == CWE_SEVERITY[rule.cwe]
    assert all(f.counted for f in found)


def test_every_eslint_snippet_belongs_to_a_rule() -> None:
    ids = {f"{p.parent.name}/{p.name.split('.')[0]}" for p in ESLINT_SNIPPETS.rglob("*.*.*")}
    assert ids - set(ESLINT_RULES) == set()


def test_typescript_and_tsx_are_parsed(snippet_report: SecurityReport) -> None:
    typed = [p for p in ESLINT_SNIPPETS.rglob("*.bad.ts*")]
    assert {p.suffix for p in typed} == {".ts", ".tsx"}
    assert [n for n in snippet_report.notes if n.startswith("eslint:")] == []


def test_the_same_weakness_seen_by_semgrep_and_eslint_is_one_finding(snippet_report: SecurityReport) -> None:
    path = snippets("security/detect-child-process", "bad")[0]
    (finding,) = [f for f in snippet_report.findings if f.file == path.relative_to(SNIPPETS).as_posix()]
    assert finding.tools == ("semgrep", "eslint") and finding.cwe == 78 and finding.severity == "critical"
    assert finding.rule == "semgrep:bouts.javascript.command-injection"


def test_every_rule_of_the_plugins_is_either_on_or_deliberately_off() -> None:
    node = find_node()
    assert node is not None
    script = (
        "const s = require('eslint-plugin-security'); const u = require('eslint-plugin-no-unsanitized');"
        "console.log(JSON.stringify([...Object.keys(s.rules).map(r => 'security/' + r),"
        " ...Object.keys(u.rules).map(r => 'no-unsanitized/' + r)]))"
    )
    out = subprocess.run(  # noqa: S603 - fixed argv
        [str(node), "-e", script], cwd=default_package_dir(), capture_output=True, check=True, text=True
    ).stdout
    assert set(json.loads(out)) == set(ESLINT_RULES) | set(ESLINT_OFF)


def test_every_eslint_rule_and_every_pinned_package_is_documented() -> None:
    doc = DOCS.read_text()
    assert [r for r in (*ESLINT_RULES, *ESLINT_OFF) if f"`{r}`" not in doc] == []
    assert [f"{name} {ver}" for name, ver in PINNED.items() if f"{name} {ver}" not in doc] == []


def test_the_engine_config_lints_exactly_the_files_the_judge_stages_eslint_for() -> None:
    config = (default_package_dir() / "bouts-security.config.mjs").read_text()
    patterns = set(re.findall(r'"\*\*/\*(\.[a-z]+)"', config))
    assert patterns == set(JS_SUFFIXES)


def test_the_lock_pins_exactly_what_package_json_asks_for() -> None:
    lock = json.loads((default_package_dir() / "package-lock.json").read_text())
    assert lock["packages"][""]["dependencies"] == PINNED
    for name, ver in PINNED.items():
        assert lock["packages"][f"node_modules/{name}"]["version"] == ver


# --- what a submission cannot do ------------------------------------------------------------------

STARTER_LOADER = """function load(name) {
  return require(name);
}

module.exports = { load };
"""
# Inline directives of every form; the starter's flaw kept (moved down, with a trailing comment).
SUBMISSION_LOADER = """/* eslint-disable */
// Plugin loading.
const crypto = require("crypto");

function load(name) {
  return require(name); // eslint-disable-line security/detect-non-literal-require
}

function sessionId() {
  // eslint-disable-next-line
  return crypto.pseudoRandomBytes(16).toString("hex");
}

/* eslint security/detect-unsafe-regex: "off" */
const VERSION = /^(\\d+)+$/;

module.exports = { load, sessionId, VERSION };
"""
# Each would switch ESLint off for the whole tree if ESLint read it.
OWN_CONFIG = {
    "eslint.config.js": (
        'export default [{ ignores: ["**/*"] }, { rules: { "security/detect-pseudoRandomBytes": "off" } }];\n'
    ),
    "eslint.config.mjs": 'export default [{ ignores: ["**/*"] }];\n',
    ".eslintrc.json": '{"root": true, "ignorePatterns": ["**"]}\n',
    ".eslintignore": "src/\n",
    "package.json": '{"name": "x", "eslintConfig": {"ignorePatterns": ["**"]}}\n',
}
FLOOD_LINES = 600
"""More messages in one file than the formatter passes on (500 per file)."""


@pytest.fixture(scope="module")
def hostile_trees(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("eslint-hostile")
    starter, code = root / "starter", root / "code"
    (starter / "src").mkdir(parents=True)
    (starter / "src" / "loader.js").write_text(STARTER_LOADER)
    (code / "src").mkdir(parents=True)
    (code / "src" / "loader.js").write_text(SUBMISSION_LOADER)
    for rel, text in OWN_CONFIG.items():
        (code / rel).write_text(text)
    flood = "".join(f"const r{i} = /^(a+)+$/;\n" for i in range(FLOOD_LINES))
    (code / "src" / "flood.js").write_text(flood)
    return starter, code


@pytest.fixture(scope="module")
def hostile_report(hostile_trees: tuple[Path, Path]) -> SecurityReport:
    starter, code = hostile_trees
    return SecurityJudge().scan(code, starter)


def loader(report: SecurityReport) -> dict[str, tuple[str, str, int | None]]:
    return {f.rule: (f.status, f.severity, f.cwe) for f in report.findings if f.file == "src/loader.js"}


def test_eslint_disable_comments_and_the_submissions_own_eslint_config_hide_nothing(
    hostile_report: SecurityReport,
) -> None:
    found = loader(hostile_report)
    assert found["eslint:security/detect-pseudoRandomBytes"] == ("introduced", "medium", 338)
    assert found["eslint:security/detect-unsafe-regex"] == ("introduced", "low", 1333)


def test_a_starter_flaw_kept_behind_an_eslint_disable_line_comment_is_still_pre_existing(
    hostile_report: SecurityReport,
) -> None:
    assert loader(hostile_report)["eslint:security/detect-non-literal-require"] == ("pre-existing", "medium", 829)


def test_the_formatter_bounds_what_eslint_passes_on(hostile_report: SecurityReport) -> None:
    flood = [f for f in hostile_report.findings if f.file == "src/flood.js"]
    assert len(flood) == 500
    assert f"eslint: {FLOOD_LINES - 500} more messages not read" in " ".join(hostile_report.notes)


def test_versions_name_eslint_and_its_plugins(hostile_report: SecurityReport) -> None:
    for name, ver in PINNED.items():
        assert hostile_report.versions[name] == ver
    math = verdict_from(hostile_report).score.math[0]
    assert f"eslint {PINNED['eslint']}" in math and f"eslint-plugin-security {PINNED['eslint-plugin-security']}" in math


def test_sarif_names_eslint_as_a_tool_and_on_its_results(hostile_report: SecurityReport) -> None:
    run = to_sarif(verdict_from(hostile_report))["runs"][0]
    extensions = {e["name"]: e["version"] for e in run["tool"]["extensions"]}
    assert extensions["eslint"] == PINNED["eslint"]
    assert extensions["eslint-plugin-no-unsanitized"] == PINNED["eslint-plugin-no-unsanitized"]
    assert {"semgrep", "bandit", "detect-secrets"} <= set(extensions)
    ours = [r for r in run["results"] if r["ruleId"] == "eslint:security/detect-pseudoRandomBytes"]
    assert ours and ours[0]["properties"]["tool"] == "eslint" and ours[0]["baselineState"] == "new"


# --- the example challenge ------------------------------------------------------------------------


@pytest.mark.slow_io  # Semgrep and ESLint on the whole example, a scan of its own
def test_the_js_example_reference_still_scores_100_with_eslint_in_the_panel() -> None:
    challenge = load_challenge(EXAMPLE_JS)
    inp = JudgeInput.read(challenge, EXAMPLE_JS / "reference")
    verdict: Verdict = JUDGES.create(JUDGE_NAME).judge(inp)
    assert verdict.score.value == 100
    assert [f.rule for f in verdict.findings] == ["security.dependencies-not-checked"]  # no snapshot configured
    assert verdict.versions["eslint"] == PINNED["eslint"]


# --- missing or broken: never a silent 100 ---------------------------------------------------------


def fake_node(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "node"
    path.write_text(f"#!/bin/sh\n{body}\n")
    os.chmod(path, 0o755)
    return path


def test_a_missing_eslint_on_javascript_is_an_infrastructure_error_naming_it(
    hostile_trees: tuple[Path, Path], tmp_path: Path
) -> None:
    starter, code = hostile_trees
    with pytest.raises(InfrastructureError, match="ESLint is not installed.*run scripts/setup"):
        SecurityJudge(eslint_dir=tmp_path / "no-eslint").scan(code, starter)
    with pytest.raises(InfrastructureError, match="node is not installed"):
        SecurityJudge(node=tmp_path / "no-node").scan(code, starter)


def test_the_scorecard_says_the_scanner_is_missing_instead_of_scoring(tmp_path: Path) -> None:
    challenge = load_challenge(EXAMPLE_JS)
    inp = JudgeInput.read(challenge, EXAMPLE_JS / "reference")
    judge = SecurityJudge(eslint_dir=tmp_path / "no-eslint")
    _, ran = judge_around([judge], inp, run_tests=lambda: RunReport(results=[], sandbox="none"))
    (verdict,) = ran.verdicts
    assert isinstance(verdict.score, NotScored) and "ESLint is not installed" in verdict.score.reason
    assert [f.code for f in ran.flags] == ["judge_unavailable"]


def test_without_javascript_eslint_is_not_needed_and_the_verdict_says_it_did_not_run(tmp_path: Path) -> None:
    challenge = load_challenge(EXAMPLE)
    judge = SecurityJudge(eslint_dir=tmp_path / "no-eslint", node=tmp_path / "no-node")
    verdict = judge.judge(JudgeInput.read(challenge, EXAMPLE / "reference"))
    assert verdict.score.value == 100 and verdict.versions["eslint"] == ESLINT_NOT_RUN
    assert f"eslint {ESLINT_NOT_RUN}" in verdict.score.math[0]


def test_a_hung_eslint_is_an_infrastructure_error(hostile_trees: tuple[Path, Path], tmp_path: Path) -> None:
    starter, code = hostile_trees
    with pytest.raises(InfrastructureError, match="time limit"):
        SecurityJudge(node=fake_node(tmp_path, "exec sleep 30"), timeout_s=2.0).scan(code, starter)


def test_a_crashing_eslint_is_an_infrastructure_error(hostile_trees: tuple[Path, Path], tmp_path: Path) -> None:
    starter, code = hostile_trees
    with pytest.raises(InfrastructureError, match="eslint exited with status 2"):
        SecurityJudge(node=fake_node(tmp_path, "echo 'Oops! Something went wrong' >&2; exit 2")).scan(code, starter)


def test_output_that_is_not_the_engine_formatters_is_an_infrastructure_error(tmp_path: Path) -> None:
    with pytest.raises(InfrastructureError, match="no JSON"):
        parse_eslint(b"[{]", lambda tree, rel, line: "")
    with pytest.raises(InfrastructureError, match="formatter"):
        parse_eslint(b'[{"filePath": "/x.js", "messages": []}]', lambda tree, rel, line: "")


def test_a_parse_error_is_a_scanner_note_not_a_finding() -> None:
    raw = json.dumps({"schema": "bouts.eslint/1", "dropped": 0, "files": [{"path": "submission/a.js", "messages": [
        {"rule": None, "line": 3, "endLine": 3, "fatal": True, "message": "Parsing error: Unexpected token"},
        {"rule": "security/detect-object-injection", "line": 4, "endLine": 4, "fatal": False, "message": "x"},
    ]}]}).encode()
    findings, notes = parse_eslint(raw, lambda tree, rel, line: "")
    assert findings == {}
    assert notes == ["eslint: submission/a.js:3: Parsing error: Unexpected token (file not analysed by ESLint)"]
