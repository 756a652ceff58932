"""Reading a code tree for static integrity checks, safely.

The trees read here (the submission's ``code/``, and for comparison the challenge's ``starter/``
and ``reference/``) are untrusted bytes: they are only ever read, never imported or run. Symlinks
are listed but never followed (a link could point at the hidden tests or at ``/dev/zero``), files
are read up to a size cap, and text that is not UTF-8 or not valid Python still yields what can be
read from it.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from bouts import jsast
from bouts._pyast import TooDeep
from bouts._pyast import parse as parse_python
from bouts.judges.integrity._fold import fold
from bouts.judges.integrity._jsfile import JsFile, read_js
from bouts.judges.integrity._literals import LitKey, source_literals
from bouts.judges.integrity._structures import SKey, structure_counts
from bouts.loading.view import read_file_tree
from bouts.models.view import FileTree, ViewFile, glob_matches

__all__ = ["MAX_FILE_BYTES", "Hit", "SourceFile", "Tree", "glob_matches", "is_test_path", "parse_source"]

MAX_FILE_BYTES = 1024 * 1024
"""Larger files are not analysed, and a larger Python file costs a gray-area instance (it cannot be
reviewed, and a cap must not become a hiding place); real solution modules are far smaller. Below the
submission view's read cap (``bouts.models.view``): a bound on analysis, not on reading."""


@dataclass(frozen=True)
class Hit:
    """One detector hit inside a file, before it becomes a ``Finding``."""

    rule: str
    line: int | None
    message: str
    key: str
    """Position-independent identity (rule + the code), used to subtract what the starter had."""
    subject: str | None = None
    """What the code reads, where the challenge itself can explain it (``argv``, ``env:LOG_LEVEL``):
    the judge drops a hit whose subject the reference also decides on or the challenge mentions."""


@dataclass(frozen=True)
class SourceFile:
    """One Python file, decoded and parsed once."""

    rel: str
    text: str
    tree: ast.Module | None
    """None when the file is not valid Python (see ``error``)."""
    error: str | None = None
    importable: bool = False
    """With no ``tree``: CPython's parser accepts the file all the same (it is past the judges' bounds)."""
    folded: bool = True
    """Every constant expression was folded (``_fold``); False when the folder's step budget ran out,
    so a literal built in pieces past that point may be unread (the judge's ``unreviewed-code`` line)."""

    @cached_property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    @cached_property
    def nodes(self) -> tuple[ast.AST, ...]:
        """Every node of the syntax tree, walked once: each rule scans this list rather than re-walking."""
        return tuple(ast.walk(self.tree)) if self.tree is not None else ()

    @cached_property
    def literals(self) -> tuple[tuple[LitKey, ast.AST], ...]:
        """The module's literals (see ``_literals.source_literals``), computed once: several rules read them."""
        return tuple(source_literals(self.tree)) if self.tree is not None else ()

    @cached_property
    def structures(self) -> Counter[SKey]:
        """How often the module writes each structured literal (``_structures.structure_counts``)."""
        return structure_counts(self.tree)

    def line(self, lineno: int | None) -> str:
        """The stripped source line ``lineno`` (1-based), for citing the code in a finding."""
        lines = self.lines
        if lineno is None or not 1 <= lineno <= len(lines):
            return ""
        return lines[lineno - 1].strip()[:160]


@dataclass
class Tree:
    """A file tree read once (``bouts.models.view.FileTree``), with parsed sources cached per file."""

    view: FileTree = field(default_factory=FileTree)
    _sources: dict[str, SourceFile | None] = field(default_factory=dict, repr=False)
    _js_sources: dict[str, JsFile | None] = field(default_factory=dict, repr=False)

    @classmethod
    def read(cls, root: Path | None) -> Tree:
        """Read ``root`` (an absent root is an empty tree) with the submission view's walker: for the
        challenge's own trees (reference, visible tests)."""
        return cls(read_file_tree(root))

    @property
    def files(self) -> Mapping[str, ViewFile]:
        """Regular files by ``/``-separated path relative to the root."""
        return self.view.files

    @property
    def symlinks(self) -> Mapping[str, str]:
        """Links by path → target as written (never followed)."""
        return self.view.links

    @property
    def truncated(self) -> bool:
        return self.view.truncated

    def read_bytes(self, rel: str) -> bytes | None:
        """The file's bytes, or None when it is absent, unreadable or over ``MAX_FILE_BYTES``."""
        f = self.view.get(rel)
        return None if f is None or f.truncated or f.size > MAX_FILE_BYTES else f.data

    def source(self, rel: str) -> SourceFile | None:
        """The parsed Python file at ``rel`` (cached); None when absent or too large."""
        if rel not in self._sources:
            data = self.read_bytes(rel)
            self._sources[rel] = None if data is None else parse_source(rel, data)
        return self._sources[rel]

    def python_files(self) -> list[str]:
        return [rel for rel in self.files if rel.endswith(".py")]

    def js_files(self) -> list[str]:
        """JavaScript and TypeScript files (``.js .mjs .cjs .jsx .ts .mts .cts .tsx``)."""
        return [rel for rel in self.files if jsast.dialect_for(rel) is not None]

    def js_source(self, rel: str) -> JsFile | None:
        """The parsed JavaScript/TypeScript file at ``rel`` (cached); None when absent or too large."""
        if rel not in self._js_sources:
            data = self.read_bytes(rel)
            self._js_sources[rel] = None if data is None else read_js(rel, data)
        return self._js_sources[rel]


def parse_source(rel: str, data: bytes) -> SourceFile:
    """Decode and parse; a syntax error or undecodable bytes still give the (replaced) text."""
    text = data.decode("utf-8", errors="replace")
    try:
        # Parse the bytes so a PEP 263 coding cookie is honoured, as the interpreter would.
        tree = parse_python(data, filename=rel)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        # Refused for its depth alone, it parsed: the interpreter would import it.
        deep = isinstance(e, TooDeep)
        name = "SyntaxError" if deep else type(e).__name__
        return SourceFile(rel, text, None, f"{name}: {getattr(e, 'msg', e)}", importable=deep)
    # Literals spelled in pieces ("19" + ".99", "".join(map(chr, ...))) are read as what they build.
    folded = fold(tree, sum(1 for _ in ast.walk(tree)))
    return SourceFile(rel, text, tree, folded=folded)


def is_test_path(rel: str) -> bool:
    """Code the graded run never imports: the top-level ``tests/`` (the runner replaces it
    wholesale with the challenge's) and ``conftest.py`` files (removed as steering files). Those are
    judged as protected or steering files instead; a ``test_*.py`` elsewhere stays importable, so it
    is read like any solution module."""
    return rel.startswith("tests/") or rel.rsplit("/", 1)[-1] == "conftest.py"
