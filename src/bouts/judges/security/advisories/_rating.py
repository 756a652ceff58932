"""An advisory's severity on the security judge's scale (critical/high/medium/low); pure.

In order: a malicious-package record (OSV's ``MAL-`` ids) is critical, since installing the package
runs its author's code; otherwise the newest CVSS vector the record gives (v4, then v3, then v2; on
the record or on the affected package), its base score on CVSS's own qualitative scale (9.0–10
critical, 7.0–8.9 high, 4.0–6.9 medium, below 4.0 low); otherwise the database's own label
(GitHub's ``database_specific.severity``: CRITICAL/HIGH/MODERATE/LOW); otherwise medium, and the
finding says the advisory gave none. See docs/security.md, "Dependency advisories".
"""

from __future__ import annotations

from dataclasses import dataclass

from bouts.judges.security._severity import Severity
from bouts.judges.security.advisories._osv import Affected, OsvRecord

CVSS_TYPES = ("CVSS_V4", "CVSS_V3", "CVSS_V2")
"""Newest first: the vector that decides when a record gives several."""
DATABASE_LABELS: dict[str, Severity] = {"CRITICAL": "critical", "HIGH": "high", "MODERATE": "medium",
                                        "MEDIUM": "medium", "LOW": "low"}
UNRATED: Severity = "medium"


@dataclass(frozen=True)
class Rating:
    severity: Severity
    why: str
    """How the severity was read, for the finding's message: ``CVSS 3.1 base 7.5``, ``GitHub: HIGH``."""


def rate(record: OsvRecord, affected: Affected | None = None) -> Rating:
    """The severity of ``record`` (for the package of ``affected``, whose own vectors count too)."""
    if record.id.startswith("MAL-"):
        return Rating("critical", "malicious package")
    vectors = [*(affected.severity if affected else ()), *record.severity]
    for kind in CVSS_TYPES:
        for sev in vectors:
            if sev.type == kind:
                score, version = cvss_base(kind, sev.score)
                if score is not None:
                    return Rating(from_score(score), f"CVSS {version} base {score:g}")
    label = str((record.database_specific or {}).get("severity", "")).upper()
    if label in DATABASE_LABELS:
        return Rating(DATABASE_LABELS[label], f"advisory severity {label}")
    return Rating(UNRATED, f"the advisory gives no severity; counted as {UNRATED}")


def from_score(score: float) -> Severity:
    """CVSS's qualitative rating scale (v3.1 specification §5, the same in v4.0); None (0.0) → low."""
    if score >= 9.0:
        return "critical"
    if score >= 7.0:
        return "high"
    if score >= 4.0:
        return "medium"
    return "low"


def cvss_base(kind: str, vector: str) -> tuple[float | None, str]:
    """The base score of a CVSS vector (the ``cvss`` package); (None, why) when it does not parse."""
    from cvss import CVSS2, CVSS3, CVSS4
    from cvss.exceptions import CVSSError

    try:
        if kind == "CVSS_V4":
            return float(CVSS4(vector).base_score), "4.0"
        if kind == "CVSS_V3":
            c3 = CVSS3(vector)
            return float(c3.base_score), vector.split("/")[0].removeprefix("CVSS:")
        return float(CVSS2(vector).base_score), "2.0"
    except (CVSSError, ValueError, KeyError, IndexError):
        return None, f"unreadable {kind} vector"
