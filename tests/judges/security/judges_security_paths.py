"""Paths shared by the security judge tests (a uniquely named module: ``conftest`` is not importable
reliably when several test directories have one)."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent
SNIPPETS = HERE / "snippets"
EXAMPLE = HERE.parents[2] / "examples" / "inventory-ledger"
EXAMPLE_JS = HERE.parents[2] / "examples" / "rate-limiter-js"
ESLINT_SNIPPETS = SNIPPETS / "eslint"
"""``eslint/<plugin>/<rule>.bad.*`` must fire, ``.good.*`` must not (see test_security_eslint.py)."""
DOCS = HERE.parents[2] / "docs" / "security.md"
