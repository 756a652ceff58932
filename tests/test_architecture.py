"""The architecture is import-linter's contracts (pyproject.toml, ``[tool.importlinter]``; drawn in
docs/architecture.md, "Contracts"): ``lint-imports`` keeps every one of them on this tree, and breaks
the one a change steps over — a name dropped from a front door, a private module taken across
packages, an import up a floor, an I/O module in the pure core — on a copy of the tree."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "COLUMNS": "400"}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=root, env=env, capture_output=True, text=True,
                          timeout=600, check=False)  # fmt: skip


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(ROOT / "src", root / "src", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "tools").mkdir()
    shutil.copy(ROOT / "tools" / "import_contracts.py", root / "tools")
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{path}: {old!r}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_lint_imports_keeps_every_contract() -> None:
    done = _lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "5 kept, 0 broken" in done.stdout


@pytest.mark.slow_io  # lint-imports on a copy of the tree: seconds
def test_a_name_dropped_from_a_front_door_breaks_the_front_doors_contract(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _edit(root / "src/bouts/runner/__init__.py", '    "grade_with",\n', "")
    done = _lint_imports(root)
    assert done.returncode == 1
    assert "4 kept, 1 broken" in done.stdout
    assert "bouts.pipeline:" in done.stdout and "grade_with is not in bouts.runner.__all__" in done.stdout


@pytest.mark.slow_io
def test_a_private_module_an_upward_import_and_io_in_the_core_each_break_their_contract(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    src = root / "src/bouts"
    # Inside a function, as a deferred import would be: every import statement counts.
    _edit(src / "judging.py", "from bouts.errors import",
          "def _x():\n    from bouts.runner._run import run_pytest  # noqa\n\n\nfrom bouts.errors import")  # fmt: skip
    # Under TYPE_CHECKING, up a floor: the edges never import a part that runs them.
    future = "from __future__ import annotations\n"
    checking = "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from bouts.runner import RunOptions\n"
    _edit(src / "loading/view.py", future, f"{future}\n{checking}")
    _edit(src / "scoring/compute.py", "from __future__ import annotations\n",
          "from __future__ import annotations\n\nimport os  # noqa\n")  # fmt: skip
    done = _lint_imports(root)
    assert done.returncode == 1
    out = done.stdout
    assert "2 kept, 3 broken" in out
    assert "bouts.judging:" in out and "imports bouts.runner._run: a private module of bouts.runner" in out
    assert "bouts.loading is not allowed to import bouts.runner" in out
    assert "bouts.scoring is not allowed to import os" in out


def _circles(graph: object) -> list[list[str]]:
    """The import circles between files of ``graph`` (a grimp graph: every import statement, at module
    level, inside a function or under ``TYPE_CHECKING``): its strongly connected parts of two or more
    modules, or of one that imports itself."""
    import numpy as np
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    modules = sorted(graph.modules)  # type: ignore[attr-defined]
    index = {m: i for i, m in enumerate(modules)}
    edges = [(index[m], index[d]) for m in modules for d in graph.find_modules_directly_imported_by(m) if d in index]  # type: ignore[attr-defined]
    rows, cols = [a for a, _ in edges], [b for _, b in edges]
    matrix = csr_matrix((np.ones(len(edges)), (rows, cols)), shape=(len(modules), len(modules)))
    _, labels = connected_components(matrix, directed=True, connection="strong")
    parts: dict[int, list[str]] = {}
    for module, label in zip(modules, labels, strict=True):
        parts.setdefault(int(label), []).append(module)
    selfish = [[m] for m in modules if m in graph.find_modules_directly_imported_by(m)]  # type: ignore[attr-defined]
    return [p for p in parts.values() if len(p) > 1] + selfish


def test_no_import_circle_between_files_counting_every_import_statement() -> None:
    """Issue 42: a function-level import that closes a circle is a circle deferred; there are none."""
    import grimp

    assert _circles(grimp.build_graph("bouts", cache_dir=None)) == []


def test_the_circle_finder_sees_a_circle_closed_three_files_away() -> None:
    import grimp

    graph = grimp.ImportGraph()
    for module in ("p", "p.a", "p.b", "p.c", "p.d"):
        graph.add_module(module)
    for importer, imported in (("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.d")):
        graph.add_import(importer=importer, imported=imported)
    assert _circles(graph) == []
    graph.add_import(importer="p.d", imported="p.b")  # e.g. inside a function
    assert _circles(graph) == [["p.b", "p.c", "p.d"]]
