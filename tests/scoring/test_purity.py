"""STYLE §1/§10: the scoring core is pure; no module in bouts.scoring touches files, clock, network,
subprocesses, randomness or the environment."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import bouts.scoring

CORE = Path(bouts.scoring.__file__).parent
MODULES = sorted(CORE.glob("*.py"))

FORBIDDEN_MODULES = {
    "os",
    "sys",
    "subprocess",
    "socket",
    "pathlib",
    "io",
    "shutil",
    "tempfile",
    "time",
    "datetime",
    "random",
    "secrets",
    "requests",
    "httpx",
    "urllib",
    "http",
    "asyncio",
    "threading",
    "multiprocessing",
    "glob",
    "fileinput",
    "sqlite3",
    "pickle",
    "shelve",
    "logging",
    "signal",
    "ctypes",
    "importlib",
    "builtins",
    "platform",
    "uuid",
    "aiohttp",
    "openai",
    "anthropic",
    "redis",
    "psycopg",
    "rich",
    "typer",
}
# The core may lean on its own pure helpers and the error tree, nothing else of bouts.
ALLOWED_BOUTS = {"bouts.scoring", "bouts.errors"}
FORBIDDEN_CALLS = {"open", "exec", "eval", "compile", "__import__", "input", "print", "breakpoint"}


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _imports(tree: ast.Module) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import stays inside bouts.scoring
                names.append("bouts.scoring." + (node.module or ""))
            elif node.module:
                names.append(node.module)
    return names


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
def test_no_io_imports(path):
    bad = [n for n in _imports(_tree(path)) if n.split(".")[0] in FORBIDDEN_MODULES]
    assert bad == [], f"{path.name} imports {bad}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_bouts_imports_outside_the_core(path):
    bad = [
        n
        for n in _imports(_tree(path))
        if n.split(".")[0] == "bouts" and not any(n == a or n.startswith(a + ".") for a in ALLOWED_BOUTS)
    ]
    assert bad == [], f"{path.name} imports {bad}"


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
    """The checks above would notice an I/O import and an open() call."""
    tree = ast.parse("import os\nfrom pathlib import Path\nfrom . import x\nopen('f')\n")
    assert [n for n in _imports(tree) if n.split(".")[0] in FORBIDDEN_MODULES] == ["os", "pathlib"]
    calls = [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    assert "open" in calls
