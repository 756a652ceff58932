"""Each shipped Semgrep rule fires on its vulnerable snippet and stays silent on its safe one.

Snippets live in ``snippets/<language>/<rule>.bad.<ext>`` and ``<rule>.good.<ext>``; one scan of
the whole directory (session fixture) serves every case.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from judges_security_paths import DOCS, SNIPPETS

from bouts.judges.security import CWE_SEVERITY, SecurityReport, load_rules, rules_dir

RULES = load_rules(rules_dir())
RULE_IDS = [r.id for r in RULES]


def snippet(rule_id: str, kind: str) -> Path:
    """``bouts.python.sql-injection`` → ``snippets/python/sql-injection.bad.py``."""
    _, language, short = rule_id.split(".", 2)
    matches = sorted((SNIPPETS / language).glob(f"{short}.{kind}.*"))
    assert matches, f"rule {rule_id} has no {kind} snippet in snippets/{language}/"
    return matches[0]


def hits(report: SecurityReport, rule_id: str, path: Path) -> list[int]:
    rel = path.relative_to(SNIPPETS).as_posix()
    return [f.line for f in report.findings if f.file == rel and f"semgrep:{rule_id}" in f.rules]


def test_the_rule_set_covers_every_weakness_the_issue_names() -> None:
    cwes = {r.cwe for r in RULES}
    assert {89, 798, 287, 79, 22, 502, 338, 209, 352, 78, 916, 693, 532} <= cwes


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_rule_metadata_agrees_with_the_cwe_table(rule_id: str) -> None:
    rule = next(r for r in RULES if r.id == rule_id)
    assert rule.cwe is not None and rule.message
    assert rule.severity == CWE_SEVERITY[rule.cwe], f"{rule_id}: metadata says {rule.severity}"


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_rule_fires_on_its_vulnerable_snippet(snippet_report: SecurityReport, rule_id: str) -> None:
    assert hits(snippet_report, rule_id, snippet(rule_id, "bad")), f"{rule_id} missed its vulnerable snippet"


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_rule_is_silent_on_its_safe_snippet(snippet_report: SecurityReport, rule_id: str) -> None:
    assert hits(snippet_report, rule_id, snippet(rule_id, "good")) == []


def test_every_snippet_belongs_to_a_rule() -> None:
    shorts = {rid.split(".", 2)[2] for rid in RULE_IDS}
    semgrep_snippets = [p for p in SNIPPETS.rglob("*.*.*") if p.relative_to(SNIPPETS).parts[0] != "eslint"]
    orphans = [p.name for p in semgrep_snippets if p.name.split(".")[0] not in shorts]
    assert orphans == []


def test_scanning_the_snippets_found_no_semgrep_errors(snippet_report: SecurityReport) -> None:
    assert [n for n in snippet_report.notes if n.startswith("semgrep")] == []


def test_every_rule_and_every_cwe_row_is_documented() -> None:
    doc = DOCS.read_text()
    assert [rid for rid in RULE_IDS if f"`{rid}`" not in doc] == []
    assert [cwe for cwe in CWE_SEVERITY if str(cwe) not in doc] == []


def test_the_rules_read_by_libyaml_are_the_rules_pyyaml_reads() -> None:
    """The judge parses the rule files with PyYAML's libyaml loader where it has one: the same
    documents as its pure-Python loader, so the rules Semgrep gets do not depend on the wheel."""
    import json

    import yaml

    from bouts.judges.security._rules import _documents, compiled_rules, rule_files

    root = rules_dir()
    slow = [(p, yaml.safe_load(p.read_text(encoding="utf-8")) or {}) for p in rule_files(root)]
    assert [p for p, _ in _documents(root)] == [p for p, _ in slow] and len(slow) >= 8
    assert [d for _, d in _documents(root)] == [d for _, d in slow]
    assert json.loads(compiled_rules(root)) == {"rules": [r for _, d in slow for r in d.get("rules", [])]}


def test_javascript_path_traversal_from_request_data_is_high_as_in_python(snippet_report: SecurityReport) -> None:
    """Before: JavaScript had only ESLint's CWE-73 (medium) for any non-constant path; request data
    reaching a file operation is CWE-22 (high), as Python's taint rule files it."""
    js = next(r for r in RULES if r.id == "bouts.javascript.path-traversal")
    py = next(r for r in RULES if r.id == "bouts.python.path-traversal")
    assert (js.cwe, js.severity) == (py.cwe, py.severity) == (22, "high")
    assert hits(snippet_report, js.id, snippet(js.id, "bad")) == [11, 15, 19]
