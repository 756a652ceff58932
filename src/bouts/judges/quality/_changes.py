"""What the submission changed or added relative to ``challenge.starter``: the only code judged.

The unit of judgement is the function (or method). A function counts as changed when its syntax
tree differs from the starter's function of the same qualified name (so comment or blank-line edits
do not count, a docstring edit does); a new function is changed by definition. A changed function is
judged as a whole: touching it makes it the agent's. Unchanged functions are never judged, however
bad. Outside functions, the module-level lines a line diff shows as added or replaced are judged
(imports, constants, class headers). Inside a judged function, a line the submission wrote (added
or replaced) weighs in full and a line it inherited unchanged weighs ``INHERITED_SHARE``: the agent
owns the function it touched, but wrote only part of it. See docs/quality-judges.md.
"""

from __future__ import annotations

import ast
import difflib
import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from bouts._pyast import parse as parse_python
from bouts.jsast import JsSource
from bouts.judges.quality._js_changes import JsUnit, js_units, parse_js
from bouts.languages import language as language_named
from bouts.models.view import FileTree, SubmissionView, ViewFile

NoteKind = Literal["syntax-error", "too-large", "not-utf8", "skipped", "truncated", "not-analysed"]
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
INHERITED_SHARE = 0.5
"""Weight of a line-level finding on a line inherited unchanged from the starter, in a changed function."""


@dataclass(frozen=True)
class Note:
    """Something about a file the judges must report: it could not be (fully) analysed."""

    kind: NoteKind
    file: str
    message: str
    line: int | None = None


@dataclass(frozen=True)
class Unit:
    """A top-level function or a method (nested functions belong to their enclosing function)."""

    file: str
    qualname: str
    node: FunctionNode
    start: int
    """First line, decorators included."""
    end: int
    changed: bool


@dataclass(frozen=True)
class SourceFile:
    """One parsed submission file and the part of it the submission changed."""

    rel: str
    text: str
    tree: ast.Module | None
    """None when the file does not parse (a ``syntax-error`` note says why)."""
    units: tuple[Unit, ...] | tuple[JsUnit, ...]
    """Every function of the file; ``changed`` marks the judged ones (``JsUnit`` in JavaScript)."""
    judged: frozenset[int]
    """Judged line numbers: spans of changed functions plus changed module-level lines."""
    new: bool
    written: frozenset[int] = frozenset()
    """Line numbers the submission added or replaced (a line diff against the starter's file)."""
    js: JsSource | None = None
    """The syntax tree of a JavaScript/TypeScript file (``tree`` is for Python only)."""

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    def judged_count(self) -> int:
        """Judged lines that are not blank (the density denominator's contribution)."""
        lines = self.lines
        return sum(1 for n in self.judged if 0 < n <= len(lines) and lines[n - 1].strip())


@dataclass(frozen=True)
class ChangeSet:
    """The submission's Python files, which of them changed, and what could not be analysed."""

    files: tuple[SourceFile, ...]
    """Every readable submission file (changed or not: unchanged ones give context, e.g. callers)."""
    notes: tuple[Note, ...] = field(default=())
    language: str = "python"
    """``python``, or ``javascript`` for JavaScript and TypeScript files alike."""

    @property
    def changed(self) -> tuple[SourceFile, ...]:
        return tuple(f for f in self.files if f.judged)

    def changed_units(self) -> Iterator[Unit | JsUnit]:
        for f in self.files:
            yield from (u for u in f.units if u.changed)

    @functools.cached_property
    def judged_lines(self) -> int:
        """Non-blank judged lines in all (computed once: every density cost divides by it)."""
        return sum(f.judged_count() for f in self.files)

    @property
    def judged_files(self) -> int:
        return len(self.changed) + sum(1 for n in self.notes if n.kind == "too-large")

    @property
    def judged_functions(self) -> int:
        return sum(1 for _ in self.changed_units())

    @functools.cached_property
    def _by_rel(self) -> dict[str, SourceFile]:
        return {f.rel: f for f in self.files}

    def is_judged(self, file: str | None, line: int | None) -> bool:
        """Does a finding at ``file:line`` fall in code the submission changed?"""
        by_rel = self._by_rel
        return file in by_rel and line is not None and line in by_rel[file].judged

    def share(self, file: str | None, line: int | None) -> float:
        """How much of a finding at ``file:line`` is the submission's: 1 if it wrote the line, else
        ``INHERITED_SHARE`` (an unchanged line of a function it changed)."""
        by_rel = self._by_rel
        if file not in by_rel or line is None or line in by_rel[file].written:
            return 1.0
        return INHERITED_SHARE

    def summary(self) -> str:
        """The scope line every quality verdict carries (SPEC: say what was judged)."""
        return (
            f"judged only what the submission changed or added relative to starter/: "
            f"{self.judged_files} file(s), {self.judged_functions} function(s), {self.judged_lines} line(s); "
            f"unchanged functions not judged"
        )


def parse(text: str, rel: str) -> tuple[ast.Module | None, str | None]:
    """The syntax tree of ``text``, or the reason it has none. Never raises for bad input."""
    try:
        return parse_python(text, filename=rel), None
    except SyntaxError as exc:
        return None, f"syntax error: {exc.msg} (line {exc.lineno})"
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes; absurd nesting
        return None, f"cannot be parsed: {type(exc).__name__}"


def iter_units(tree: ast.Module) -> Iterator[tuple[str, FunctionNode]]:
    """(qualified name, node) of every top-level function and method, classes nested at any depth."""
    stack: list[tuple[str, list[ast.stmt]]] = [("", tree.body)]
    while stack:
        prefix, body = stack.pop()
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield prefix + node.name, node
            elif isinstance(node, ast.ClassDef):
                stack.append((f"{prefix}{node.name}.", node.body))


def _fingerprints(tree: ast.Module | None) -> dict[tuple[str, int], str]:
    """Each function's syntax tree without positions, keyed by (qualname, occurrence)."""
    if tree is None:
        return {}
    seen: dict[str, int] = {}
    out: dict[tuple[str, int], str] = {}
    for name, node in iter_units(tree):
        seen[name] = seen.get(name, 0) + 1
        out[(name, seen[name])] = ast.dump(node)
    return out


def _changed_lines(old: str | None, new: str) -> set[int]:
    """1-based line numbers of ``new`` that a line diff shows as added or replaced."""
    new_lines = new.splitlines()
    if old is None:
        return set(range(1, len(new_lines) + 1))
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new_lines, autojunk=False)
    changed: set[int] = set()
    for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            changed.update(range(j1 + 1, j2 + 1))
    return changed


def py_source_file(raw: ViewFile, base: ViewFile | None) -> tuple[SourceFile | None, list[Note]]:
    assert raw.text is not None
    notes = [Note("not-utf8", raw.rel, "not valid UTF-8 (decoded with replacement characters)")] if raw.not_utf8 else []
    base_text = base.text if base is not None else None
    if base_text == raw.text:
        tree, _ = parse(raw.text, raw.rel)
        units = tuple(Unit(raw.rel, q, n, _start(n), n.end_lineno or n.lineno, False)
                      for q, n in iter_units(tree)) if tree else ()
        return SourceFile(raw.rel, raw.text, tree, units, frozenset(), False), []
    tree, error = parse(raw.text, raw.rel)
    diff_lines = _changed_lines(base_text, raw.text)
    if tree is None:
        notes.append(Note("syntax-error", raw.rel, error or "cannot be parsed"))
        return SourceFile(raw.rel, raw.text, None, (), frozenset(diff_lines), base is None,
                          frozenset(diff_lines)), notes
    try:
        before = _fingerprints(parse(base_text, raw.rel)[0] if base_text is not None else None)
        seen: dict[str, int] = {}
        units = []
        for qualname, node in iter_units(tree):
            seen[qualname] = seen.get(qualname, 0) + 1
            changed = before.get((qualname, seen[qualname])) != ast.dump(node)
            units.append(Unit(raw.rel, qualname, node, _start(node), node.end_lineno or node.lineno, changed))
    except RecursionError:
        notes.append(Note("syntax-error", raw.rel, "nested too deeply to analyse"))
        return SourceFile(raw.rel, raw.text, None, (), frozenset(diff_lines), base is None,
                          frozenset(diff_lines)), notes
    in_function = {n for u in units for n in range(u.start, u.end + 1)}
    judged = {n for u in units if u.changed for n in range(u.start, u.end + 1)}
    judged |= diff_lines - in_function
    return SourceFile(raw.rel, raw.text, tree, tuple(units), frozenset(judged), base is None,
                      frozenset(diff_lines)), notes


def _start(node: FunctionNode) -> int:
    return min([node.lineno] + [d.lineno for d in node.decorator_list])


def js_source_file(raw: ViewFile, base: ViewFile | None) -> tuple[SourceFile | None, list[Note]]:
    """``_source_file`` for JavaScript/TypeScript (see ``_js_changes``)."""
    assert raw.text is not None
    notes = [Note("not-utf8", raw.rel, "not valid UTF-8 (decoded with replacement characters)")] if raw.not_utf8 else []
    base_text = base.text if base is not None else None
    parsed = parse_js(raw)
    if base_text == raw.text:
        units = tuple(js_units(raw.rel, parsed, None)[0]) if isinstance(parsed, JsSource) else ()
        return SourceFile(raw.rel, raw.text, None, units, frozenset(), False,
                          js=parsed if isinstance(parsed, JsSource) else None), []
    diff_lines = _changed_lines(base_text, raw.text)
    if not isinstance(parsed, JsSource) or parsed.error_lines:
        if isinstance(parsed, JsSource):
            notes.append(Note("syntax-error", raw.rel, f"syntax error (line {parsed.error_lines[0]})",
                              parsed.error_lines[0]))
        else:
            notes.append(Note("not-analysed", raw.rel, parsed.reason, parsed.line))
        return SourceFile(raw.rel, raw.text, None, (), frozenset(diff_lines), base is None,
                          frozenset(diff_lines)), notes
    before_src = parse_js(base) if base is not None and base_text is not None else None
    before = js_units(base.rel, before_src, None)[1] if isinstance(before_src, JsSource) and base else {}
    units, _ = js_units(raw.rel, parsed, before)
    in_function = {n for u in units for n in range(u.start, u.end + 1)}
    judged = {n for u in units if u.changed for n in u.owned}
    judged |= diff_lines - in_function
    return SourceFile(raw.rel, raw.text, None, tuple(units), frozenset(judged), base is None,
                      frozenset(diff_lines), parsed), notes


def collect(view: SubmissionView, language: str = "python") -> ChangeSet:
    """What the submission changed in its judged code (``SubmissionView.judged``) relative to the starter.

    ``language`` is the challenge's: ``javascript`` and ``typescript`` read the JavaScript and
    TypeScript files with tree-sitter (``_js_changes``), anything else the ``.py`` files. Computed once
    per view and language: every quality judge reads the same change set.
    """
    return view.memo(("quality.collect", language), lambda: _collect(view.judged, view.judged_starter, language))


def starter_sources(view: SubmissionView, language: str = "python") -> ChangeSet:
    """The starter's own judged files, parsed (as ``collect`` of the starter against itself)."""
    starter = view.judged_starter
    return view.memo(("quality.starter", language), lambda: _collect(starter, starter, language))


def _collect(tree: FileTree, starter: FileTree, language: str) -> ChangeSet:
    lang = language_named(language)
    suffixes = lang.suffixes
    mine = tree.with_suffix(suffixes)
    base = {f.rel: f for f in starter.with_suffix(suffixes)}
    files: list[SourceFile] = []
    notes: list[Note] = []
    if tree.truncated:
        notes.append(Note("truncated", ".", "more source files than the judges read; the rest were not judged"))
    for rel in tree.links:  # a link to a source file, or to a folder that may hold some
        if rel.endswith(suffixes) or "." not in rel.rsplit("/", 1)[-1]:
            notes.append(Note("skipped", rel, "a symlink (not followed)"))
    for raw in mine:
        if raw.text is None:
            prior = base.get(raw.rel)
            same = prior is not None and prior.text is None and prior.size == raw.size
            kind: NoteKind = "too-large" if raw.truncated else "skipped"
            if not same:
                notes.append(Note(kind, raw.rel, raw.why_not_read or "not read"))
            continue
        source, file_notes = lang.part("quality.changes")(raw, base.get(raw.rel))
        notes += file_notes
        if source is not None:
            files.append(source)
    return ChangeSet(tuple(files), tuple(notes), lang.name)
