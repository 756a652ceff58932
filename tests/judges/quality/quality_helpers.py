"""Helpers of the quality-judge tests: throwaway challenges with a starter tree and a submission tree.

(A uniquely named module, not ``conftest``: test modules import it by name.)
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path

from bouts.judges.base import Verdict
from bouts.models.challenge import Challenge, ChallengeSpec

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "inventory-ledger"


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Write ``files`` (relative path → text, dedented, or raw bytes) under ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
    return root


def challenge_at(root: Path, starter: Mapping[str, str | bytes], **spec: object) -> Challenge:
    """A minimal loaded challenge whose ``starter/`` holds ``starter``."""
    write_tree(root / "starter", starter)
    suites = {"visible": "0", "hidden": "0", "adversarial": "0"}
    return Challenge(
        root=root, spec=ChallengeSpec(id="quality-fixture", title="fixture", **spec), content_hash="0",
        suite_hashes=suites, test_files={k: [] for k in suites},
    )


Run = Callable[..., Verdict]
