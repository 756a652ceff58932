"""STYLE §1/§10: the LLM judges' math, rubric, prompt, stripping and cost record are pure; only calls.py,
providers.py, evidence.py, judge.py and panel.py sit at the I/O edge."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import bouts.judges.llm

PURE = ["reliability.py", "prompt.py", "rubric.py", "strip.py", "usage.py"]
FORBIDDEN = {"os", "sys", "subprocess", "socket", "pathlib", "shutil", "tempfile", "time", "datetime",
             "threading", "asyncio", "http", "urllib", "httpx", "httpx2", "openai", "anthropic", "requests"}


@pytest.mark.parametrize("module", PURE)
def test_pure_modules_import_no_io(module):
    tree = ast.parse((Path(bouts.judges.llm.__file__).parent / module).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert not imported & FORBIDDEN, f"{module} imports {sorted(imported & FORBIDDEN)}"
