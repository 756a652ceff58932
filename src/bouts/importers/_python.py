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
    exceptions) are left out.

    The assert is rebuilt from the parsed expressions (``ast.unparse``), never pasted from the
    text: a comment after the example (HumanEval/32's ``# f(x) = 1 + 2x``) would otherwise
    comment out the closing parenthesis."""
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
        expr, value = _expression(source), _expression(want)
        if not want or expr is None or value is None:
            continue
        out.append(f"assert ({ast.unparse(expr)}) == ({ast.unparse(value)})")
    return out


def _expression(text: str) -> ast.expr | None:
    try:
        tree = parse_python(text, mode="eval")
    except SyntaxError:
        return None
    return tree.body if isinstance(tree, ast.Expression) else None


def first_standalone_assert(test_code: str) -> str | None:
    """The first top-level ``assert`` of ``check(candidate)`` that reads no local of ``check``
    (so it runs on its own after ``candidate = <entry>``), or ``None``."""
    module = parse(test_code, "the test code")
    check = next((s for s in module.body if isinstance(s, ast.FunctionDef) and s.name == "check"), None)
    if check is None:
        return None
    local = {
        n.id for s in check.body if not isinstance(s, ast.Assert) for n in ast.walk(s)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    } | {
        a.asname or a.name.split(".")[0] for s in ast.walk(check) if isinstance(s, ast.Import | ast.ImportFrom)
        for a in s.names
    }  # fmt: skip
    for stmt in check.body:
        if isinstance(stmt, ast.Assert) and not (_loaded(stmt) & local):
            return ast.get_source_segment(test_code, stmt) or ast.unparse(stmt)
    return None


def helpers_for(test_code: str, body: str) -> str:
    """The parts of ``test_code`` that ``body`` needs to run on its own: every top-level import,
    and each top-level definition ``body`` reads (transitively), in source order.

    A visible test that calls ``check(...)`` or a helper of the dataset's test code gets that
    helper, and nothing else of the hidden test code (HumanEval/38, /50)."""
    module = parse(test_code, "the test code")
    defines: dict[str, list[int]] = {}
    for i, stmt in enumerate(module.body):
        for name in _defined_by(stmt):
            defines.setdefault(name, []).append(i)
    keep = {i for i, s in enumerate(module.body) if isinstance(s, ast.Import | ast.ImportFrom)}
    todo = list(_loaded(parse(body, "the test")))
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for i in defines.get(name, []):
            if i not in keep:
                keep.add(i)
                todo += _loaded(module.body[i])
    parts = [ast.get_source_segment(test_code, module.body[i]) or ast.unparse(module.body[i]) for i in sorted(keep)]
    return "\n\n\n".join(parts)


def prompt_helpers(prompt_source: str, entry: str, used: str) -> str:
    """The prompt's own definitions (and its imports) that the test code ``used`` reads, the entry
    point left out: written into the test module after ``from solution import *``, so a test calls
    the prompt's ``encode_cyclic`` or ``poly``, not one a submission redefined. A completion that
    made ``encode_cyclic`` the identity passed ``decode_cyclic`` with ``return s`` (HumanEval/38, /50,
    /32; red team 2026-12-06). Empty when the test reads none of them."""
    module = parse(prompt_source, "the prompt")
    module.body = [s for s in module.body if entry not in _defined_by(s)]
    without_entry = ast.unparse(module)
    defined = {n for s in module.body for n in _defined_by(s)}
    if not defined & _loaded(parse(used, "the test")):
        return ""
    return helpers_for(without_entry, used)


def _defined_by(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [stmt.name]
    if isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    return []


def _loaded(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
