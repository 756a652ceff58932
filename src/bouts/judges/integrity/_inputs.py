"""Whether a value comes from a function's inputs: the small data flow two rules share. Pure.

- A digest of an input compared with a constant (``zlib.crc32(price.encode()) == 1735064…``) is an
  answer keyed on one exact input whose value the code does not show (``_hardcoded``).
- ``eval``/``exec``/unpickling of a value that comes from the function's parameters runs the
  caller's data, a security matter; of a value built from the submission's own literals or files, it
  runs code no judge reads (``_imports``).

A name stands for every value it is bound to (``_scopes``); a parameter is an input.
"""

from __future__ import annotations

import ast

from bouts._pyast import parse
from bouts.judges.integrity._scopes import PARAM, Scopes

MAX_HOPS = 8


def from_inputs(node: ast.AST, scopes: Scopes, hops: int = 0, seen: set[int] | None = None) -> bool:
    """Whether ``node``'s value can come from a parameter of the function it is in (through names
    bound from one, at most ``MAX_HOPS`` bindings deep)."""
    seen = set() if seen is None else seen
    for sub in ast.walk(node):
        if not isinstance(sub, ast.Name) or not isinstance(sub.ctx, ast.Load) or id(sub) in seen:
            continue
        seen.add(id(sub))
        bound = scopes.lookup(sub)
        if bound == PARAM:
            return True
        if isinstance(bound, list) and hops < MAX_HOPS \
                and any(from_inputs(value, scopes, hops + 1, seen) for value, _ in bound):  # fmt: skip
            return True
    return False


_DIGEST_CALLS = frozenset({"zlib.crc32", "zlib.adler32", "binascii.crc32", "binascii.crc_hqx", "hash",
                           "hashlib.new", "hashlib.md5", "hashlib.sha1", "hashlib.sha224", "hashlib.sha256",
                           "hashlib.sha384", "hashlib.sha512", "hashlib.blake2b", "hashlib.blake2s",
                           "hashlib.sha3_256", "hashlib.sha3_512"})  # fmt: skip
_DIGEST_METHODS = frozenset({"hexdigest", "digest", "intdigest"})


def digest_of_input(node: ast.AST, scopes: Scopes) -> bool:
    """``zlib.crc32(x.encode())``, ``hashlib.md5(x).hexdigest()``, ``hash(x)`` (also masked with ``&``
    or passed through ``int``/``str``) where ``x`` comes from the function's inputs."""
    while True:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd):
            node = node.left if isinstance(node.right, ast.Constant) else node.right
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("int", "str") \
                and len(node.args) == 1:  # fmt: skip
            node = node.args[0]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in _DIGEST_METHODS and not node.args:  # fmt: skip
            node = node.func.value
        else:
            break
    if not isinstance(node, ast.Call):
        return False
    name = scopes.dotted(node.func) or _imported_attr(node.func)
    if name not in _DIGEST_CALLS and not name.startswith("hashlib."):
        return False
    return any(from_inputs(a, scopes) for a in node.args)


_SUBMISSION_NAMES = frozenset({"__file__", "__spec__", "__loader__", "__path__", "__cached__"})


def runs_callers_data(node: ast.AST, scopes: Scopes) -> bool:
    """Whether ``node`` (what ``eval``/``exec``/an unpickler is given) is the caller's data: it comes
    from the function's parameters, and nothing of the submission's own goes into it (no literal, no
    module location, so no file of the submission). Text built from literals or read from the
    submission's files is code the submission wrote where no judge reads it."""
    return from_inputs(node, scopes) and not _from_submission(node, scopes, 0, set())


_SETTINGS_ONLY = frozenset({"open", "decode", "encode", "read_text", "read_bytes", "loads", "load"})
"""Calls whose arguments after the first (and keywords) are settings (a mode, an encoding), not data."""


def _value_parts(node: ast.AST) -> list[ast.AST]:
    """The nodes whose content becomes ``node``'s value: a call's settings (``open(p, "rb")``'s mode,
    ``.decode("utf-8")``'s encoding) are not."""
    out: list[ast.AST] = []
    todo = [node]
    while todo:
        n = todo.pop()
        out.append(n)
        if isinstance(n, ast.Call):
            name = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
            if name in _SETTINGS_ONLY:
                todo.append(n.func)
                todo += n.args[:1] if name not in ("decode", "encode", "read_text", "read_bytes") else []
                continue
        todo += list(ast.iter_child_nodes(n))
    return out


def _from_submission(node: ast.AST, scopes: Scopes, hops: int, seen: set[int]) -> bool:
    for sub in _value_parts(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str | bytes):
            return True
        if not isinstance(sub, ast.Name) or id(sub) in seen:
            continue
        seen.add(id(sub))
        if sub.id in _SUBMISSION_NAMES:
            return True
        bound = scopes.lookup(sub)
        if isinstance(bound, list):
            if hops >= MAX_HOPS or any(_from_submission(v, scopes, hops + 1, seen) for v, _ in bound):
                return True
        elif bound is None and sub.id not in scopes.aliases and not _builtin(sub.id):
            return True  # a global set elsewhere: not shown to be the caller's
    return False


def _builtin(name: str) -> bool:
    import builtins

    return hasattr(builtins, name)


def _imported_attr(func: ast.expr) -> str:
    """``__import__("zlib").crc32`` / ``importlib.import_module("zlib").crc32`` as ``zlib.crc32``."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call) and len(func.value.args) == 1:
        inner = func.value
        called = inner.func.attr if isinstance(inner.func, ast.Attribute) else getattr(inner.func, "id", "")
        arg = inner.args[0]
        if called in ("__import__", "import_module") and isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return f"{arg.value}.{func.attr}"
    return ""


def constant(node: ast.AST) -> bool:
    """A literal, or a container of literals."""
    if isinstance(node, ast.Constant):
        return node.value is not None and not isinstance(node.value, bool)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) and all(constant(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return bool(node.keys) and all(k is not None and constant(k) for k in node.keys)
    return False


_CODE_NODES = (
    ast.If,
    ast.For,
    ast.While,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Lambda,
    ast.Return,
    ast.Import,
    ast.ImportFrom,
    ast.Try,
    ast.With,
)


def is_python_code(text: str) -> bool:
    """Whether ``text`` is Python with something to run in it (a branch, a loop, a definition, a
    lambda, an import): what ``exec``/``eval`` of the caller's data could be handed from elsewhere in
    the submission. Prose, a message, a format string, JSON or ``key = value`` lines are not."""
    if (
        len(text) < 8
        or len(text) > 200_000
        or not any(
            w in text for w in ("if", "for", "while", "def", "class", "lambda", "return", "import", "try", "with")
        )
    ):
        return False
    try:
        tree = parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return any(isinstance(n, _CODE_NODES) for n in ast.walk(tree))
