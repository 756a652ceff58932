"""Judges: each reads one facet of a submission and returns an explained verdict.

The contract is in ``bouts.judges.base``; every judge registers in ``bouts.judges.base.JUDGES``.
"""
