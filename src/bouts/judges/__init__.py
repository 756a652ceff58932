"""Judges: each reads one facet of a submission and returns an explained verdict.

The contract is in ``bouts.judges.base``; every judge registers in ``bouts.judges.base.JUDGES``.
"""

# The front door is the judges' contract (base), the built-in set (builtin) and each family's package.
__all__ = [
    "base",
    "builtin",
    "deliverables",
    "integrity",
    "llm",
    "quality",
    "security",
    "trajectory",
]
