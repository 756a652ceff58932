"""STYLE §1/§10: the scoring core is pure; no module in bouts.scoring touches files, clock, network,
subprocesses, randomness or the environment. What it imports is import-linter's contracts (pyproject.toml:
``pure-core``, ``pure-scoring``; tests/test_architecture.py); the calls and attributes an import contract
cannot see are checked here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import bouts.scoring

CORE = Path(bouts.scoring.__file__).parent
MODULES = sorted(CORE.glob("*.py"))

FORBIDDEN_CALLS = {"open", "exec", "eval", "compile", "__import__", "input", "print", "breakpoint"}


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_found_the_core_modules():
    found = {p.stem for p in MODULES}
    assert {
        "explain",
        "components",
        "panel",
        "weights",
        "profiles",
        "adjustments",
        "review",
        "leaderboard",
        "placeholder",
        "compute",
    } <= found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_io_builtins_called(path):
    bad = [
        (node.func.id, node.lineno)
        for node in ast.walk(_tree(path))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FORBIDDEN_CALLS
    ]
    assert bad == [], f"{path.name} calls {bad}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_environment_or_file_attributes(path):
    suspicious = {"environ", "getenv", "read_text", "write_text", "read_bytes", "write_bytes", "urlopen"}
    bad = [
        (node.attr, node.lineno)
        for node in ast.walk(_tree(path))
        if isinstance(node, ast.Attribute) and node.attr in suspicious
    ]
    assert bad == [], f"{path.name} uses {bad}"


def test_the_checker_catches_io():
    """The checks above would notice an open() call and an environment read."""
    tree = ast.parse("import os\nopen('f')\nos.environ['X']\n")
    calls = [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    assert "open" in calls
    assert "environ" in [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)]
