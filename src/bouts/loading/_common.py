"""Helpers shared by the challenge and submission loaders: tree walks, content hashes, TOML and
pydantic errors turned into ``InputError``s that name the file and the field."""

from __future__ import annotations

import difflib
import hashlib
import os
import stat
import tomllib
import typing
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from bouts.errors import InputError

M = TypeVar("M", bound=BaseModel)

# Caches that running tests leaves behind; hashing them would change a hash without any change
# of content.
SKIP_DIRS = frozenset({"__pycache__", ".pytest_cache"})
SKIP_SUFFIXES = (".pyc",)
_CHUNK = 1 << 16


@dataclass(frozen=True)
class TreeEntry:
    """One file (or symlink) of a challenge or submission tree."""

    rel: str
    """Path relative to the tree root, with forward slashes."""
    path: Path
    link: str | None = None
    """The link's target text when the entry is a symlink (its target is hashed on its own)."""
    escapes: bool = False
    """A symlink whose target (followed by the operating system, never by us) lies outside the tree."""
    digest: bytes | None = None
    """The file's sha256, when it was computed as the file streamed by (an archive scanned in memory,
    ``bouts.loading.archive.scan_archive``); else the file at ``path`` is read to hash it."""


def walk_tree(
    root: Path,
    *,
    display: str,
    error: type[InputError],
    max_files: int | None = None,
    max_total_bytes: int | None = None,
    escaping_links: Literal["refuse", "keep"] = "refuse",
) -> list[TreeEntry]:
    """Every file and symlink under ``root``, sorted by relative path.

    Refuses fifos/sockets/devices, (when caps are given) trees with too many files or too many
    bytes, and symlinks that resolve outside ``root`` unless ``escaping_links="keep"``, which lists
    them with ``escapes=True`` (a submission's are dropped and judged, not refused). Links are never
    followed; a looping link is a link like any other. ``display`` is the root as the user gave it.
    """
    real_root = Path(os.path.realpath(root))
    entries: list[TreeEntry] = []
    total = 0

    def on_error(exc: OSError) -> None:
        raise error(f"cannot be read: {exc.strerror or exc}", file=_shown(display, exc.filename, root))

    for dirpath, dirnames, filenames in os.walk(root, onerror=on_error):
        here = Path(dirpath)
        dirnames.sort()
        # Every name is checked, in skipped folders too: the judges read every file (loading.view) and
        # reports may name any of them.
        for name in (*dirnames, *filenames):
            check_name((here / name).relative_to(root).as_posix(), display, error)
        if SKIP_DIRS.intersection(here.relative_to(root).parts):
            continue  # neither hashed nor run (the runner removes the folder)
        # os.walk lists symlinked directories but does not descend into them (followlinks=False).
        names = [n for n in dirnames if n not in SKIP_DIRS and (here / n).is_symlink()]
        names += [n for n in filenames if not n.endswith(SKIP_SUFFIXES)]
        for name in names:
            path = here / name
            rel = path.relative_to(root).as_posix()
            shown = f"{display.rstrip('/')}/{rel}"
            if path.is_symlink():
                target = os.readlink(path)
                check_link(rel, target, display, error)
                # realpath, not Path.resolve(): a link loop is not an error to it (3.11 raises).
                escapes = not Path(os.path.realpath(path)).is_relative_to(real_root)
                if escapes and escaping_links == "refuse":
                    raise error(f"is a symlink that points outside the tree (to '{target}')", file=shown)
                entries.append(TreeEntry(rel, path, target, escapes))
                continue
            st = path.lstat()
            if not stat.S_ISREG(st.st_mode):
                raise error("is not a regular file (a fifo, socket or device)", file=shown)
            total += st.st_size
            entries.append(TreeEntry(rel, path))
            if max_files is not None and len(entries) > max_files:
                raise error(f"holds more than {max_files} files", file=display)
            if max_total_bytes is not None and total > max_total_bytes:
                raise error(f"holds more than {max_total_bytes} bytes", file=display)
    entries.sort(key=lambda e: e.rel)
    return entries


MAX_PATH_BYTES = 1024
"""The longest path a tree may hold, in bytes from its root: copied under a workspace's folder, a
longer one could pass the system's limit of 4,096 (``PATH_MAX``) there and nowhere else."""


def _escaped(text: str) -> str:
    """``text`` with the bytes that are not UTF-8 (read as lone surrogates) shown as ``\\xNN``."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def check_name(rel: str, display: str, error: type[InputError]) -> None:
    """Refuse a path that is not valid UTF-8 (every report, hash and judge names files as text) or
    longer than ``MAX_PATH_BYTES``; the error shows it with its undecodable bytes escaped."""
    try:
        size = len(rel.encode("utf-8"))
    except UnicodeEncodeError:
        shown = _escaped(f"{display.rstrip('/')}/{rel}")
        raise error("has a name that is not valid UTF-8 (rename it)", file=shown) from None
    if size > MAX_PATH_BYTES:
        raise error(f"is a path of {size} bytes, longer than the {MAX_PATH_BYTES} a tree may hold",
                    file=f"{display.rstrip('/')}/{rel[:80]}...")


def check_link(rel: str, target: str, display: str, error: type[InputError]) -> None:
    """Refuse a link whose target text is not valid UTF-8: the target is recorded and reported
    (``Submission.dropped_links``, the integrity judge's findings) as text; its own name as any."""
    check_name(rel, display, error)
    try:
        target.encode("utf-8")
    except UnicodeEncodeError:
        raise error(f"is a link whose target is not valid UTF-8 ({_escaped(target)})",
                    file=_escaped(f"{display.rstrip('/')}/{rel}")) from None


def _shown(display: str, filename: Any, root: Path) -> str:
    try:
        return f"{display.rstrip('/')}/{Path(filename).relative_to(root).as_posix()}"
    except (TypeError, ValueError):
        return display


def tree_hash(entries: Iterable[TreeEntry], prefix: str = "") -> str:
    """sha256 over (relative path, content) of the entries whose path starts with ``prefix``.

    Each file contributes its path and the sha256 of its bytes, so that a path/content boundary
    can never be shifted to forge the same hash from a different tree.
    """
    h = hashlib.sha256()
    for entry in entries:
        if not entry.rel.startswith(prefix):
            continue
        h.update(entry.rel.encode("utf-8", "surrogateescape") + b"\0")
        if entry.link is not None:
            h.update(b"L" + entry.link.encode("utf-8", "surrogateescape"))
        elif entry.digest is not None:
            h.update(b"F" + entry.digest)
        else:
            fh = hashlib.sha256()
            with entry.path.open("rb") as f:
                while chunk := f.read(_CHUNK):
                    fh.update(chunk)
            h.update(b"F" + fh.digest())
        h.update(b"\n")
    return h.hexdigest()


def read_toml(path: Path, *, display: str, error: type[InputError]) -> dict[str, Any]:
    """Parse a TOML file; a missing file, bad UTF-8 or bad syntax becomes ``error`` naming it."""
    if not path.is_file():
        raise error("is missing" if not path.exists() else "is not a regular file", file=display)
    return parse_toml(path.read_bytes(), display=display, error=error)


def parse_toml(raw: bytes, *, display: str, error: type[InputError]) -> dict[str, Any]:
    """``read_toml`` of content already read: bad UTF-8 or bad syntax becomes ``error`` naming ``display``."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise error(f"is not valid UTF-8 (byte {e.start})", file=display) from e
    try:
        return toml_loads(text)
    except tomllib.TOMLDecodeError as e:
        # The message carries "(at line L, column C)".
        raise error(f"TOML syntax error: {e}", file=display) from e


def toml_loads(text: str) -> dict[str, Any]:
    """``tomllib.loads``, where nesting too deep for its recursive parser is a ``TOMLDecodeError``
    like any other syntax error (rather than a ``RecursionError``)."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError("arrays or inline tables nested too deeply to read") from None


def validate(model: type[M], data: dict[str, Any], *, display: str, error: type[InputError]) -> M:
    """Validate ``data`` into ``model``; a ValidationError becomes ``error`` naming the first field
    and listing every problem."""
    try:
        return model.model_validate(data)
    except ValidationError as e:
        problems = e.errors(include_url=False)
        fields = [dotted(p["loc"]) for p in problems]
        if len(problems) == 1:
            message = _describe(problems[0], model)
        else:
            message = f"{len(problems)} problems: " + "; ".join(
                f"{f or '(top level)'}: {_describe(p, model)}" for f, p in zip(fields, problems, strict=True)
            )
        raise error(message, file=display, field=fields[0] or None) from e


def _keys_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The keys the model accepts at ``loc`` (its field names and aliases, through nested models,
    lists and optionals); empty when the location leaves the models."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        fields = getattr(current, "model_fields", None)
        if fields is None:
            return []
        info = next((f for name, f in fields.items() if part in (name, f.alias)), None)
        if info is None:
            return []
        current = _model_in(info.annotation)
        if current is None:
            return []
    fields = getattr(current, "model_fields", None) or {}
    return [f.alias or name for name, f in fields.items()]


def _model_in(annotation: Any) -> Any:
    """The pydantic model an annotation holds (``M``, ``M | None``, ``list[M]``), or None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def dotted(loc: tuple[Any, ...]) -> str:
    """A pydantic location as a dotted field path: ``deliverables[0].path``, ``limits.memory_mb``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part == "[key]":  # pydantic's marker for a bad dict key; the key itself precedes it
            continue
        else:
            out += f".{part}" if out else str(part)
    return out


def _describe(problem: Any, model: type[BaseModel] | None = None) -> str:
    kind = problem["type"]
    if kind == "extra_forbidden":
        loc = problem["loc"]
        known = _keys_at(model, loc[:-1]) if model is not None and loc else []
        near = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6) if known else []
        if near:
            return f"unknown key (did you mean '{near[0]}'?)"
        return "unknown key (not allowed here; check the spelling)"
    if kind == "missing":
        return "is required"
    text = str(problem["msg"])
    value = problem.get("input")
    if isinstance(value, str | int | float | bool):
        shown = repr(value)
        text += f" (got {shown[:60] + '...' if len(shown) > 60 else shown})"
    return text
