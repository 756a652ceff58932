"""Load a challenge directory (SPEC §5) into a validated ``Challenge``.

Everything a user can get wrong becomes a ``ChallengeError`` naming the file and the field. The
adversarial tests are read with ``ast`` to learn their severities: a challenge's test code is never
imported or run by the loader.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import get_args

from bouts._pyast import parse as parse_python
from bouts.errors import ChallengeError, WeightsError
from bouts.languages import LANGUAGES, framework_of, language
from bouts.loading._common import TreeEntry, read_toml, tree_hash, validate, walk_tree
from bouts.loading._js_severity import parse_js_severities
from bouts.models.challenge import SUITES, Challenge, ChallengeSpec, Severity, Suite, TestsConfig
from bouts.scoring.weights import resolve_weights

REQUIRED_DIRS = ("starter", "tests/visible", "tests/hidden", "reference")
ANCHOR_LEVELS = ("low", "mid", "high")
SEVERITIES: tuple[str, ...] = get_args(Severity)
_SEVERITY_MARKS = frozenset({"pytest.mark.severity", "mark.severity"})


def load_challenge(path: Path) -> Challenge:
    """Load and validate the challenge directory at ``path``.

    Raises ``ChallengeError`` naming the file (as ``path`` was given) and the dotted field for a
    malformed ``challenge.toml``, an unknown family or a weights override that breaks the rules, a
    missing required directory, a symlink that points outside the challenge, or an adversarial test
    with an unknown severity.
    """
    path = Path(path)
    shown = str(path)
    if not path.is_dir():
        raise ChallengeError("is not a challenge directory", file=shown)
    toml_shown = str(path / "challenge.toml")
    data = read_toml(path / "challenge.toml", display=toml_shown, error=ChallengeError)
    spec = validate(ChallengeSpec, data, display=toml_shown, error=ChallengeError)
    _check_weights(spec, toml_shown)
    _check_attribution(path, spec, toml_shown)
    if spec.language not in LANGUAGES.names():
        raise ChallengeError(f"unknown language '{spec.language}'; known: {', '.join(LANGUAGES.names())}",
                             file=toml_shown, field="language")  # fmt: skip

    for rel in REQUIRED_DIRS:
        if not (path / rel).is_dir():
            raise ChallengeError("required directory is missing", file=str(path / rel))

    entries = walk_tree(path, display=shown, error=ChallengeError)
    test_files = {suite: _test_files(entries, suite, spec.language) for suite in SUITES}
    _check_framework(path, spec, toml_shown, [f for files in test_files.values() for f in files])
    _check_planted(spec, test_files, toml_shown)
    severities: dict[str, Severity] = {}
    support = language(spec.language)
    if support.has("severities"):  # markers in the language's syntax (none: every test has the default)
        for rel in test_files["adversarial"]:
            severities.update(support.part("severities")((path / rel).read_bytes(), rel, shown=str(path / rel)))

    return Challenge(
        root=path,
        spec=spec,
        content_hash=tree_hash(entries),
        suite_hashes={suite: tree_hash(entries, f"tests/{suite}/") for suite in SUITES},
        test_files=test_files,
        severities=severities,
        anchors={lvl: path / "anchors" / lvl for lvl in ANCHOR_LEVELS if (path / "anchors" / lvl).is_dir()},
        quarantined=_quarantined(path),
    )


def _quarantined(path: Path) -> dict[str, str]:
    """The tests ``bouts check`` quarantined (``quarantine.toml``), if it wrote the file."""
    file = path / "quarantine.toml"
    if not file.is_file() or file.is_symlink():
        return {}
    from bouts.loading.quarantine import parse_quarantine  # only when there is one to read

    return dict(parse_quarantine(file.read_text(encoding="utf-8", errors="replace"), shown=str(file)))


def severity_for(challenge: Challenge, node_id: str) -> Severity:
    """The severity of an adversarial test: that of the longest node-id prefix with a marker
    (``file::Class::test`` before ``file::Class`` before ``file``), else the challenge's default."""
    # A prefix matches whole nodes only: "::test_x" covers "::test_x[1]", never "::test_xy".
    matching = [
        prefix
        for prefix in challenge.severities
        if node_id == prefix or node_id.startswith((prefix + "::", prefix + "[", prefix + " > "))
    ]
    if not matching:
        return challenge.spec.adversarial.default_severity
    return challenge.severities[max(matching, key=len)]


def _check_planted(spec: ChallengeSpec, test_files: dict[Suite, list[str]], toml_shown: str) -> None:
    """A planted test id names a test file of the challenge (a typo would never match a report)."""
    files = {f for suite in test_files.values() for f in suite}
    for i, entry in enumerate(spec.integrity.planted):
        if "::" in entry and entry.split("::", 1)[0].strip() not in files:
            raise ChallengeError(
                f"{entry!r} names no test file of the challenge (known: {', '.join(sorted(files)[:5])}"
                + (" …)" if len(files) > 5 else ")"),
                file=toml_shown, field=f"integrity.planted[{i}]",
            )  # fmt: skip


def _check_weights(spec: ChallengeSpec, toml_shown: str) -> None:
    """Reject an unknown family, or a ``[weights]`` override that breaks the SPEC's rules, now."""
    try:
        # The family is checked even when an override replaces its weights: it names the
        # challenge's family on every scorecard.
        resolve_weights(spec.family, None)
        if spec.weights is not None:
            resolve_weights(spec.family, spec.weights.model_dump())
    except WeightsError as e:
        raise ChallengeError(e.message, file=toml_shown, field=e.field or "weights") from e


def _check_attribution(root: Path, spec: ChallengeSpec, toml_shown: str) -> None:
    """Every ``[attribution] sources`` path is a file or folder inside the challenge (not a link)."""
    for i, source in enumerate(spec.attribution.sources):
        target = root / source.path
        field = f"attribution.sources[{i}].path"
        if target.is_symlink() or not (target.is_file() or target.is_dir()):
            raise ChallengeError(f"'{source.path}' is not a file or folder of the challenge", file=toml_shown,
                                 field=field)  # fmt: skip
        if not target.resolve().is_relative_to(root.resolve()):
            raise ChallengeError(f"'{source.path}' leads outside the challenge", file=toml_shown, field=field)


_TS = (".ts", ".mts", ".cts")
_TSX_MEMORY_MB = 2048
_BABEL = ("babel.config.js", "babel.config.cjs", "babel.config.mjs", "babel.config.json", ".babelrc", ".babelrc.json")


def _check_framework(root: Path, spec: ChallengeSpec, toml_shown: str, test_files: list[str]) -> None:
    """``[tests] framework`` must suit ``language``; vitest/jest (and, for TypeScript tests under
    node:test, tsx) must be the challenge's dependencies; jest compiles TypeScript with its Babel config."""
    framework, field = framework_of(spec), "tests.framework"
    frameworks = language(spec.language).frameworks
    if framework not in frameworks:
        raise ChallengeError(f"'{framework}' does not run {spec.language} tests; use {', '.join(frameworks)}",
                             file=toml_shown, field=field)  # fmt: skip
    if framework == "pytest":
        return
    if spec.tests.tests_per_process != 1:
        raise ChallengeError(f"several tests per process are supported for Python (pytest) challenges only; "
                             f"{framework} runs its own processes", file=toml_shown,
                             field="tests.tests_per_process")  # fmt: skip
    if spec.tests.preload:
        raise ChallengeError(f"preloaded modules are supported for Python (pytest) challenges only; "
                             f"{framework} runs its own processes", file=toml_shown,
                             field="tests.preload")  # fmt: skip
    if spec.tests.workdir != TestsConfig.model_fields["workdir"].default:
        raise ChallengeError(f"a working path of its own is supported for Python challenges only; "
                             f"{spec.language} tests run in /workspace", file=toml_shown,
                             field="tests.workdir")  # fmt: skip
    typescript = any(f.endswith(_TS) for f in test_files)
    needed = {"vitest": "vitest", "jest": "jest", "node:test": "tsx" if typescript else None}.get(framework)
    if needed is not None and needed not in _declared_dependencies(root):
        why = " (node 20 cannot strip types; tsx compiles them)" if needed == "tsx" else ""
        raise ChallengeError(f"'{needed}' must be in the challenge's package.json devDependencies (with its "
                             f"package-lock.json) for {framework} tests{why}", file=toml_shown,
                             field=field)  # fmt: skip
    if framework == "node:test" and typescript and spec.limits.memory_mb < _TSX_MEMORY_MB:
        raise ChallengeError(f"TypeScript tests under node:test need at least {_TSX_MEMORY_MB} MB: tsx's loader "
                             "runs in a second V8 isolate (node 20), which does not start under a smaller "
                             "address-space cap", file=toml_shown, field="limits.memory_mb")  # fmt: skip
    babel = any((base / name).is_file() for base in (root, root / "starter") for name in _BABEL)
    if framework == "jest" and typescript and not babel:
        raise ChallengeError("TypeScript tests under jest need the challenge's own babel.config.* (e.g. with "
                             "@babel/preset-typescript): jest compiles them with babel-jest", file=toml_shown,
                             field=field)  # fmt: skip


def _declared_dependencies(root: Path) -> set[str]:
    manifest = next((p for p in (root / "package.json", root / "starter" / "package.json") if p.is_file()), None)
    if manifest is None:
        return set()
    try:
        data = json.loads(manifest.read_text())
    except ValueError as e:
        raise ChallengeError(f"not valid JSON: {e}", file=str(manifest)) from e
    if not isinstance(data, dict):
        return set()
    return {name for key in ("dependencies", "devDependencies") for name in (data.get(key) or {})}


def _test_files(entries: list[TreeEntry], suite: Suite, name: str = "python") -> list[str]:
    prefix, support = f"tests/{suite}/", language(name)
    return sorted(e.rel for e in entries if e.rel.startswith(prefix) and support.is_test_file(e.rel.rsplit("/", 1)[-1]))


def js_severities(source: bytes, rel: str, *, shown: str) -> dict[str, Severity]:
    """Severity comments of one JavaScript/TypeScript test file (``// @severity high`` above a test,
    ``bouts.loading._js_severity``), by test-id prefix."""

    def check(value: str, line: int) -> str:
        if value not in SEVERITIES:
            raise ChallengeError(f"line {line}: unknown severity '{value}'; known: {', '.join(SEVERITIES)}", file=shown)
        return value

    text = source.decode("utf-8", errors="replace")
    return parse_js_severities(text, rel, check)  # type: ignore[return-value]


def parse_severities(source: bytes, rel: str, *, shown: str) -> dict[str, Severity]:
    """Severity markers of one test file, by node-id prefix, read from its syntax tree.

    Recognises ``@pytest.mark.severity("high")`` on test functions, classes and methods, and
    ``pytestmark = pytest.mark.severity(...)`` (or a list/tuple holding one) at module or class level.
    """
    try:
        tree = parse_python(source, filename=shown)
    except (SyntaxError, ValueError) as e:
        line = getattr(e, "lineno", None)
        raise ChallengeError(f"line {line}: not valid Python: {getattr(e, 'msg', e)}", file=shown) from e
    found: dict[str, Severity] = {}
    _scan_body(tree.body, rel, found, shown)
    return found


def _scan_body(body: list[ast.stmt], node_id: str, found: dict[str, Severity], shown: str) -> None:
    marks: list[ast.Call] = []
    for stmt in body:
        if _assigns_pytestmark(stmt):
            assert isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None
            marks += _severity_calls(stmt.value)
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            child = f"{node_id}::{stmt.name}"
            decorated = [c for d in stmt.decorator_list for c in _severity_calls(d)]
            _record(decorated, child, found, shown)
            if isinstance(stmt, ast.ClassDef):
                _scan_body(stmt.body, child, found, shown)
    _record(marks, node_id, found, shown)


def _assigns_pytestmark(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in stmt.targets)
    return (
        isinstance(stmt, ast.AnnAssign)
        and stmt.value is not None
        and isinstance(stmt.target, ast.Name)
        and stmt.target.id == "pytestmark"
    )


def _record(calls: list[ast.Call], node_id: str, found: dict[str, Severity], shown: str) -> None:
    if not calls:
        return
    if len(calls) > 1:
        raise ChallengeError(f"line {calls[1].lineno}: more than one severity marker on '{node_id}'", file=shown)
    call = calls[0]
    arg = call.args[0] if call.args else None
    if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)) or len(call.args) != 1:
        raise ChallengeError(
            f"line {call.lineno}: severity() takes one string literal, one of {', '.join(SEVERITIES)}",
            file=shown,
        )
    if arg.value not in SEVERITIES:
        raise ChallengeError(
            f"line {call.lineno}: unknown severity '{arg.value}'; known: {', '.join(SEVERITIES)}",
            file=shown,
        )
    found[node_id] = arg.value  # type: ignore[assignment]  # checked against SEVERITIES above


def _severity_calls(expr: ast.expr) -> list[ast.Call]:
    """``pytest.mark.severity(...)`` / ``mark.severity(...)`` calls in a marker expression."""
    if isinstance(expr, ast.List | ast.Tuple):
        return [c for e in expr.elts for c in _severity_calls(e)]
    if isinstance(expr, ast.Call) and _dotted_name(expr.func) in _SEVERITY_MARKS:
        return [expr]
    return []


def _dotted_name(expr: ast.expr) -> str:
    if isinstance(expr, ast.Attribute):
        return f"{_dotted_name(expr.value)}.{expr.attr}"
    return expr.id if isinstance(expr, ast.Name) else ""
