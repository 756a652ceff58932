"""What the document's names are checked against: the code the submission changed relative to
``challenge.starter`` and the tests of the challenge (and of the run, when there is one).

Python files are compared function by function with ``ast`` (``bouts.judges.quality._changes``: a
function or method is changed when its syntax tree differs from the starter's); a class is changed
when its syntax tree differs (so when any of its methods does). Other files (JavaScript, SQL, ...)
are compared as whole files: every function a changed file defines counts as changed. Identifiers on
lines a line diff shows as added, replaced or removed are "in the diff" too (a document may quote the
old, broken line). Nothing here imports or runs submission or test code. See docs/quality-judges.md.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from bouts.judges.quality import collect_changes as collect
from bouts.judges.quality import parse_python as parse
from bouts.judges.quality import starter_sources
from bouts.loading.view import read_one
from bouts.models.challenge import Challenge
from bouts.models.results import Outcome, RunReport
from bouts.models.view import FileTree, SubmissionView, ViewFile

TEXT_EXTENSIONS = frozenset({"js", "mjs", "cjs", "jsx", "ts", "tsx", "sql", "json", "toml", "cfg", "ini", "yml",
                             "yaml", "sh", "html", "css"})
"""Non-Python files compared by file (read like Python files: no symlinks, capped in size and number)."""
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_JS_DEF = re.compile(
    r"\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)|\bclass\s+([A-Za-z_$][\w$]*)"
    r"|\b([A-Za-z_$][\w$]*)\s*[:=]\s*(?:async\s+)?(?:function\b|\([^()]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)"
    r"|^\s*(?:async\s+|static\s+|get\s+|set\s+)*([A-Za-z_$][\w$]*)\s*\([^()]*\)\s*\{", re.M)
_JS_TEST = re.compile(r"""\b(?:test|it)(?:\.\w+)?\(\s*(['"`])(.+?)\1""")
JS_GLOBALS = frozenset({
    "Object", "prototype", "Array", "Map", "Set", "WeakMap", "Number", "String", "Boolean", "Symbol", "Math", "Date",
    "JSON", "Promise", "Error", "TypeError", "RangeError", "undefined", "null", "NaN", "Infinity", "console", "length",
    "push", "hasOwnProperty", "isInteger", "isFinite", "async", "await", "this", "new", "typeof", "instanceof"})
"""JavaScript's own names: they exist without the code defining them."""
_JS_KEYWORDS = frozenset({"if", "for", "while", "switch", "catch", "function", "return", "constructor"})


@dataclass(frozen=True)
class CodeEvidence:
    """The facts a document's names are checked against."""

    changed_units: tuple[tuple[str, str], ...]
    """(file, name) of each changed unit: a Python function/method (qualified name) or a changed
    non-Python file (name ``""``: judged by file)."""
    changed_files: frozenset[str]
    files: frozenset[str]
    """Every file of the submission's code and of the starter (relative paths)."""
    changed_defs: frozenset[str]
    """Qualified names and last components of changed functions and classes."""
    defs: frozenset[str]
    """Same, for every function and class defined anywhere in the code."""
    diff_names: frozenset[str]
    """Identifiers on lines the diff added, replaced or removed."""
    names: frozenset[str]
    """Every identifier in the code and the starter (plus Python's builtins): what exists."""
    file_defs: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Names each changed non-Python file defines (a citation of one names the file)."""
    tests: Mapping[str, bool] = field(default_factory=dict)
    """Every known test name (Python function name or JS title, lower-cased for JS) → whether it is
    tied to the change: it calls changed code, or did not pass in the run."""
    test_files: Mapping[str, bool] = field(default_factory=dict)
    """Challenge test files → whether one of their tests is tied to the change."""
    has_run: bool = False


def _other_files(tree: FileTree) -> dict[str, ViewFile]:
    """Non-Python text files of ``tree`` (``TEXT_EXTENSIONS``), by path."""
    return {f.rel: f for f in tree if "." in f.rel.rsplit("/", 1)[-1] and f.rel.rsplit(".", 1)[-1] in TEXT_EXTENSIONS}


def _diff_names(old: str | None, new: str | None) -> set[str]:
    """Identifiers on lines added, replaced or removed between ``old`` and ``new``."""
    a, b = (old or "").splitlines(), (new or "").splitlines()
    out: set[str] = set()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            out.update(_NAME.findall("\n".join(a[i1:i2] + b[j1:j2])))
    return out


def _definitions(tree: ast.Module | None) -> dict[str, tuple[str, bool]]:
    """Every function and class at any depth (``create_app.book``, ``Ledger.cancel``, ``Ledger``) →
    (its syntax tree without positions, whether it is a function)."""
    out: dict[str, tuple[str, bool]] = {}
    stack: list[tuple[str, list[ast.stmt]]] = [("", tree.body if tree else [])]
    while stack:
        prefix, body = stack.pop()
        for node in body:
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                name = prefix + node.name
                if name in out:  # a redefinition: keep both apart
                    name += f"#{node.lineno}"
                out[name] = (ast.dump(node), not isinstance(node, ast.ClassDef))
                stack.append((f"{name}.", node.body))
            elif isinstance(node, ast.If | ast.Try | ast.With | ast.For | ast.While):
                stack.append((prefix, [n for n in ast.iter_child_nodes(node) if isinstance(n, ast.stmt)]))
    return out


def _changed_functions(before: dict[str, tuple[str, bool]], after: dict[str, tuple[str, bool]]
                       ) -> tuple[set[str], list[str]]:
    """(qualified names of changed functions and classes, the coverage units among them): a unit is a
    changed public function with no changed function inside it (``create_app`` whose routes changed is
    covered by naming the routes), private helpers only when every changed function is private."""
    changed = {q for q, (dump, _) in after.items() if before.get(q, ("",))[0] != dump}
    leaves = [q for q in changed if after[q][1] and not any(o.startswith(q + ".") and after[o][1] for o in changed)]
    public = [q for q in leaves if not q.rsplit(".", 1)[-1].startswith("_") or q.endswith("__")]
    return {q.split("#")[0] for q in changed}, sorted(q.split("#")[0] for q in (public or leaves))


def _with_parts(qualnames: Iterable[str]) -> set[str]:
    """Each qualified name, its last component, and every dotted suffix (``A.b`` gives ``A.b``, ``b``)."""
    out: set[str] = set()
    for q in qualnames:
        parts = q.split(".")
        out.update(".".join(parts[i:]) for i in range(len(parts)))
    return out


def _js_defs(text: str) -> set[str]:
    return {n for m in _JS_DEF.finditer(text) for n in m.groups() if n and n not in _JS_KEYWORDS}


def _python_tests(text: str, rel: str) -> dict[str, set[str]]:
    """Python test function name → identifiers its body uses."""
    tree, _ = parse(text, rel)
    out: dict[str, set[str]] = {}
    for node in ast.walk(tree) if tree else ():
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            used |= {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
            out[node.name] = used
    return out


def _test_name(node_id: str) -> str:
    """``tests/v/test_a.py::TestX::test_y[1]`` → ``test_y``; a JS id ``f.test.mjs::title`` → ``title``."""
    name = node_id.rsplit("::", 1)[-1]
    return re.sub(r"\[.*\]$", "", name) if name.startswith("test") else name.lower()


def _tests(challenge: Challenge, changed: set[str], run: RunReport | None
           ) -> tuple[dict[str, bool], dict[str, bool]]:
    """Known tests and test files, each marked True when tied to the change (see ``Evidence.tests``)."""
    tests: dict[str, bool] = {}
    files: dict[str, bool] = {}
    for rel in sorted({r for rels in challenge.test_files.values() for r in rels}):
        raw = read_one(challenge.root, rel)
        if raw.text is None:
            continue
        if rel.endswith(".py"):
            found = {name: bool(used & changed) for name, used in _python_tests(raw.text, rel).items()}
        else:  # JS: by file, like the code
            tied = bool(set(_NAME.findall(raw.text)) & changed)
            found = {m.group(2).lower(): tied for m in _JS_TEST.finditer(raw.text)}
        for name, tied in found.items():
            tests[name] = tests.get(name, False) or tied
        files[rel] = any(found.values())
    for result in run.results if run else ():
        name = _test_name(result.id)
        tests[name] = tests.get(name, False) or result.outcome != Outcome.PASSED
    return tests, files


def gather(challenge: Challenge, view: SubmissionView, run: RunReport | None = None) -> CodeEvidence:
    """Compare the submission's code with the starter, and collect the challenge's tests."""
    changes = collect(view)
    starter_py = {f.rel: f for f in starter_sources(view).files}
    units: list[tuple[str, str]] = []
    changed_q: set[str] = set()
    all_q: set[str] = set()
    diff: set[str] = set()
    names: set[str] = set(dir(builtins)) | {"NaN", "nan", "inf", "Infinity"} | JS_GLOBALS
    files: set[str] = set()
    changed_files: set[str] = set()
    for f in changes.files:
        base = starter_py.get(f.rel)
        files.add(f.rel)
        names.update(_NAME.findall(f.text))
        after = _definitions(f.tree)
        all_q.update(q.split("#")[0] for q in after)
        if base is not None and base.text == f.text:
            continue
        changed_files.add(f.rel)
        diff |= _diff_names(base.text if base else None, f.text)
        changed, leaves = _changed_functions(_definitions(base.tree if base else None), after)
        changed_q |= changed
        units += [(f.rel, q) for q in leaves]
    for f in starter_py.values():
        files.add(f.rel)
        names.update(_NAME.findall(f.text))
        if f.rel not in {c.rel for c in changes.files}:
            diff.update(_NAME.findall(f.text))  # a deleted file: all of it is in the diff
    mine = _other_files(view.judged)
    base_other = _other_files(view.judged_starter)
    file_defs: dict[str, frozenset[str]] = {}
    for rel, raw in mine.items():
        files.add(rel)
        text = raw.text or ""
        names.update(_NAME.findall(text))
        defined = _js_defs(text)
        all_q.update(defined)
        base = base_other.get(rel)
        if base is not None and base.text == raw.text:
            continue
        changed_files.add(rel)
        units.append((rel, ""))
        changed_q.update(defined)
        file_defs[rel] = frozenset(defined)
        diff |= _diff_names(base.text if base else None, text)
    for rel, raw in base_other.items():
        files.add(rel)
        names.update(_NAME.findall(raw.text or ""))
    changed_defs = _with_parts(changed_q)
    tests, test_files = _tests(challenge, {q.rsplit(".", 1)[-1] for q in changed_q}, run)
    return CodeEvidence(tuple(units), frozenset(changed_files), frozenset(files), frozenset(changed_defs),
                    frozenset(_with_parts(all_q)), frozenset(diff), frozenset(names), file_defs, tests,
                    test_files, run is not None)
