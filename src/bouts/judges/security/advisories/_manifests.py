"""The dependencies a submission pins, read from its manifests; pure (text in, data out).

Read: ``requirements*.txt`` (and ``*.txt`` under a ``requirements/`` folder), ``pyproject.toml``
(``[project]`` dependencies and optional dependencies, ``[dependency-groups]``,
``[build-system] requires``, Poetry's dependency tables), ``package.json`` (dependencies,
devDependencies, optionalDependencies) and ``package-lock.json`` / ``npm-shrinkwrap.json``
(lockfile versions 1–3: every installed package, transitive ones included).

A dependency is **pinned** when its manifest admits exactly one version: ``==1.2.3`` or
``===1.2.3`` (PEP 440, no wildcard), a bare version in Poetry, an exact version in ``package.json``
(``4.17.20``, ``=4.17.20``, ``v4.17.20``, or an ``npm:name@4.17.20`` alias), and every entry of a
lock file. Only pinned versions are checked against the advisories (seed 000: "known CVEs in the
dependencies a submission pins"): a range says what may be installed, not what is, so an unpinned
dependency is listed as not checked, with no points. A broken manifest is a note, never an error:
it is the submission's file.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Literal

from bouts.prepare import exact_version

Ecosystem = Literal["PyPI", "npm"]
LOCK_NAMES = frozenset({"package-lock.json", "npm-shrinkwrap.json"})
_REQ_FILE = re.compile(r"^requirements([-_.][\w.-]*)?\.txt$")


@dataclass(frozen=True)
class Dependency:
    """One dependency as a manifest declares it."""

    ecosystem: Ecosystem
    name: str
    """As written (for messages)."""
    version: str | None
    """The one version the manifest admits; None when it admits a range (``why_unpinned``)."""
    spec: str
    """The requirement as written, e.g. ``requests==2.19.0`` or ``lodash@^4.17.0``."""
    file: str
    line: int
    why_unpinned: str | None = None

    @property
    def key(self) -> str:
        """The name as advisories index it (PyPI: PEP 503 normalised; npm names are exact)."""
        return pypi_key(self.name) if self.ecosystem == "PyPI" else self.name


def pypi_key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def manifest_kind(rel: str) -> str | None:
    """Which reader takes the file at ``rel`` (relative, ``/``-separated), or None."""
    path = PurePosixPath(rel)
    if "node_modules" in path.parts:
        return None
    name = path.name
    if name in LOCK_NAMES:
        return "package-lock"
    if name in ("package.json", "pyproject.toml"):
        return name.split(".")[0]
    if _REQ_FILE.match(name) or (len(path.parts) > 1 and path.parts[-2] == "requirements" and name.endswith(".txt")):
        return "requirements"
    return None


def read_manifest(rel: str, text: str) -> tuple[list[Dependency], list[str]]:
    """The dependencies of one manifest, and notes on what could not be read."""
    kind = manifest_kind(rel)
    if kind == "requirements":
        return read_requirements(text, rel)
    if kind == "pyproject":
        return read_pyproject(text, rel)
    if kind == "package":
        return read_package_json(text, rel)
    if kind == "package-lock":
        return read_package_lock(text, rel)
    return [], []


# --- Python ------------------------------------------------------------------------------------


def pep508(raw: str, file: str, line: int) -> tuple[Dependency | None, str | None]:
    """One PEP 508 requirement string → a dependency, or the note saying why it is not one."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        req = Requirement(raw)
    except InvalidRequirement as exc:
        return None, f"{file}:{line}: not a requirement, not checked: {raw!r} ({str(exc).splitlines()[0]})"
    version, why = exact_version(req)
    return _python(req.name, version, raw, file, line, why), None


def _python(name: str, version: str | None, spec: str, file: str, line: int, why: str | None = None) -> Dependency:
    return Dependency("PyPI", name, version, spec.strip(), file, line, why)


def read_requirements(text: str, file: str) -> tuple[list[Dependency], list[str]]:
    deps: list[Dependency] = []
    notes: list[str] = []
    for line_no, line in _logical_lines(text):
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        if not line:
            continue
        if line.startswith("-"):
            if line.startswith(("-e", "--editable")):
                notes.append(f"{file}:{line_no}: an editable install, not checked: {line!r}")
            continue  # -r/-c (every requirements file in the tree is read anyway), --index-url, ...
        req_text = re.split(r"\s+--?\w", line, maxsplit=1)[0]  # per-requirement options: --hash=...
        if req_text.startswith((".", "/")) or re.match(r"^\w+\+?\w*://", req_text):
            notes.append(f"{file}:{line_no}: a path or URL, not checked: {req_text!r}")
            continue
        dep, note = pep508(req_text, file, line_no)
        deps += [dep] if dep else []
        notes += [note] if note else []
    return deps, notes


def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """pip's line continuation: a line ending in ``\\`` goes on on the next one."""
    buf, start = "", 0
    for i, raw in enumerate(text.splitlines(), start=1):
        if not buf:
            start = i
        if raw.endswith("\\"):
            buf += raw[:-1] + " "
            continue
        yield start, buf + raw
        buf = ""
    if buf:
        yield start, buf


def read_pyproject(text: str, file: str) -> tuple[list[Dependency], list[str]]:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return [], [f"{file}: not valid TOML, dependencies not checked ({exc})"]
    deps: list[Dependency] = []
    notes: list[str] = []
    project = _table(doc.get("project"))
    strings: list[tuple[str, str]] = [("project.dependencies", s) for s in _list(project.get("dependencies"))]
    for group, items in _table(project.get("optional-dependencies")).items():
        strings += [(f"project.optional-dependencies.{group}", s) for s in _list(items)]
    for group, items in _table(doc.get("dependency-groups")).items():
        strings += [(f"dependency-groups.{group}", s) for s in _list(items)]
    strings += [("build-system.requires", s) for s in _list(_table(doc.get("build-system")).get("requires"))]
    for where, raw in strings:
        if not isinstance(raw, str):
            continue  # {include-group = "..."}: the included group is read under its own name
        dep, note = pep508(raw, file, _line_of(text, raw))
        deps += [dep] if dep else []
        notes += [f"{note} [{where}]"] if note else []
    poetry = _table(_table(doc.get("tool")).get("poetry"))
    tables = [poetry.get("dependencies"), poetry.get("dev-dependencies")]
    tables += [_table(g).get("dependencies") for g in _table(poetry.get("group")).values()]
    for table in tables:
        for name, value in _table(table).items():
            if name.lower() != "python":
                deps.append(_poetry(name, value, file, _line_of(text, name)))
    return deps, notes


def _poetry(name: str, value: Any, file: str, line: int) -> Dependency:
    """Poetry's syntax: a bare version is exact (``"2.19.0"`` means ``==2.19.0``); ``^``/``~``/``>=`` are ranges."""
    spec = value.get("version") if isinstance(value, dict) else value
    if not isinstance(spec, str):
        return _python(name, None, f"{name} {value}", file, line, "no version given (path, git or URL)")
    bare = spec.strip().removeprefix("==").strip()
    if re.fullmatch(r"\d+(\.\d+)*([a-zA-Z0-9.+!-]*)", bare):
        return _python(name, bare, f"{name} = {spec!r}", file, line)
    return _python(name, None, f"{name} = {spec!r}", file, line, f"a range ({spec}), not one version")


# --- npm ---------------------------------------------------------------------------------------

NPM_SECTIONS = ("dependencies", "devDependencies", "optionalDependencies")
_EXACT = re.compile(r"^\s*=?\s*v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)\s*$")


def npm_exact(spec: str) -> str | None:
    """The one version an npm spec admits (``4.17.20``, ``=4.17.20``, ``v4.17.20``), else None."""
    m = _EXACT.match(spec)
    return m.group(1) if m else None


def read_package_json(text: str, file: str) -> tuple[list[Dependency], list[str]]:
    doc, note = _json(text, file)
    if doc is None:
        return [], [note]
    deps: list[Dependency] = []
    for section in NPM_SECTIONS:
        for name, spec in _table(doc.get(section)).items():
            if not isinstance(spec, str):
                continue
            real, target = _alias(spec) if spec.startswith("npm:") else (name, spec)
            version = npm_exact(target)
            why = None if version else f"a range or tag ({spec}), not one version"
            deps.append(Dependency("npm", real, version, f"{name}@{spec}", file, _line_of(text, f'"{name}"'), why))
    return deps, []


def read_package_lock(text: str, file: str) -> tuple[list[Dependency], list[str]]:
    doc, note = _json(text, file)
    if doc is None:
        return [], [note]
    deps: list[Dependency] = []
    packages = _table(doc.get("packages"))
    if packages:  # lockfileVersion 2 and 3
        for key, entry in packages.items():
            if "node_modules/" not in key or not isinstance(entry, dict) or entry.get("link"):
                continue
            name = str(entry.get("name") or key.rpartition("node_modules/")[2])
            deps += _locked(name, entry.get("version"), file, _line_of(text, f'"{key}"'))
        return deps, []
    stack = [_table(doc.get("dependencies"))]  # lockfileVersion 1: nested "dependencies"
    while stack:
        for name, entry in stack.pop().items():
            if isinstance(entry, dict):
                deps += _locked(name, entry.get("version"), file, _line_of(text, f'"{name}"'))
                stack.append(_table(entry.get("dependencies")))
    return deps, []


def _alias(spec: str) -> tuple[str, str]:
    """``npm:real-name@4.17.20`` (or ``npm:@scope/name@1.0.0``) → (real name, version spec)."""
    body = spec.removeprefix("npm:")
    at = body.rfind("@")
    return (body[:at], body[at + 1 :]) if at > 0 else (body, "")


def _locked(name: str, version: Any, file: str, line: int) -> list[Dependency]:
    if not isinstance(version, str):
        return []
    if version.startswith("npm:"):
        name, version = _alias(version)
    exact = npm_exact(version)
    if exact is None:  # a git, file or tarball URL: not a registry version
        return [Dependency("npm", name, None, f"{name}@{version}", file, line, "not a registry version")]
    return [Dependency("npm", name, exact, f"{name}@{exact}", file, line)]


# --- helpers -----------------------------------------------------------------------------------


def _json(text: str, file: str) -> tuple[Any, str]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"{file}: not valid JSON (line {exc.lineno}), dependencies not checked"
    if not isinstance(doc, dict):
        return None, f"{file}: not a JSON object, dependencies not checked"
    return doc, ""


def _table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _line_of(text: str, needle: str) -> int:
    """The first line holding ``needle`` (TOML and JSON readers give no positions); 1 if none does."""
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1
