"""The security judge (SPEC §1, issue 4): Semgrep with the rules shipped in ``bouts.rules``, Bandit,
ESLint with eslint-plugin-security and eslint-plugin-no-unsanitized (JavaScript/TypeScript, issue 10)
and detect-secrets, all offline; findings de-duplicated across tools, mapped to a severity by CWE, and
counted only when the submission introduced them over ``starter/``. Importing this package
registers ``security-offline`` in ``bouts.judges.base.JUDGES``. See docs/security.md.
"""

from bouts.judges.security._eslint import ESLINT_OFF, ESLINT_RULES, EslintRule, EslintTool, find_node
from bouts.judges.security._eslint import default_package_dir as eslint_package_dir
from bouts.judges.security._eslint import read_messages as read_eslint_messages
from bouts.judges.security._findings import SecurityFinding, ToolFinding, baseline, dedupe, normalise
from bouts.judges.security._judge import JUDGE_NAME, SecurityJudge, SecurityReport, scan_trees, verdict_from
from bouts.judges.security._rules import RuleInfo, load_rules, rules_dir
from bouts.judges.security._sarif import to_sarif
from bouts.judges.security._scanners import findings_cache
from bouts.judges.security._severity import CWE_SEVERITY, severity_for

__all__ = [
    "CWE_SEVERITY",
    "ESLINT_OFF",
    "ESLINT_RULES",
    "EslintRule",
    "EslintTool",
    "JUDGE_NAME",
    "RuleInfo",
    "SecurityFinding",
    "SecurityJudge",
    "SecurityReport",
    "ToolFinding",
    "baseline",
    "dedupe",
    "eslint_package_dir",
    "find_node",
    "findings_cache",
    "load_rules",
    "normalise",
    "read_eslint_messages",
    "rules_dir",
    "scan_trees",
    "severity_for",
    "to_sarif",
    "verdict_from",
]
