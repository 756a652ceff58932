"""SARIF 2.1.0 export of a security verdict, for code-scanning UIs (GitHub, VS Code SARIF viewer).

Pure: a ``Verdict`` in, a JSON-ready dict out. Counted findings are ``baselineState: new``;
findings already in ``starter/`` are ``unchanged`` and carry ``properties.counted = false``. The
driver is the judge; the scanners that ran (Semgrep, Bandit, detect-secrets, ESLint and its
plugins) are ``tool.extensions`` with their versions, and each result names the tool whose report
it kept (``properties.tool``, the prefix of its rule id).
"""

from __future__ import annotations

from typing import Any

from bouts.judges.base import Verdict
from bouts.judges.security._judge import ESLINT_PLUGINS, PRE_EXISTING, SCANNERS, TEST_CODE

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "note"}
_SECURITY_SEVERITY = {"critical": "9.5", "high": "8.0", "medium": "5.0", "low": "2.0"}


def to_sarif(verdict: Verdict) -> dict[str, Any]:
    """One SARIF run for the judge; a rule entry per distinct rule id, a result per finding."""
    scanned = [f for f in verdict.findings if f.file is not None]
    rule_ids = sorted({f.rule for f in scanned})
    index = {rid: i for i, rid in enumerate(rule_ids)}
    rules: list[dict[str, Any]] = []
    for rid in rule_ids:
        first = next(f for f in scanned if f.rule == rid)
        sev = first.severity or "medium"
        rules.append({
            "id": rid,
            "name": rid.split(":", 1)[-1],
            "shortDescription": {"text": rid.split(":", 1)[-1]},
            "defaultConfiguration": {"level": _LEVEL.get(sev, "warning")},
            # GitHub code scanning reads this property to rank security alerts.
            "properties": {"security-severity": _SECURITY_SEVERITY.get(sev, "5.0"), "tags": ["security"],
                           "tool": rid.split(":", 1)[0]},
        })
    results: list[dict[str, Any]] = []
    for f in scanned:
        sev = f.severity or "medium"
        pre = f.message.startswith(PRE_EXISTING)
        counted = f.points > 0
        results.append({
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": _LEVEL.get(sev, "warning"),
            "message": {"text": f.message},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": f.file, "uriBaseId": "SUBMISSION"},
                    "region": {"startLine": f.line or 1},
                }
            }],
            "baselineState": "unchanged" if pre else "new",
            "properties": {"severity": sev, "points": f.points, "counted": counted,
                           "testCode": f.message.startswith(TEST_CODE), "tool": f.rule.split(":", 1)[0]},
        })
    score = verdict.score.value
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": verdict.judge,
                "informationUri": "https://github.com/bouts/bouts/blob/main/docs/security.md",
                "rules": rules,
                "properties": {"versions": dict(verdict.versions)},
            }, "extensions": _extensions(verdict)},
            "originalUriBaseIds": {"SUBMISSION": {"description": {"text": "the submission's code/ directory"}}},
            "results": results,
            "properties": {"component": verdict.component, "score": score},
        }],
    }


def _extensions(verdict: Verdict) -> list[dict[str, Any]]:
    """The scanners that ran, as SARIF tool components (a scanner that did not run is left out)."""
    out: list[dict[str, Any]] = []
    for name in (*SCANNERS, *ESLINT_PLUGINS):
        ver = verdict.versions.get(name)
        if ver and not ver.startswith("not run"):
            out.append({"name": name, "version": ver})
    return out
