"""Paths built in code, read as the paths they spell: ``integrity.off-limits-path`` whatever the spelling.

``open("../tests/hidden/x")`` and ``Path(__file__).resolve().parent.parent / "tests" / "hidden"``
reach the same file, and so do ``os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
"tests")``, ``"/".join(["..", "tests"])``, ``f"{HERE}/../tests"`` and ``ROOT = Path(__file__).parents[1];
ROOT / "tests"``. Each is read as a path relative to the submission's ``code/`` root (which is the
grader's workspace: the challenge's tests are copied into its ``tests/``), through ``pathlib`` and
``os.path`` operations, ``+``, f-strings, ``str.join`` and names bound once (``_scopes``), and is
off-limits when it

- climbs above the root (``..`` past it);
- reaches the root's ``tests/`` (the grader's visible *and hidden* tests at run time), the
  challenge's ``reference/`` or ``anchors/``, or ``tests/hidden``/``tests/adversarial`` anywhere;
- lists the root recursively (``glob("../**")`` from a package, ``Path.cwd().rglob("*")``,
  ``os.walk(ROOT)``): a walk of the workspace reads the grader's tests too.

A path inside the package (``Path(__file__).parent / "data" / "rates.csv"``) or naming the root
itself (``Path(__file__).parent.parent``, to read ``pyproject.toml``) is fine. A relative string on
its own is read against the module's own directory (the lenient reading, docs/integrity.md).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Literal

from bouts.judges.integrity._scopes import Scopes

Anchor = Literal["root", "abs", "rel", "?"]
UNKNOWN = "\x00"
"""A piece of a path that cannot be read statically."""
_HIDDEN = re.compile(r"(^|[/\\])tests[/\\](hidden|adversarial)([/\\]|$)")
_CHALLENGE_DIRS = re.compile(r"(^|[/\\])(reference|anchors)[/\\]")
_GRADER_TESTS = re.compile(r"^/workspace/+tests(/|$)")
_MAX_HOPS = 40
"""Names followed through their bindings before giving up (``a = b; b = c; ...``)."""

_JOIN = frozenset({"os.path.join", "posixpath.join", "pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath",
                   "pathlib.PurePosixPath", "Path", "PurePath", "PosixPath", "PurePosixPath"})
_SAME = frozenset({"os.path.abspath", "os.path.realpath", "os.path.normpath", "os.path.normcase", "os.fspath",
                   "str", "os.path.expanduser", "posixpath.abspath", "posixpath.normpath", "open", "io.open",
                   "os.open", "os.listdir", "os.scandir", "glob.glob", "glob.iglob", "os.stat", "os.path.exists",
                   "os.path.isdir", "os.path.isfile", "os.access", "shutil.copytree", "shutil.copyfile",
                   "shutil.copy", "shutil.copy2"})
_DIRNAME = frozenset({"os.path.dirname", "posixpath.dirname"})
_CWD = frozenset({"os.getcwd", "os.getcwdb", "pathlib.Path.cwd", "Path.cwd", "pathlib.PurePath.cwd"})
_SAME_METHODS = frozenset({"resolve", "absolute", "expanduser", "as_posix", "__str__", "with_suffix", "iterdir",
                           "read_text", "read_bytes", "open", "exists", "is_dir", "is_file", "stat", "lstat",
                           "readlink", "samefile"})
_SEPARATORS = frozenset({"os.sep", "os.path.sep", "posixpath.sep"})


@dataclass(frozen=True)
class PathValue:
    """A path as far as it can be read: where it starts and the text after that."""

    anchor: Anchor
    """``root``: relative to the submission's ``code/`` (``__file__``, the working directory);
    ``abs``: absolute; ``rel``: a relative string, read where it is used; ``?``: after something unknown."""
    text: str
    built: bool = False
    """Composed (from ``__file__``, the working directory, a join or a concatenation), not one literal."""


class PathReader:
    """Reads the path expressions of one module (memoised: each node is read once)."""

    def __init__(self, scopes: Scopes, rel: str) -> None:
        self.scopes = scopes
        self.rel = rel
        self.module_dir = rel.rsplit("/", 1)[0] if "/" in rel else ""
        self._memo: dict[int, PathValue | None] = {}
        self._names: dict[int, PathValue | None] = {}
        self._busy: set[int] = set()

    def value(self, node: ast.AST, hops: int = 0) -> PathValue | None:
        key = id(node)
        if key in self._memo:
            return self._memo[key]
        if key in self._busy or hops > _MAX_HOPS:
            return None
        self._busy.add(key)
        try:
            found = self._value(node, hops)
        except RecursionError:
            found = None
        finally:
            self._busy.discard(key)
        self._memo[key] = found
        return found

    def _value(self, node: ast.AST, hops: int) -> PathValue | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if "://" in node.value:
                return None
            return PathValue("abs" if node.value.startswith("/") else "rel", node.value)
        if isinstance(node, ast.Name):
            return self._name(node, hops)
        if isinstance(node, ast.BinOp):
            left, right = self.value(node.left, hops), self.value(node.right, hops)
            if isinstance(node.op, ast.Div) and (left or right):
                return _join(left, right)
            if isinstance(node.op, ast.Add) and (left or right):
                return _concat(left, right)
            if isinstance(node.op, ast.Mod) and left is not None and left.anchor != "?" and "%s" in left.text:
                args = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
                return _format(left, [self.value(a, hops) for a in args], "%s")
            return None
        if isinstance(node, ast.JoinedStr):
            out: PathValue | None = PathValue("rel", "")
            for part in node.values:
                piece = self.value(part.value, hops) if isinstance(part, ast.FormattedValue) else self.value(part, hops)
                out = _concat(out, piece)
            return out
        if isinstance(node, ast.Attribute):
            if node.attr == "parent":
                return _parent(self.value(node.value, hops))
            return None
        if isinstance(node, ast.Subscript):
            base = node.value
            if isinstance(base, ast.Attribute) and base.attr == "parents" and isinstance(node.slice, ast.Constant) \
                    and isinstance(node.slice.value, int) and 0 <= node.slice.value < 64:
                out = self.value(base.value, hops)
                for _ in range(node.slice.value + 1):
                    out = _parent(out)
                return out
            return None
        if isinstance(node, ast.Call):
            return self._call(node, hops)
        return None

    def _name(self, node: ast.Name, hops: int) -> PathValue | None:
        if node.id == "__file__":
            return PathValue("root", self.rel, built=True)
        bound = self.scopes.lookup(node)
        if not isinstance(bound, list) or not bound:
            return None
        key = id(bound)  # read once per binding list, not per use (linear however often it is rebound)
        if key not in self._names:
            self._names[key] = None
            if not any(element for _, element in bound):
                values = {self.value(expr, hops + 1) for expr, _ in bound}
                self._names[key] = values.pop() if len(values) == 1 else None
        return self._names[key]

    def _call(self, node: ast.Call, hops: int) -> PathValue | None:
        name = self.scopes.dotted(node.func) or ""
        args = [v for a in node.args for v in self._arg(a, hops)]
        if name in _CWD:
            return PathValue("root", "", built=True)
        if name in _JOIN:
            out = args[0] if args else PathValue("rel", ".")
            for nxt in args[1:]:
                out = _join(out, nxt)
            return out if out is None or len(args) < 2 else PathValue(out.anchor, out.text, True)
        if name in _DIRNAME and args:
            return _parent(args[0])
        if name in _SAME and args:
            root = next((kw.value for kw in node.keywords if kw.arg in ("root_dir", "dir_fd")), None)
            return _join(self.value(root, hops), args[0]) if root is not None else args[0]
        if not isinstance(node.func, ast.Attribute):
            return None
        method = node.func.attr
        receiver = node.func.value
        if method == "join" and node.args and isinstance(node.args[0], ast.List | ast.Tuple):
            sep = receiver.value if isinstance(receiver, ast.Constant) else None
            if sep in ("/", "\\") or self.scopes.dotted(receiver) in _SEPARATORS:
                out = PathValue("rel", "")
                for i, part in enumerate(node.args[0].elts):
                    out = _concat(out if i == 0 else _concat(out, PathValue("rel", "/")), self.value(part, hops))
                return None if out is None else PathValue(out.anchor, out.text, True)
            return None
        if method == "format" and isinstance(receiver, ast.Constant) and isinstance(receiver.value, str) \
                and "{}" in receiver.value:
            return _format(PathValue("rel", receiver.value), args, "{}")
        base = self.value(receiver, hops)
        if base is None:
            return None
        if method == "joinpath":
            for nxt in args:
                base = _join(base, nxt)
            return base
        if method == "with_name" and args:
            return _join(_parent(base), args[0])
        if method == "glob":
            return _join(base, args[0] if args else None)
        if method == "rglob":
            return _join(base, _concat(PathValue("rel", "**/"), args[0] if args else None))
        if method == "cwd":
            return PathValue("root", "", built=True)
        return base if method in _SAME_METHODS else None

    def _arg(self, node: ast.expr, hops: int) -> list[PathValue | None]:
        """The values an argument passes: one, or each element of a starred list or tuple literal
        (``*["te" + "sts", "hid" + "den"]``, also through a name bound once to one); an unreadable
        starred argument is one unknown piece."""
        if not isinstance(node, ast.Starred):
            return [self.value(node, hops)]
        seq = node.value
        if isinstance(seq, ast.Name):
            bound = self.scopes.lookup(seq)
            if isinstance(bound, list) and len(bound) == 1 and not bound[0][1]:
                seq = bound[0][0]
        if isinstance(seq, ast.List | ast.Tuple) and not any(isinstance(e, ast.Starred) for e in seq.elts):
            return [self.value(e, hops) for e in seq.elts]
        return [None]

    def located(self, value: PathValue) -> tuple[Anchor, list[str]]:
        """The anchor and normalised segments, a relative string read against the module's directory."""
        if value.anchor == "rel":
            return "root", _norm(f"{self.module_dir}/{value.text}")
        return value.anchor, _norm(value.text)

    def verdict(self, node: ast.AST) -> str | None:
        """Why the path ``node`` spells is off-limits, or None."""
        value = self.value(node)
        if value is None:
            return None
        anchor, parts = self.located(value)
        if anchor == "root" and parts[:1] == [".."]:
            return "builds a path that climbs out of the submission"
        text = "/".join(parts)
        # One literal is a path only if it climbs (``"../tests"``): "see tests/README" is prose.
        composed = value.built or ".." in _norm(value.text)[:1]
        if not composed:
            return None
        if anchor == "root" and parts[:1] == ["tests"]:
            return f"builds a path into the grader's tests directory {_show(text)}"
        star = next((i for i, p in enumerate(parts) if "*" in p), None)
        if anchor == "root" and star == 0 and "**" in "/".join(parts):
            return "lists the whole workspace recursively (the grader's tests included)"
        if not value.built:
            return None  # the string rules of _code read the rest of a single literal
        if anchor == "abs" and _GRADER_TESTS.search("/" + text):
            return f"builds a path into the grader's tests directory {_show('/' + text)}"
        if anchor == "abs" and parts[:1] == ["proc"]:
            return f"builds a path into /proc {_show('/' + text)}"
        if _HIDDEN.search(text) or _CHALLENGE_DIRS.search(text + "/") or _HIDDEN.search(value.text):
            return f"builds an off-limits path {_show(text)}"
        return None

    def walks_root(self, node: ast.Call) -> bool:
        """``os.walk(ROOT)``: a recursive walk starting at the workspace root (or above it)."""
        if self.scopes.dotted(node.func) != "os.walk" or not node.args:
            return False
        value = self.value(node.args[0])
        if value is None or not value.built:
            return False
        anchor, parts = self.located(value)
        return anchor == "root" and (not parts or parts[0] == "..")


def _show(text: str) -> str:
    return repr(text.replace(UNKNOWN, "?"))


def _norm(text: str) -> list[str]:
    out: list[str] = []
    for seg in text.replace("\\", "/").split("/"):
        if seg in ("", "."):
            continue
        if seg == ".." and out and out[-1] != "..":
            out.pop()
        else:
            out.append(seg)
    return out


def _join(a: PathValue | None, b: PathValue | None) -> PathValue | None:
    if b is None:
        return None if a is None else PathValue(a.anchor, f"{a.text}/{UNKNOWN}", True)
    if b.anchor in ("abs", "root") or a is None:
        return b if b.anchor != "rel" else PathValue("?", b.text, True)
    return PathValue(a.anchor, f"{a.text}/{b.text}", True)


def _concat(a: PathValue | None, b: PathValue | None) -> PathValue | None:
    if a is None and b is None:
        return None
    if a is None:
        return PathValue("?", UNKNOWN + b.text, True) if b is not None else None
    if b is None:
        return PathValue(a.anchor, a.text + UNKNOWN, True)
    if a.anchor == "rel" and not a.text:
        return b  # the start of an f-string or a join
    return PathValue(a.anchor, a.text + b.text, True)


def _parent(a: PathValue | None) -> PathValue | None:
    """``.parent``/``dirname``: lexical, so the parent of a root-anchored path at the root is ``..``."""
    if a is None or a.anchor == "?":
        return None
    parts = _norm(a.text)
    if a.anchor == "rel":
        return PathValue("rel", "/".join(parts[:-1]) or ".", a.built)
    if parts and parts[-1] != "..":
        parts = parts[:-1]
    elif a.anchor == "root":
        parts = [*parts, ".."]
    return PathValue(a.anchor, "/" * (a.anchor == "abs") + "/".join(parts), True)


def _format(template: PathValue, args: list[PathValue | None], mark: str) -> PathValue | None:
    pieces = template.text.split(mark)
    if len(pieces) - 1 != len(args):
        return None
    out: PathValue | None = PathValue(template.anchor, pieces[0])
    for arg, piece in zip(args, pieces[1:], strict=True):
        out = _concat(_concat(out, arg), PathValue("rel", piece))
    return out
