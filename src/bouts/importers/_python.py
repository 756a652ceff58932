"""Python source helpers for importers: find the function a test calls, write a starter stub, split
a ``check(candidate)`` into one test per assert, and turn doctest examples into asserts.

Pure: source text in, source text out; nothing is imported or run.
"""

from __future__ import annotations

import ast
import doctest
import textwrap
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

from bouts._pyast import parse as parse_python


class SourceError(ValueError):
    """Source text is not valid Python, or lacks what the importer needs (turned into a DatasetError)."""


def parse(source: str, what: str) -> ast.Module:
    try:
        with warnings.catch_warnings():  # old datasets hold "\d" in plain strings; not our business
            warnings.simplefilter("ignore")
            return parse_python(source)
    except SyntaxError as e:
        raise SourceError(f"{what} is not valid Python (line {e.lineno}: {e.msg})") from None


def normalise(source: str) -> str:
    """Unix line endings, no trailing blanks at the end, one final newline."""
    return source.replace("\r\n", "\n").replace("\r", "\n").rstrip() + "\n"


def defined_names(module: ast.Module) -> list[str]:
    """Top-level functions, classes and assigned names, in source order."""
    names: list[str] = []
    for stmt in module.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(stmt.name)
        elif isinstance(stmt, ast.Assign):
            names += [t.id for t in stmt.targets if isinstance(t, ast.Name)]
    return names


def called_name(test_source: str, candidates: Sequence[str]) -> str | None:
    """The first name in ``candidates`` that ``test_source`` calls (in evaluation order)."""
    wanted = set(candidates)
    for node in ast.walk(parse(test_source, "the test")):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in wanted:
            return node.func.id
    return None


def stub(code: str, entry: str, docstring: str, keep: Sequence[str] = ()) -> str:
    """A starter module: the reference's top-level imports, the classes named in ``keep`` verbatim,
    and ``entry`` with its signature, ``docstring`` and a body that raises NotImplementedError."""
    module = parse(code, "the reference solution")
    parts: list[str] = []
    for stmt in module.body:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            parts.append(ast.unparse(stmt))
        elif isinstance(stmt, ast.ClassDef) and stmt.name in keep:
            parts.append(ast.get_source_segment(code, stmt) or ast.unparse(stmt))
    func = next(
        (s for s in module.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name == entry), None
    )
    if func is None:
        raise SourceError(f"the reference solution defines no function '{entry}'")
    doc = docstring.strip().replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    keyword = "async def" if isinstance(func, ast.AsyncFunctionDef) else "def"
    returns = f" -> {ast.unparse(func.returns)}" if func.returns else ""
    parts.append(
        f"{keyword} {entry}({ast.unparse(func.args)}){returns}:\n"
        f"{textwrap.indent(chr(34) * 3 + doc + chr(34) * 3, '    ')}\n"
        "    raise NotImplementedError\n"
    )
    return "\n\n".join(p.rstrip() for p in parts) + "\n"


@dataclass(frozen=True)
class CheckSplit:
    """The asserts of ``check(candidate)`` when its body is only asserts, else ``None`` (run whole)."""

    asserts: tuple[str, ...] | None


def split_check(test_code: str) -> CheckSplit:
    """Split HumanEval's ``def check(candidate)`` into its asserts, one test each, when its body is
    asserts only (a docstring and ``pass`` allowed); otherwise the whole check stays one test,
    because statements between asserts may build state the asserts read."""
    module = parse(test_code, "the test code")
    check = next((s for s in module.body if isinstance(s, ast.FunctionDef) and s.name == "check"), None)
    if check is None:
        raise SourceError("the test code defines no 'check(candidate)' function")
    body = [s for s in check.body if not (isinstance(s, ast.Pass) or _is_docstring(s))]
    if not body or not all(isinstance(s, ast.Assert) for s in body):
        return CheckSplit(None)
    return CheckSplit(tuple(ast.get_source_segment(test_code, s) or ast.unparse(s) for s in body))


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def doctest_asserts(source: str, entry: str) -> list[str]:
    """``>>> f(x)`` / ``y`` examples in the docstring of ``entry`` as ``assert (f(x)) == (y)``;
    examples whose source or expected output is not a single Python expression (printing,
    exceptions) are left out."""
    func = next(
        (s for s in parse(source, "the prompt").body if isinstance(s, ast.FunctionDef) and s.name == entry), None
    )
    docstring = ast.get_docstring(func) if func is not None else None
    try:
        examples = doctest.DocTestParser().get_examples(docstring or "")
    except ValueError:
        return []
    out: list[str] = []
    for ex in examples:
        source, want = ex.source.strip(), ex.want.strip()
        if not want or not _is_expression(source) or not _is_expression(want):
            continue
        out.append(f"assert ({source}) == ({want})")
    return out


def _is_expression(text: str) -> bool:
    try:
        parse_python(text, mode="eval")
    except SyntaxError:
        return False
    return True
