"""STYLE §1: the calibration cores are pure (no files, clock, subprocess, environment, randomness)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import bouts.calibration

PKG = Path(bouts.calibration.__file__).parent
PURE = ["_tests_ast.py", "lint.py", "review.py", "stats.py", "report.py", "stats_report.py", "stats_validity.py",
        "stats_labels.py"]
FORBIDDEN = {"os", "sys", "subprocess", "pathlib", "shutil", "tempfile", "time", "random", "secrets", "socket",
             "fcntl", "sqlite3", "rich", "typer", "bouts.runner", "bouts.sandbox", "bouts.pipeline"}  # fmt: skip
FORBIDDEN_CALLS = {"open", "print", "now", "utcnow", "today", "exec", "eval"}


@pytest.mark.parametrize("name", PURE)
def test_pure_calibration_modules_import_no_io(name: str) -> None:
    tree = ast.parse((PKG / name).read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    bad = {m for m in imported if m in FORBIDDEN or any(m.startswith(f + ".") for f in FORBIDDEN)}
    assert not bad, f"{name} imports {bad}"
    calls = {
        (n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", ""))
        for n in ast.walk(tree) if isinstance(n, ast.Call)
    }  # fmt: skip
    assert not calls & FORBIDDEN_CALLS, f"{name} calls {calls & FORBIDDEN_CALLS}"
