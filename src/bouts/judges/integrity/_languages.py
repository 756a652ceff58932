"""The code detectors of each language, behind one shape, so the judge runs one loop for all.

Python is read with ``ast`` (``_code``, ``_gray``, ``_hardcoded``, ``_visible``), JavaScript and
TypeScript with tree-sitter through ``bouts.jsast`` (``_js_code``, ``_js_gray``, ``_js_hardcoded``,
``_js_visible``). Rule ids, evidence rules, points and caps are the same; what differs is how a
source is read and what a "file the detectors could not read" means:

- a Python file that does not parse cannot be imported, so it cannot cheat: informational; one
  that CPython parses but the judges' bounded parser refuses (nested past 200 levels) would run,
  unreviewed: the bright ``unreviewed-code`` line;
- a JavaScript file with a syntax error is still read as far as tree-sitter recovered (its grammar
  may lag node's), with an informational note; one past the parser's bounds (nested too deeply,
  too many nodes) is valid code node would run: the bright ``unreviewed-code`` line. A bound must
  not become a hiding place, and a gray instance was one: a bright-line cheat nested past it cost
  5 points instead of integrity 0 and the −25 adjustment.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from bouts.judges.integrity import _code, _gray, _js_code, _js_gray, _js_hardcoded, _js_visible, _order
from bouts.judges.integrity._hardcoded import hardcoded_hits, literal_counts
from bouts.judges.integrity._jsfile import JsFile
from bouts.judges.integrity._literals import LitKey
from bouts.judges.integrity._paths import Level
from bouts.judges.integrity._structures import SKey
from bouts.judges.integrity._tree import Hit, SourceFile, Tree
from bouts.judges.integrity._visible import VisibleLiterals, harvest


@dataclass(frozen=True)
class Language:
    """How the detectors read one language's files (``source`` objects are opaque to the judge)."""

    name: str
    files: Callable[[Tree], list[str]]
    source: Callable[[Tree, str], Any]
    """The parsed file, or None when it is absent or over the size cap."""
    note: Callable[[Any], tuple[Level, str] | None]
    """What to say about a file the detectors could not (fully) read, and at which level."""
    harvest: Callable[[Tree], VisibleLiterals]
    literal_keys: Callable[[Any], Iterable[LitKey]]
    structure_keys: Callable[[Any], Iterable[SKey]]
    code_hits: Callable[[Any], list[Hit]]
    hardcoded_hits: Callable[..., list[Hit]]
    gray_hits: Callable[[Any], list[Hit]]
    entries: Callable[[Tree], list[str]]
    """What the challenge's test files import (``_order``): where the review budget is spent first."""
    import_graph: Literal["python", "js"]
    """How a source's imports are read (``_order.review_order``)."""
    pytest_paths: bool = False
    """The file-level rules are pytest's (steering files, ``__pycache__``/``.pyc`` bytecode); otherwise the
    JavaScript test runners' (their configs, native ``.node`` addons)."""


def _python_note(src: SourceFile) -> tuple[Level, str] | None:
    if src.tree is not None:
        if not src.folded:  # a bound must not be a hiding place: a literal built past it went unread
            return "bright", "constant expressions past the folder's step budget (docs/integrity.md): unreviewed"
        return None
    if not src.importable:
        # The interpreter cannot import it either, so it cannot cheat; comments are still read.
        return "info", f"not valid Python ({src.error})"
    return "bright", f"valid Python the interpreter would import, past the judges' bounds ({src.error}): unreviewed"


def _js_note(src: JsFile) -> tuple[Level, str] | None:
    if src.parsed is None:  # past the parser's bounds: valid code node would run, unreviewed
        return "bright", f"source {src.error}: unreviewed"
    if src.parsed.error_lines:
        lines = ", ".join(map(str, src.parsed.error_lines[:5]))
        return "info", f"syntax errors at line(s) {lines}: node may not load it; the rules read what parsed"
    return None


def _texts(tree: Tree, rels: Iterable[str]) -> list[tuple[str, str]]:
    return [(rel, data.decode("utf-8", errors="replace")) for rel in rels if (data := tree.read_bytes(rel)) is not None]


PYTHON = Language(
    name="Python",
    files=Tree.python_files,
    source=Tree.source,
    note=_python_note,
    harvest=lambda visible: harvest(
        [s.tree for rel in visible.python_files() if (s := visible.source(rel)) is not None and s.tree]),
    literal_keys=lambda src: literal_counts(src),
    structure_keys=lambda src: src.structures if src is not None else (),
    code_hits=_code.code_hits,
    hardcoded_hits=hardcoded_hits,
    gray_hits=_gray.gray_hits,
    entries=lambda tests: _order.py_entry_modules(_texts(tests, tests.python_files())),
    import_graph="python",
    pytest_paths=True,
)

JAVASCRIPT = Language(
    name="JavaScript",
    files=Tree.js_files,
    source=Tree.js_source,
    note=_js_note,
    harvest=lambda visible: _js_visible.harvest_js(
        s for rel in visible.js_files() if (s := visible.js_source(rel)) is not None),
    literal_keys=lambda src: _js_hardcoded.literal_counts(src),
    structure_keys=lambda src: src.structures if src is not None else (),
    code_hits=_js_code.code_hits,
    hardcoded_hits=_js_hardcoded.hardcoded_hits,
    gray_hits=_js_gray.gray_hits,
    entries=lambda tests: _order.js_entry_paths(_texts(tests, tests.js_files())),
    import_graph="js",
)

