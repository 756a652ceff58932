"""SARIF 2.1.0 export: the shape code-scanning tools require."""

from __future__ import annotations

import json

from bouts.judges.security import SecurityReport, to_sarif, verdict_from


def test_sarif_has_the_required_keys_for_every_result(snippet_report: SecurityReport) -> None:
    verdict = verdict_from(snippet_report)
    sarif = json.loads(json.dumps(to_sarif(verdict)))  # JSON-serialisable as is
    assert sarif["version"] == "2.1.0" and sarif["$schema"].endswith("sarif-2.1.0.json")
    (run,) = sarif["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "security-offline"
    rule_ids = [r["id"] for r in driver["rules"]]
    assert len(rule_ids) == len(set(rule_ids)) and all(r["shortDescription"]["text"] for r in driver["rules"])
    assert run["results"]
    for result in run["results"]:
        assert result["ruleId"] in rule_ids and driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in {"none", "note", "warning", "error"}
        assert result["message"]["text"]
        loc = result["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] and loc["region"]["startLine"] >= 1
        assert result["baselineState"] in {"new", "unchanged"}


def test_sarif_levels_follow_severity(snippet_report: SecurityReport) -> None:
    run = to_sarif(verdict_from(snippet_report))["runs"][0]
    levels = {r["properties"]["severity"]: r["level"] for r in run["results"]}
    assert levels["critical"] == "error" and levels["medium"] == "warning" and levels["low"] == "note"
