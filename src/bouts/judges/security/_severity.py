"""The one CWE → severity table of the security judge, and the CWE families used to de-duplicate.

Pure data and lookups: every tool's finding is mapped to critical/high/medium/low here, so that the
same weakness costs the same points whichever scanner saw it. The reasoning behind each row is in
``docs/security.md``; the shipped Semgrep rules carry the same severity in their metadata and a test
keeps the two in agreement.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

Severity = Literal["critical", "high", "medium", "low"]
SEVERITY_RANK: Mapping[str, int] = {"low": 1, "medium": 2, "high": 3, "critical": 4}

CWE_SEVERITY: Mapping[int, Severity] = {
    # critical: an attacker runs code, reads every record, or walks in without credentials.
    77: "critical",  # command injection (generic)
    78: "critical",  # OS command injection
    89: "critical",  # SQL injection
    94: "critical",  # code injection (eval/exec)
    95: "critical",  # eval injection
    287: "critical",  # improper authentication (tautologies, plaintext compare, unverified JWT)
    # Hard-coded credentials (seed 000 lists them as critical): whoever reads the code, the repository or
    # the built artifact holds the key. CWE-259 (password) and CWE-321 (cryptographic key) are its children.
    259: "critical",  # hard-coded password
    321: "critical",  # hard-coded cryptographic key
    798: "critical",  # hard-coded credentials
    # high: a serious, usually directly exploitable weakness.
    22: "high",  # path traversal
    79: "high",  # cross-site scripting
    295: "high",  # TLS certificate verification disabled
    489: "high",  # active debug code (Werkzeug debugger = remote console)
    502: "high",  # deserialization of untrusted data
    611: "high",  # XML external entities
    838: "high",  # code that reads differently from how it runs (bidi controls, invisible characters)
    916: "high",  # password hash with insufficient effort
    470: "high",  # a function of builtins/os/subprocess/pickle looked up by a name that is not constant
    918: "high",  # server-side request forgery
    # medium: exploitable with help, or leaks what makes the next attack easier.
    73: "medium",  # a file path not fixed in the code (ESLint cannot tell where it comes from; 22 when we can)
    208: "medium",  # secret compared in non-constant time
    209: "medium",  # error message with sensitive information
    327: "medium",  # broken or risky cryptographic algorithm
    328: "medium",  # weak hash
    330: "medium",  # insufficiently random values
    338: "medium",  # weak PRNG for security values
    352: "medium",  # cross-site request forgery
    377: "medium",  # insecure temporary file
    829: "medium",  # require()/import of a computed module name
    914: "medium",  # a module-level name looked up by a computed key (globals()[x])
    # low: hardening and hygiene.
    400: "low",  # uncontrolled resource consumption (e.g. HTTP call without timeout)
    532: "low",  # sensitive information in logs / verbose production logging
    605: "low",  # binding to all interfaces
    614: "low",  # cookie without Secure
    693: "low",  # protection mechanism failure (missing security headers)
    1004: "low",  # cookie without HttpOnly
    1333: "low",  # regular expression open to catastrophic backtracking (ReDoS)
}
"""Severity of each CWE. A CWE missing here keeps the severity its tool reported."""

CWE_FAMILY: Mapping[int, int] = {
    77: 78,
    80: 79,
    23: 22,
    36: 22,
    73: 22,
    95: 94,
    259: 798,
    321: 798,
    328: 327,
    916: 327,
}
"""CWEs that name the same weakness at a different level of detail (bandit says CWE-327 where our
password-hash rule says CWE-916): two tools reporting one family on one line are one finding."""

BANDIT_CWE_OVERRIDES: Mapping[str, int] = {
    "B201": 489,  # flask debug=True: bandit files it under CWE-94
    "B506": 502,  # yaml.load: bandit files it under CWE-20
    "B701": 79,  # jinja2 autoescape=False: bandit files it under CWE-94
    "B702": 79,  # mako templates
    "B703": 79,  # django mark_safe
    "B105": 798,
    "B106": 798,
    "B107": 798,
}
"""Bandit tests whose CWE is too generic to compare with our rules; mapped to the specific one."""


def family(cwe: int | None) -> int | None:
    """The CWE a finding is de-duplicated and baselined under."""
    if cwe is None:
        return None
    return CWE_FAMILY.get(cwe, cwe)


def severity_for(cwe: int | None, tool_severity: Severity) -> Severity:
    """The table's severity for ``cwe``; the tool's own severity when the table has no row."""
    if cwe is not None and cwe in CWE_SEVERITY:
        return CWE_SEVERITY[cwe]
    return tool_severity


def parse_cwe(value: object) -> int | None:
    """``"CWE-89"``, ``"CWE-89: SQL Injection"``, ``89`` or ``["CWE-89"]`` → 89; anything else → None."""
    if isinstance(value, list | tuple):
        value = value[0] if value else None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        head = value.strip().upper().removeprefix("CWE-").split(":")[0].strip()
        return int(head) if head.isdigit() else None
    return None
