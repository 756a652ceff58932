"""Rule files the engine ships as package data (no registry download): ``semgrep/<language>/*.yml``.

The security judge (``bouts.judges.security``) runs Semgrep with ``--config`` pointing here. Each
rule carries ``metadata.cwe`` and ``metadata.severity``; the severity must match the CWE table in
``bouts.judges.security._severity`` (a test checks it). Documented in docs/security.md.
"""

__all__: list[str] = []  # data only: the rule files beside this module
