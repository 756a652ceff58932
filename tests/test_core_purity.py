"""STYLE §1/§10, extended (issue 14 item 3): besides ``bouts.scoring`` (tests/scoring/test_purity.py),
``bouts.assemble``, ``bouts.combine`` and ``bouts.models`` are pure. What they import is import-linter's
contracts (pyproject.toml: ``pure-core``, ``floors``; tests/test_architecture.py); what an import
contract cannot see is checked here: no file, clock or environment use through a name already in
hand (``open``, ``Path.read_text``, ``os.environ`` reached through an attribute)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "bouts"
MODULES = [SRC / "assemble.py", SRC / "combine.py", *sorted((SRC / "models").glob("*.py"))]

# ``pathlib`` is allowed for ``Path`` as a field type; using it on the disk is caught here.
FILE_ATTRIBUTES = {"environ", "getenv", "read_text", "write_text", "read_bytes", "write_bytes", "open", "iterdir",
                   "glob", "rglob", "exists", "is_file", "is_dir", "stat", "mkdir", "unlink", "urlopen"}  # fmt: skip
FORBIDDEN_CALLS = {"open", "exec", "eval", "compile", "__import__", "input", "print", "breakpoint"}


def _calls(tree: ast.AST) -> list[str]:
    return [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]


def _attributes(tree: ast.AST) -> list[str]:
    return [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(SRC).as_posix())
def test_core_module_is_pure(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert [c for c in _calls(tree) if c in FORBIDDEN_CALLS] == []
    assert [a for a in _attributes(tree) if a in FILE_ATTRIBUTES] == []


def test_the_checker_sees_a_file_read_and_an_environment_read() -> None:
    tree = ast.parse("def f(p):\n    open(p)\n    return p.read_text(), os.environ['X']\n")
    assert [c for c in _calls(tree) if c in FORBIDDEN_CALLS] == ["open"]
    assert sorted(a for a in _attributes(tree) if a in FILE_ATTRIBUTES) == ["environ", "read_text"]
