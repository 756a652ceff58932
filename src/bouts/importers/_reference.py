"""The reference's run at import: one task's (``verify_one``) or a batch of tasks' (``run_batch``)."""

from __future__ import annotations

from pathlib import Path

from bouts.loading import load_challenge
from bouts.models.results import RunReport
from bouts.runner import RunOptions, run_suites
from bouts.sandbox import Sandbox


def run_reference(files: dict[str, str], root: Path, *, sandbox: Sandbox, options: RunOptions) -> RunReport:
    """Write a challenge's ``files`` under ``root`` and run its reference against its visible and
    hidden tests, as the reference's golden run at scoring does (one task, or a batch of them)."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    loaded = load_challenge(root)
    return run_suites(
        loaded, loaded.reference, sandbox=sandbox, suites=("visible", "hidden"), options=options, assertions="golden"
    )
