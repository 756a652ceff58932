"""Bright lines read from the solution's syntax tree: code whose only use is to tell a test run
from real use, to reach into the test framework, to read the caller's frames, or to open files
the solution has no business with.

Names are resolved through the module's imports (``import sys as s; s._getframe`` is still
``sys._getframe``). Dynamic access (``getattr(sys, "_get" + "frame")``, ``exec`` of a string) is
out of reach of any static reading; docs/integrity.md lists the limits.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator

from bouts.judges.integrity._tree import Hit, SourceFile

ENV_DETECT = "integrity.test-env-detection"
HOOKS = "integrity.test-framework-hook"
INTROSPECTION = "integrity.frame-introspection"
OFF_LIMITS = "integrity.off-limits-path"

# Environment variables that exist to tell a CI or test run apart; read only behind os.environ.
_ENV_NAMES = frozenset(
    {"CI", "GITHUB_ACTIONS", "GITLAB_CI", "JENKINS_URL", "BUILDKITE", "TOX_ENV_NAME", "HOSTNAME", "container"}
)
# Names that mean the test runner wherever they appear as a string.
_TEST_ENV_STRING = re.compile(r"_?PYTEST_\w*|BOUTS_\w*|PYTEST_CURRENT_TEST")
_TEST_MODULES = frozenset({"pytest", "_pytest", "py.test", "unittest", "doctest"})
_FRAMEWORK_ROOTS = frozenset({"pytest", "_pytest", "unittest", "builtins", "__builtins__", "doctest"})
_CONTAINER_PROBES = ("/.dockerenv", "/proc/self/cgroup", "/proc/1/cgroup", "/run/.containerenv", "/proc/self/mountinfo")
_HOST_CALLS = frozenset({"socket.gethostname", "socket.getfqdn", "platform.node", "platform.uname", "os.uname"})
_FRAME_CALLS = frozenset({
    "sys._getframe", "sys._current_frames", "inspect.currentframe", "inspect.stack", "inspect.getouterframes",
    "inspect.getinnerframes", "inspect.trace", "gc.get_objects", "gc.get_referrers", "gc.get_referents",
    "sys.settrace", "sys.setprofile", "threading.settrace", "threading.setprofile",
})
_FRAME_ATTRS = frozenset({"f_back", "f_locals", "f_globals", "tb_frame", "gi_frame", "cr_frame"})
_PATH_BUILDERS = frozenset({"join", "Path", "PurePath", "PosixPath"})
_IMPORT_HOOKS = frozenset({"sys.meta_path", "sys.path_hooks"})
_HIDDEN = re.compile(r"(^|[/\\])tests[/\\](hidden|adversarial)([/\\]|$)")
_CHALLENGE_DIRS = re.compile(r"(^|[/\\])(reference|anchors)[/\\]")


def code_hits(src: SourceFile) -> list[Hit]:
    """Every bright-line hit in one parsed solution module, one per (rule, line)."""
    if src.tree is None:
        return []
    aliases = _aliases(src.nodes)
    depth = src.rel.count("/")
    argv = "argv" in src.text  # the sys.argv probe walks statements; skip it when it cannot match
    seen: set[tuple[str, int | None]] = set()
    hits = []
    for node in src.nodes:
        for rule, what in _check(node, aliases, depth, argv):
            line = getattr(node, "lineno", None)
            if (rule, line) not in seen:
                seen.add((rule, line))
                code = src.line(line)
                hits.append(Hit(rule, line, f"{what}: {code}", f"{rule}:{code}"))
    return hits


def _check(node: ast.AST, aliases: dict[str, str], depth: int, argv: bool) -> Iterator[tuple[str, str]]:
    name = _dotted(node, aliases)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
        if _TEST_ENV_STRING.fullmatch(text):
            yield ENV_DETECT, f"names the test runner's environment variable {text!r}"
        if any(p in text for p in _CONTAINER_PROBES):
            yield ENV_DETECT, "probes for a container or sandbox"
        elif "://" not in text:
            if _HIDDEN.search(text) or _CHALLENGE_DIRS.search(text) or text.startswith("/proc/"):
                yield OFF_LIMITS, f"names an off-limits path {text!r}"
            elif "/" in text or "\\" in text:
                yield from _path_escape(node, aliases, depth)
    elif isinstance(node, ast.Call):
        callee = _dotted(node.func, aliases) or ""
        args = [a.value for a in node.args if isinstance(a, ast.Constant)]
        if callee in {"os.getenv", "os.environ.get", "os.environ.pop", "os.environ.setdefault"} and (
            set(args) & _ENV_NAMES
        ):
            yield ENV_DETECT, "reads a CI/test environment variable"
        if callee in _HOST_CALLS:
            yield ENV_DETECT, "reads the host name"
        if callee in _FRAME_CALLS:
            yield INTROSPECTION, f"calls {callee}"
        if callee in {"setattr", "delattr"} and node.args and _patches_framework(node.args[0], aliases):
            yield HOOKS, f"patches {_dotted(node.args[0], aliases)} with {callee}"
        if callee.rsplit(".", 1)[0] in _IMPORT_HOOKS:
            yield HOOKS, "installs an import hook"
        if "patch" in callee.split(".") and node.args and _patches_framework(node.args[0], aliases):
            yield HOOKS, "patches the test framework or builtins with mock.patch"
        if callee.endswith("find_spec") and set(args) & _TEST_MODULES:
            yield ENV_DETECT, "checks for the test framework"
        yield from _path_escape(node, aliases, depth)
    if isinstance(node, ast.Compare | ast.Subscript | ast.Call):
        yield from _framework_probe(node, aliases)
    if isinstance(node, ast.stmt) and argv:
        yield from _argv_probe(node, aliases)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        yield from _path_escape(node, aliases, depth)
    if isinstance(node, ast.Attribute | ast.Subscript) and _file_parents(node) is not None:
        yield from _path_escape(node, aliases, depth)
    if isinstance(node, ast.Attribute):
        if node.attr in _FRAME_ATTRS:
            yield INTROSPECTION, f"reads frame attribute .{node.attr}"
        elif name in _FRAME_CALLS:
            yield INTROSPECTION, f"uses {name}"
        if isinstance(node.ctx, ast.Store | ast.Del) and _framework(name):
            yield HOOKS, f"assigns {name}"
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
        target = _dotted(node.value, aliases) or ""
        if target in {"__builtins__", "builtins.__dict__", "sys.modules"}:
            yield HOOKS, f"replaces an entry of {target}"
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("pytest_"):
        yield HOOKS, f"defines the pytest hook {node.name}() in solution code"


def _framework_probe(node: ast.AST, aliases: dict[str, str]) -> Iterator[tuple[str, str]]:
    """``"pytest" in sys.modules``, ``sys.modules.get("pytest")``, ``os.environ["CI"]``, ``"CI" in
    os.environ``: read from the node's own shape, so each node is looked at once (linear time)."""
    operands: list[ast.expr] = []
    if isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
    elif isinstance(node, ast.Subscript):
        operands = [node.value, node.slice]
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        operands = [node.func.value, *node.args]
    names = {_dotted(o, aliases) or "" for o in operands}
    names |= {n.rsplit(".", 1)[0] for n in names if n.endswith(".keys")}
    strings = {o.value for o in operands if isinstance(o, ast.Constant) and isinstance(o.value, str)}
    if "sys.modules" in names and strings & _TEST_MODULES:
        yield ENV_DETECT, "checks whether the test framework is loaded"
    if "os.environ" in names and strings & _ENV_NAMES:
        yield ENV_DETECT, "reads a CI/test environment variable"


def _argv_probe(stmt: ast.stmt, aliases: dict[str, str]) -> Iterator[tuple[str, str]]:
    """``any("pytest" in a for a in sys.argv)``: sys.argv and a pytest string in one statement.

    Statements are checked without descending into nested statements, so the cost stays linear."""
    names: set[str] = set()
    strings: list[str] = []
    for value in ast.iter_child_nodes(stmt):
        if isinstance(value, ast.expr):
            for n in ast.walk(value):
                if isinstance(n, ast.Attribute | ast.Name):
                    names.add(_dotted(n, aliases) or "")
                elif isinstance(n, ast.Constant) and isinstance(n.value, str):
                    strings.append(n.value)
    if names & {"sys.argv", "sys.orig_argv"} and any("pytest" in s or "py.test" in s for s in strings):
        yield ENV_DETECT, "inspects sys.argv for pytest"


def _path_escape(node: ast.AST, aliases: dict[str, str], depth: int) -> Iterator[tuple[str, str]]:
    """A path built to climb out of ``code/``: ``".." / ".."`` deeper than the file sits, a joined
    ``tests/hidden``, or ``Path(__file__).parents[n]`` above the submission's root."""
    parts = _path_parts(node, aliases)
    if parts is None:
        return
    joined = "/".join(parts)
    level = depth  # relative parts are read against the module's own directory (the lenient reading)
    for seg in joined.replace("\\", "/").split("/"):
        level += -1 if seg == ".." else (0 if seg in ("", ".", "?") else 1)
        if level < 0:
            yield OFF_LIMITS, "builds a path that climbs out of the submission"
            return
    if len(parts) > 1 and (_HIDDEN.search(joined) or _CHALLENGE_DIRS.search(joined + "/")):
        yield OFF_LIMITS, f"builds an off-limits path {joined!r}"


def _path_parts(node: ast.AST, aliases: dict[str, str]) -> list[str] | None:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        left, right = _path_parts(node.left, aliases), _path_parts(node.right, aliases)
        return (left or ["?"]) + (right or ["?"])
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Call) and (_dotted(node.func, aliases) or "").split(".")[-1] in _PATH_BUILDERS:
        parts = [p for a in node.args for p in (_path_parts(a, aliases) or ["?"])]
        return parts if any(p != "?" for p in parts) else None
    parents = _file_parents(node)
    return None if parents is None else [".."] * parents


def _file_parents(node: ast.AST) -> int | None:
    """How far above the module's directory ``Path(__file__).parent.parent`` / ``.parents[n]`` is."""
    steps = 0
    while True:
        if isinstance(node, ast.Attribute) and node.attr == "parent":
            steps, node = steps + 1, node.value
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "parents":
            if not (isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int)):
                return None
            steps, node = steps + node.slice.value + 1, node.value.value
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name):
            if node.args[0].id != "__file__":
                return None
            return steps - 1 if steps else None
        else:
            return None


def _framework(name: str | None) -> bool:
    """An attribute of a test-framework or builtins module (the module name alone is not patching)."""
    return name is not None and "." in name and name.split(".")[0] in _FRAMEWORK_ROOTS


def _patches_framework(target: ast.expr, aliases: dict[str, str]) -> bool:
    """``mock.patch("builtins.open")`` or ``mock.patch.object(builtins, "open")``."""
    if isinstance(target, ast.Constant) and isinstance(target.value, str):
        return _framework(target.value)
    name = _dotted(target, aliases)
    return name is not None and name.split(".")[0] in _FRAMEWORK_ROOTS


def _aliases(nodes: Iterable[ast.AST]) -> dict[str, str]:
    """Local name -> dotted module path, from the module's imports."""
    out: dict[str, str] = {}
    for node in nodes:
        if isinstance(node, ast.Import):
            for a in node.names:
                out[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                out[a.asname or a.name] = f"{node.module}.{a.name}"
    return out


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    if isinstance(node, ast.Name):
        return aliases.get(node.id, node.id)
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value, aliases)
        return f"{base}.{node.attr}" if base else None
    return None
