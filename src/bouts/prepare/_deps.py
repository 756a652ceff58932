"""Install a challenge's dependencies once per manifest hash (npm ci / pip install --target).

Installation is the one moment with network access, and it runs on the host, never in the
sandbox, with install scripts disabled (``--ignore-scripts``: a package's postinstall would
otherwise run arbitrary code with the engine's privileges; pip takes wheels only, since building
an sdist runs its setup.py). The environment is built in a temporary directory and renamed into
place, so a concurrent or interrupted preparation never leaves a half-installed environment under
the final key.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from bouts.cache import private_directory
from bouts.errors import ChallengeError, InfrastructureError

if TYPE_CHECKING:
    from packaging.requirements import Requirement

DEFAULT_CACHE = Path.home() / ".cache" / "bouts" / "deps"
"""Engine-private (created 0700): whoever can write an environment decides what tests import."""

Ecosystem = Literal["node", "python"]
_NODE_FILES = ("package.json", "package-lock.json")
_PY_FILES = ("requirements.txt",)


@dataclass(frozen=True)
class PreparedEnv:
    """A ready dependency environment."""

    ecosystem: Ecosystem
    key: str
    """sha256 over the manifests' names and bytes."""
    path: Path
    """``node_modules`` (node) or a ``--target`` directory for ``sys.path`` (python)."""


def dependency_manifests(challenge_root: Path, ecosystem: Ecosystem) -> list[Path]:
    """The manifest files of ``ecosystem`` (challenge root first, then ``starter/``); [] if none."""
    names = _NODE_FILES if ecosystem == "node" else _PY_FILES
    for base in (challenge_root, challenge_root / "starter"):
        if (base / names[0]).is_file():
            return [base / n for n in names if (base / n).is_file()]
    return []


def environment_key(manifests: list[Path], ecosystem: Ecosystem) -> str:
    """The cache key: the ecosystem, each manifest's name and bytes. Pure apart from reading them."""
    h = hashlib.sha256(f"bouts.deps/2|{ecosystem}".encode())  # 2: Python installs with --no-deps
    for path in manifests:
        h.update(b"\0" + path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def unpinned_requirements(text: str) -> list[tuple[int, str]]:
    """The lines of a challenge's ``requirements.txt`` that do not name exactly one version, with
    why: ``(line number, message)``. Pure.

    A challenge's requirements are its lock file (SPEC §5: every submission runs against exactly the
    same versions): each line is ``name==version`` (or ``===``, no wildcard; extras, environment
    markers and ``--hash`` options allowed), and the file lists every package to install, transitive
    ones included, since it is installed with ``--no-deps``. A range, a bare name, a URL or path, an
    editable install, another file (``-r``/``-c``) or an index option would let two preparations, on
    two workers or two days, install different code.
    """
    from packaging.requirements import InvalidRequirement, Requirement

    out: list[tuple[int, str]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        start, line = i + 1, lines[i]
        while line.endswith("\\") and i + 1 < len(lines):  # pip's line continuation
            i += 1
            line = line[:-1] + " " + lines[i]
        i += 1
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        if not line:
            continue
        if line.startswith("-"):
            out.append((start, f"pip option {line.split()[0]!r}: only name==version lines (with --hash) are allowed"))
            continue
        req_text, *options = re.split(r"\s+(?=--?\w)", line)
        if any(not o.startswith("--hash") for o in options):
            out.append((start, f"{req_text}: only --hash may follow a requirement, not {options[0].split('=')[0]!r}"))
            continue
        try:
            req = Requirement(req_text)
        except InvalidRequirement as exc:
            out.append((start, f"not a requirement: {req_text!r} ({str(exc).splitlines()[0]})"))
            continue
        _, why = exact_version(req)
        if req.url:
            out.append((start, f"{req_text}: {why}"))
        elif why is not None:
            out.append((start, f"{req_text}: {why}; pin it as {req.name}==VERSION"))
    return out


def exact_version(req: Requirement) -> tuple[str | None, str | None]:
    """``(version, None)`` when the requirement names exactly one version (``==``/``===``, no
    wildcard), else ``(None, why not)``. The one reading of "pinned" for the prepared environment's
    lock and the dependency advisories."""
    if req.url:
        return None, "a direct reference (URL or path), not a version"
    specs = list(req.specifier)
    if len(specs) == 1 and specs[0].operator in ("==", "===") and "*" not in specs[0].version:
        return specs[0].version, None
    return None, "no version given" if not specs else f"a range ({req.specifier}), not one version"


def _has_dependencies(manifests: list[Path]) -> bool:
    import json

    pkg = next((p for p in manifests if p.name == "package.json"), None)
    if pkg is None:
        return any(line.strip() and not line.startswith("#") for p in manifests for line in p.read_text().splitlines())
    data = json.loads(pkg.read_text() or "{}")
    return bool(data.get("dependencies") or data.get("devDependencies"))


def prepare_dependencies(
    challenge_root: Path, ecosystem: Ecosystem, *, cache_root: Path = DEFAULT_CACHE
) -> PreparedEnv | None:
    """The challenge's prepared environment, installing it first if it is not cached.

    ``None`` when the challenge declares no dependencies. Raises ``InfrastructureError`` when the
    installer fails (the engine's problem, never the agent's) or when ``package.json`` has no lock
    file (without one, two preparations could install different versions).
    """
    manifests = dependency_manifests(challenge_root, ecosystem)
    if not manifests or not _has_dependencies(manifests):
        return None
    if ecosystem == "node" and not any(p.name == "package-lock.json" for p in manifests):
        raise InfrastructureError(f"{manifests[0]} has dependencies but no package-lock.json next to it")
    if ecosystem == "python":
        bad = unpinned_requirements(manifests[0].read_text(errors="replace"))
        if bad:
            line, why = bad[0]
            raise ChallengeError(f"line {line}: {why} (and {len(bad) - 1} more)" if len(bad) > 1 else
                                 f"line {line}: {why}", file=str(manifests[0]), field=f"line {line}")  # fmt: skip
    key = environment_key(manifests, ecosystem)
    # Whoever can write an environment decides what the tests import: the cache's folders are the
    # engine user's and nobody else can write them (as every engine cache, bouts.cache.Store).
    private_directory(cache_root)
    private_directory(cache_root / ecosystem)
    final = cache_root / ecosystem / key
    leaf = final / ("node_modules" if ecosystem == "node" else "site")
    if final.exists() or final.is_symlink():
        for path in (final, leaf):  # as this engine left them: the sandbox reads them as another uid
            private_directory(path, create=False)
        with contextlib.suppress(OSError):  # used now: the last a pruning LRU removes (bouts.cache._prune)
            os.utime(final, follow_symlinks=False)
        return PreparedEnv(ecosystem, key, leaf)
    with tempfile.TemporaryDirectory(dir=cache_root / ecosystem, prefix=".building-") as tmp:
        build = Path(tmp) / "env"
        build.mkdir()
        for path in manifests:
            shutil.copyfile(path, build / path.name)
        if ecosystem == "node":
            argv = ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"]
        else:
            # Wheels only: building an sdist would run its setup.py here, on the host. No resolver:
            # the file is the lock (unpinned_requirements), a package it forgot fails the reference run.
            argv = [sys.executable, "-m", "pip", "install", "--no-input", "--disable-pip-version-check",
                    "--only-binary=:all:", "--no-deps", "--target", str(build / "site"),
                    "-r", str(build / "requirements.txt")]  # fmt: skip
        proc = subprocess.run(argv, cwd=build, capture_output=True, text=True, timeout=900, check=False)
        if proc.returncode != 0 or not (build / leaf.name).is_dir():
            raise InfrastructureError(f"preparing {ecosystem} dependencies failed: {' '.join(argv[:3])}: "
                                      f"{(proc.stderr or proc.stdout)[-2000:]}")  # fmt: skip
        _world_readable(build)
        try:
            os.rename(build, final)
        except OSError:
            if not leaf.is_dir():  # lost a race to a concurrent preparation: theirs is as good
                raise
    return PreparedEnv(ecosystem, key, leaf)


def _world_readable(root: Path) -> None:
    """The sandbox runs as a fresh uid: every file must be readable (and dirs traversable) by others,
    and written by nobody but the engine (whatever the umask let the installer make)."""
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                continue
            mode = os.stat(path).st_mode
            os.chmod(path, (mode | (0o555 if name in dirnames or mode & 0o100 else 0o444)) & ~0o022)
    os.chmod(root, 0o755)
