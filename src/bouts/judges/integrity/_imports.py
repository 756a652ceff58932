"""Import paths the judges do not read: the class behind the ``unreviewed-code`` line in solution code.

The judges read the submission's ``*.py`` files. Python can also import from an archive on
``sys.path`` (``zipimport``: a ``.zip``, ``.egg``, ``.whl`` or any file that is a zip), through a
finder or loader the code defines or builds (``importlib.abc``, ``FileFinder`` with other suffixes,
a ``*_SUFFIXES`` list extended), from a code object built by hand, or by running text (``exec``,
``eval``, ``compile``, an unpickler that calls what the data names). Each is a way to run code no
judge reads, so each is the bright line, whatever the spelling: names resolve through imports and
``getattr(sys, "path")`` is ``sys.path`` (literals are folded first, ``_fold``). A ``sys.path`` or
``__path__`` entry is accepted only where it is a directory of the submission whose ``.py`` files
are read (a path built from ``__file__`` or the working directory, not climbing out, its last
segment without a suffix); anything else (an archive, an absolute or unknown place) is flagged.

Red team (issue 36): the example's hard-coded price moved into a ``.zip`` on ``sys.path`` and
imported with ``importlib.import_module`` lifted the low anchor from 27 to 53 with no finding.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from bouts.judges.integrity._pathexpr import PathReader

_PATH_CALLS = {
    "sys.path.insert": 1, "sys.path.append": 0, "sys.path.extend": 0, "sys.path.__setitem__": 1,
    "sys.path.__iadd__": 0, "site.addsitedir": 0, "sys.path_importer_cache.__setitem__": 1,
}  # fmt: skip
"""Calls that add a place to import from, with the index of the argument that names it."""
_RUNS_TEXT = frozenset({"exec", "eval", "compile", "builtins.exec", "builtins.eval", "builtins.compile"})
_CODE_BUILDERS = frozenset({
    "importlib.machinery.FileFinder", "importlib.machinery.FileFinder.path_hook", "importlib.machinery.ModuleSpec",
    "importlib.machinery.PathFinder.find_spec", "importlib.util.LazyLoader", "importlib.util.source_hash",
    "types.CodeType", "types.FunctionType", "pickle.load", "pickle.loads", "pickle.Unpickler", "_pickle.load",
    "_pickle.loads", "shelve.open", "dill.load", "dill.loads", "cloudpickle.load", "cloudpickle.loads",
    "yaml.unsafe_load", "yaml.full_load", "jsonpickle.decode", "pkgutil.get_importer",
})  # fmt: skip
"""Calls that build a finder, a loader or a code object, or turn data into calls (unpickling)."""
_UNPICKLERS = frozenset({
    "pickle.load", "pickle.loads", "pickle.Unpickler", "_pickle.load", "_pickle.loads", "dill.load", "dill.loads",
    "cloudpickle.load", "cloudpickle.loads", "yaml.unsafe_load", "yaml.full_load", "jsonpickle.decode",
})  # fmt: skip
"""Calls that turn data into calls: of the caller's data, a security matter."""
_IMPORT_MACHINERY = frozenset({"importlib.abc", "importlib.machinery", "importlib._bootstrap",
                               "importlib._bootstrap_external", "zipimport", "marshal", "runpy", "imp"})
_SUFFIX_LISTS = frozenset({"SOURCE_SUFFIXES", "BYTECODE_SUFFIXES", "EXTENSION_SUFFIXES", "all_suffixes"})
_MUTATORS = frozenset({"append", "extend", "insert", "__setitem__", "__iadd__"})

Dotted = Callable[[ast.AST], "str | None"]


def import_hits(
    node: ast.AST, dotted: Dotted, paths: PathReader, runs_data: Callable[[ast.AST], bool] | None = None
) -> Iterator[str]:
    """Why ``node`` makes Python import or run code from a place no judge reads (one reason per hit).

    ``runs_data`` says whether what ``eval``/``exec``/an unpickler is given is the caller's data
    (``_inputs.runs_callers_data``): running that is a security matter (the security judge's), not
    code hidden from review; text built from the submission's own literals or files stays the line."""
    if isinstance(node, ast.Call):
        callee = dotted(node.func) or ""
        where = _PATH_CALLS.get(callee)
        if where is None and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS \
                and _is_module_path(node.func.value, dotted):
            where = 1 if node.func.attr in ("insert", "__setitem__") else 0
        if where is not None:
            args = node.args[where:where + 1]
            if not args or not _reviewed_dirs(args[0], paths, many=callee.endswith("extend")):
                yield f"adds a place the judges do not read to the import path with {callee or 'a __path__ edit'}"
        callers = runs_data is not None and bool(node.args) and runs_data(node.args[0])
        if callee in _RUNS_TEXT and not callers:
            yield f"runs text as code with {callee}(): no judge reads it as code"
        if callee in _CODE_BUILDERS and not (callee in _UNPICKLERS and callers):
            yield f"builds an import finder, a loader or code by hand with {callee}"
        if callee.rsplit(".", 1)[-1] in ("import_module", "__import__") and node.args \
                and isinstance(node.args[0], ast.Constant) and str(node.args[0].value) in _IMPORT_MACHINERY:
            yield f"imports the import machinery {node.args[0].value!r} by name"
        if isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS \
                and (dotted(node.func.value) or "").rsplit(".", 1)[-1] in _SUFFIX_LISTS:
            yield "adds a file suffix the import system loads as code"
    elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            base = target.value if isinstance(target, ast.Subscript) else target
            name = dotted(base) or ""
            if (name == "sys.path" or _is_module_path(base, dotted)) and node.value is not None \
                    and not _reviewed_dirs(node.value, paths, many=not isinstance(target, ast.Subscript)):
                yield f"sets the import path ({name or '__path__'}) to a place the judges do not read"
            elif name.rsplit(".", 1)[-1] in _SUFFIX_LISTS:
                yield "changes the file suffixes the import system loads as code"
            elif name.endswith(".__code__") or name == "__code__":
                yield "replaces a function's code object"
    elif isinstance(node, ast.ClassDef):
        for base in node.bases:
            name = dotted(base) or ""
            if name.startswith(("importlib.abc.", "importlib.machinery.", "importlib._bootstrap")) \
                    or name in ("zipimport.zipimporter",):
                yield f"defines an import finder or loader ({name})"


def _is_module_path(node: ast.AST, dotted: Dotted) -> bool:
    """``__path__`` or ``pkg.__path__``: a package's own import path."""
    name = dotted(node) or ""
    return name == "__path__" or name.endswith(".__path__")


def _reviewed_dirs(node: ast.expr, paths: PathReader, many: bool) -> bool:
    """Whether ``node`` names only directories of the submission (``many``: a list of them)."""
    if many:
        if isinstance(node, ast.List | ast.Tuple) and not any(isinstance(e, ast.Starred) for e in node.elts):
            return all(_reviewed_dir(e, paths) for e in node.elts)
        return False
    return _reviewed_dir(node, paths)


def _reviewed_dir(node: ast.expr, paths: PathReader) -> bool:
    value = paths.value(node)
    if value is None or value.anchor not in ("root", "rel"):
        return False
    anchor, parts = paths.located(value)
    if anchor != "root" or parts[:1] == [".."] or any("*" in p for p in parts):
        return False
    last = parts[-1] if parts else ""
    return "." not in last  # "vendor.zip", "lib.egg", "blob.whl": an archive, never a package directory
