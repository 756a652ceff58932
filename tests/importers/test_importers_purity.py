"""The importers' parsers are pure (STYLE §1): only ``_write.py`` and the verification
(``_verify.py``, ``_batch.py``, which run the sandbox) may touch the disk."""

from __future__ import annotations

import ast
from pathlib import Path

import bouts.importers

PACKAGE = Path(bouts.importers.__file__).parent
PURE = ["_model.py", "_records.py", "_python.py", "_layout.py", "mbpp.py", "humaneval.py"]
IO_MODULES = {"os", "pathlib", "shutil", "tempfile", "subprocess", "socket", "io", "glob", "urllib", "httpx", "time"}


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def test_parsers_import_no_io_modules() -> None:
    for name in PURE:
        assert not _imports(PACKAGE / name) & IO_MODULES, name
        assert "open(" not in (PACKAGE / name).read_text(encoding="utf-8"), name
