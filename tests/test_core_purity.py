"""STYLE §1/§10, extended (issue 14 item 3): besides ``bouts.scoring`` (tests/scoring/test_purity.py),
``bouts.assemble``, ``bouts.combine`` and ``bouts.models`` are pure: no I/O imports, no file, clock or
environment use, and they import only the core's own modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "bouts"
MODULES = [SRC / "assemble.py", SRC / "combine.py", *sorted((SRC / "models").glob("*.py"))]

FORBIDDEN_MODULES = {
    "os", "sys", "subprocess", "socket", "io", "shutil", "tempfile", "time", "datetime", "random", "secrets",
    "requests", "httpx", "urllib", "http", "asyncio", "multiprocessing", "glob", "fileinput", "sqlite3",
    "pickle", "shelve", "logging", "signal", "ctypes", "importlib", "platform", "uuid", "openai", "anthropic",
    "redis", "psycopg", "rich", "typer", "sqlalchemy", "fastapi", "celery",
}  # fmt: skip
# ``pathlib`` is allowed for ``Path`` as a field type; using it on the disk is caught below.
ALLOWED_BOUTS = ("bouts.scoring", "bouts.models", "bouts.errors", "bouts.combine", "bouts.judges.llm.usage")
FILE_ATTRIBUTES = {"environ", "getenv", "read_text", "write_text", "read_bytes", "write_bytes", "open", "iterdir",
                   "glob", "rglob", "exists", "is_file", "is_dir", "stat", "mkdir", "unlink", "urlopen"}
FORBIDDEN_CALLS = {"open", "exec", "eval", "compile", "__import__", "input", "print", "breakpoint"}


def _imports(tree: ast.Module) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module if not node.level else "bouts.models." + node.module)
    return names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(SRC).as_posix())
def test_core_module_is_pure(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imports = _imports(tree)
    assert [n for n in imports if n.split(".")[0] in FORBIDDEN_MODULES] == []
    outside = [n for n in imports if n.split(".")[0] == "bouts" and n != "bouts"
               and not any(n == a or n.startswith(a + ".") for a in ALLOWED_BOUTS)]
    assert outside == [], f"{path.name} imports {outside}"
    calls = [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    assert [c for c in calls if c in FORBIDDEN_CALLS] == []
    attributes = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)]
    assert [a for a in attributes if a in FILE_ATTRIBUTES] == []


def test_the_checker_sees_an_edge_import() -> None:
    tree = ast.parse("import os\nfrom bouts.judges.base import Verdict\nfrom bouts.models.view import x\n")
    assert _imports(tree) == ["os", "bouts.judges.base", "bouts.models.view"]
