"""Safe extraction of submission archives (``.tar.gz``, ``.tgz``, ``.tar``, ``.zip``).

An archive is hostile until proven otherwise. Members are never handed to ``tarfile.extract`` or
``zipfile.extract``: each name is checked and each regular file is streamed into place by hand,
counting the bytes actually written (headers can lie). Links, devices and fifos are refused, not
skipped, so that a submission cannot silently differ from what its author archived. Everything is
written to a staging directory next to ``dest`` and renamed into place only once the whole archive
passed, so a refusal never leaves a half-extracted tree.

A submission is extracted with ``extract_archive_dropping_links``: a symbolic link member is then
never created (so nothing can be written or read through it) but dropped and returned with its
target text, so that the submission is scored and the link judged (docs/integrity.md) rather than
the whole archive refused: "no score" must never be better than a flagged score.

An upload is checked with ``scan_archive``: the same single forward pass and the same checks, but
nothing is written: each file is hashed as it streams by and only its digest is kept (and the bytes
of a ``submission.toml`` that may be the root's). Every cap is checked as the member arrives and the
first one exceeded stops the read, so the work a request can cause is bounded by the caps, not by the
archive: at most ``max_files + 1`` member headers (a zip's central directory is counted before
``zipfile`` parses it) and at most ``max_total_bytes`` of content decompressed and hashed.
"""

from __future__ import annotations

import copy
import gzip
import hashlib
import os
import re
import shutil
import stat
import struct
import tarfile
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, NoReturn

from bouts.errors import SubmissionError, UnsafeArchiveError

# The root's submission.toml is the only content a scan keeps: before the archive is read to its end
# it cannot tell whether the root will be unwrapped, so it keeps that file at depth one and two (at
# most one of the latter: under two top-level folders nothing is unwrapped), up to KEPT_BYTES + 1.
_KEPT_NAME = "submission.toml"

MiB = 1024 * 1024
TAR_SUFFIXES = (".tar.gz", ".tgz", ".tar")
ZIP_SUFFIXES = (".zip",)
ARCHIVE_SUFFIXES = TAR_SUFFIXES + ZIP_SUFFIXES
KEPT_BYTES = 64 * 1024
"""The bytes a scan keeps of a ``submission.toml`` (one more, to tell that it is longer)."""

_CHUNK = 1 << 16
# Below this much output a ratio proves nothing: a tiny archive of small text files or of tar's
# zero padding compresses far better than 200:1 without being a bomb.
_RATIO_FLOOR = 1 * MiB
# Room for tar headers (512 bytes each, plus pax/GNU long-name records) in the decompressed stream.
_TAR_HEADER_ALLOWANCE = 8 * 1024
# Folders that macOS's archiver adds next to the real content; skipped so a single-directory
# archive made on a Mac still unwraps to its directory.
_SKIPPED_TOP = frozenset({"__MACOSX"})
_DRIVE = re.compile(r"^[A-Za-z]:")
MAX_LINK_TARGET = 4096
"""Longest symlink target read (PATH_MAX); a longer one is refused as malformed."""


@dataclass(frozen=True)
class Extracted:
    """An extracted archive: its root, and the symbolic links that were dropped rather than created."""

    root: Path
    links: tuple[tuple[str, str], ...]
    """``(path relative to root, target text)`` of each dropped link member, sorted by path."""


@dataclass(frozen=True)
class Scanned:
    """An archive read in one pass without writing anything (``scan_archive``): the tree it would
    extract to, as paths relative to the archive (``__MACOSX`` left out, as extraction does)."""

    files: dict[str, bytes]
    """Each regular file's path and the sha256 of its bytes."""
    dirs: frozenset[str]
    """Every directory extraction would create, named or implied by a deeper member."""
    links: tuple[tuple[str, str], ...]
    """``(path, target text)`` of each symbolic link member, sorted by path (never created)."""
    kept: dict[str, bytes]
    """The first ``KEPT_BYTES + 1`` bytes of the ``submission.toml`` at depth one and of one at depth
    two, the one the root's would be if the archive holds one top-level folder."""


def is_archive(path: Path) -> bool:
    """Whether ``path`` has one of the archive suffixes ``extract_archive`` accepts."""
    return path.name.lower().endswith(ARCHIVE_SUFFIXES)


def extract_archive(
    archive: Path,
    dest: Path,
    *,
    max_total_bytes: int = 200 * MiB,
    max_files: int = 10_000,
    max_member_bytes: int = 50 * MiB,
    max_ratio: float = 200,
) -> Path:
    """Extract ``archive`` into ``dest`` (which must not exist, or be empty) and return the root.

    The root is ``dest`` itself, or its only entry when the archive holds a single top-level
    directory. Raises ``UnsafeArchiveError`` (naming the archive and the member) for absolute or
    escaping paths, links, devices, fifos, duplicates, too many members, a member or total size over
    its cap, or a compression ratio over ``max_ratio``; ``SubmissionError`` for an unreadable or
    unsupported archive.
    """
    caps = dict(max_total_bytes=max_total_bytes, max_files=max_files, max_member_bytes=max_member_bytes,
                max_ratio=max_ratio)
    return _extract(archive, dest, drop_links=False, caps=caps).root


def extract_archive_dropping_links(
    archive: Path,
    dest: Path,
    *,
    max_total_bytes: int = 200 * MiB,
    max_files: int = 10_000,
    max_member_bytes: int = 50 * MiB,
    max_ratio: float = 200,
) -> Extracted:
    """``extract_archive``, except that a symbolic link member is not refused: it is never created
    and comes back in ``Extracted.links`` with its target text. Its name is checked like any
    member's (a ``../`` or absolute name is still refused); hard links, devices and fifos are still
    refused."""
    caps = dict(max_total_bytes=max_total_bytes, max_files=max_files, max_member_bytes=max_member_bytes,
                max_ratio=max_ratio)
    return _extract(archive, dest, drop_links=True, caps=caps)


def scan_archive(
    archive: Path,
    *,
    max_total_bytes: int = 200 * MiB,
    max_files: int = 10_000,
    max_member_bytes: int = 50 * MiB,
    max_ratio: float = 200,
) -> Scanned:
    """``extract_archive_dropping_links`` without writing anything: the same checks, refusals and
    messages, in one forward pass that stops at the first cap exceeded (module docstring); what it
    would have extracted comes back as ``Scanned``."""
    archive = Path(archive)
    _check_source(archive)
    writer = _Writer(archive, None, drop_links=True, max_total_bytes=max_total_bytes, max_files=max_files,
                     max_member_bytes=max_member_bytes, max_ratio=max_ratio)
    _read(archive, writer)
    return Scanned(files=writer.files, dirs=frozenset(writer.dirs), links=tuple(sorted(writer.links)),
                   kept=writer.kept)


def _check_source(archive: Path) -> None:
    if not is_archive(archive):
        raise SubmissionError(f"is not a supported archive ({', '.join(ARCHIVE_SUFFIXES)})",
                              file=str(archive))
    if not archive.is_file():
        raise SubmissionError("does not exist or is not a file", file=str(archive))


def _read(archive: Path, writer: _Writer) -> None:
    if archive.name.lower().endswith(ZIP_SUFFIXES):
        _extract_zip(archive, writer)
    else:
        _extract_tar(archive, writer)


def _extract(archive: Path, dest: Path, *, drop_links: bool, caps: dict) -> Extracted:
    archive, dest = Path(archive), Path(dest)
    _check_source(archive)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise FileExistsError(f"extraction target {dest} already exists and is not empty")
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".partial", dir=dest.parent))
    try:
        writer = _Writer(archive, staging, drop_links=drop_links, **caps)
        _read(archive, writer)
        staging.chmod(0o755)  # mkdtemp makes it 0700; the sandbox user must be able to read it
        if dest.exists():
            dest.rmdir()
        staging.rename(dest)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    links = sorted(writer.links)
    # A dropped link is an entry too: a link beside the one directory keeps the archive unwrapped.
    entries = sorted({*dest.iterdir(), *(dest / rel.split("/")[0] for rel, _ in links)})
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        prefix = f"{entries[0].name}/"
        return Extracted(entries[0], tuple((rel.removeprefix(prefix), target) for rel, target in links))
    return Extracted(dest, tuple(links))


class _Writer:
    """Checks member names and writes members into the staging directory under every cap; with no
    staging directory (``scan_archive``) it writes nothing and records the tree instead."""

    def __init__(self, archive: Path, staging: Path | None, *, max_total_bytes: int, max_files: int,
                 max_member_bytes: int, max_ratio: float, drop_links: bool = False) -> None:
        self.archive = archive
        self.drop_links = drop_links
        self.links: list[tuple[str, str]] = []
        self.staging = staging
        self.max_total_bytes = max_total_bytes
        self.max_files = max_files
        self.max_member_bytes = max_member_bytes
        self.max_ratio = max_ratio
        self.archive_size = max(archive.stat().st_size, 1)
        self.members = 0
        self.written = 0
        self.seen: set[str] = set()
        self.files: dict[str, bytes] = {}  # a scan's tree: what extraction would have created
        self.dirs: set[str] = set()
        self.kept: dict[str, bytes] = {}

    def refuse(self, member: str, why: str) -> NoReturn:
        raise UnsafeArchiveError(f"member '{member}' {why}", file=str(self.archive))

    def check_ratio(self, member: str, produced: int, consumed: int) -> None:
        """Refuse when ``produced`` bytes came out of only ``consumed`` compressed bytes."""
        if produced > _RATIO_FLOOR and produced > self.max_ratio * max(consumed, 1):
            self.refuse(member, f"expands more than {self.max_ratio:g}:1 (a compression bomb)")

    def admit(self, name: str) -> tuple[str, ...]:
        """Count a member and check its name; return its safe relative parts (empty for "./")."""
        self.members += 1
        if self.members > self.max_files:
            self.refuse(name, f"is past the limit of {self.max_files} members")
        if not name or "\0" in name:
            self.refuse(name, "has an empty or NUL-containing name")
        if name.startswith("/"):
            self.refuse(name, "has an absolute path")
        if "\\" in name:
            self.refuse(name, "has a backslash in its path (a Windows path trick)")
        if _DRIVE.match(name):
            self.refuse(name, "starts with a drive letter")
        parts = tuple(p for p in name.split("/") if p not in ("", "."))
        if ".." in parts:
            self.refuse(name, "has a '..' component (path traversal)")
        if any(len(p.encode("utf-8", "surrogateescape")) > 255 for p in parts):
            self.refuse(name, "has a path component longer than 255 bytes")
        key = "/".join(parts)
        if parts and key in self.seen:
            self.refuse(name, "appears twice (duplicate member)")
        self.seen.add(key)
        return parts

    def add_dir(self, name: str) -> None:
        parts = self.admit(name)
        if not parts or parts[0] in _SKIPPED_TOP:
            return
        if self.staging is None:
            self.make_dirs(name, parts)
            return
        try:
            self.staging.joinpath(*parts).mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            self.refuse(name, "conflicts with a file of the same path")

    def make_dirs(self, name: str, parts: tuple[str, ...]) -> None:
        """A scan's ``mkdir(parents=True, exist_ok=True)``: refused where a file stands on the way."""
        for depth in range(1, len(parts) + 1):
            key = "/".join(parts[:depth])
            if key in self.files:
                self.refuse(name, "conflicts with a file of the same path")
            self.dirs.add(key)

    def add_link(self, name: str, target: str) -> None:
        """A symbolic link member: refused, or (``drop_links``) recorded and never created."""
        if not self.drop_links:
            self.refuse(name, f"is a symbolic link (to '{target}')")
        parts = self.admit(name)
        if not parts:
            self.refuse(name, "is a link at the archive's root path")
        if not target or "\0" in target or len(target.encode("utf-8", "surrogateescape")) > MAX_LINK_TARGET:
            self.refuse(name, "is a symbolic link with an empty, NUL-containing or overlong target")
        if parts[0] not in _SKIPPED_TOP:
            self.links.append(("/".join(parts), target))

    def add_file(self, name: str, stream: IO[bytes], *, executable: bool,
                 compressed_size: int | None = None) -> int | None:
        """Stream one regular member into place; return the bytes it really held (None: skipped)."""
        parts = self.admit(name)
        if not parts:
            self.refuse(name, "is a file at the archive's root path")
        if parts[0] in _SKIPPED_TOP:
            return None
        if self.staging is None:
            return self.hash_file(name, parts, stream, compressed_size)
        target = self.staging.joinpath(*parts)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            # O_EXCL|O_NOFOLLOW: never overwrite, never follow a link (we create none, belt and braces).
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                         0o755 if executable else 0o644)
        except (FileExistsError, NotADirectoryError, IsADirectoryError):
            self.refuse(name, "conflicts with another member of the same path")
        size = 0
        with os.fdopen(fd, "wb") as out:
            while chunk := stream.read(_CHUNK):
                size += len(chunk)
                self.count(name, size, len(chunk), compressed_size)  # before writing: never past a cap on disk
                out.write(chunk)
        return size

    def count(self, name: str, size: int, new: int, compressed_size: int | None) -> None:
        """Count ``new`` bytes of a member that has now produced ``size``; refuse past any cap."""
        self.written += new
        if size > self.max_member_bytes:
            self.refuse(name, f"holds more than {self.max_member_bytes} bytes")
        if self.written > self.max_total_bytes:
            self.refuse(name, f"takes the archive past {self.max_total_bytes} bytes")
        if compressed_size is not None:
            self.check_ratio(name, size, compressed_size)
        self.check_ratio(name, self.written, self.archive_size)

    def hash_file(self, name: str, parts: tuple[str, ...], stream: IO[bytes], compressed_size: int | None) -> int:
        """A scan's ``add_file``: the same path conflicts and caps; the bytes are hashed, not written."""
        key = "/".join(parts)
        if key in self.dirs:
            self.refuse(name, "conflicts with another member of the same path")
        for depth in range(1, len(parts)):
            if "/".join(parts[:depth]) in self.files:
                self.refuse(name, "conflicts with another member of the same path")
            self.dirs.add("/".join(parts[:depth]))
        keep = parts[-1] == _KEPT_NAME and len(parts) <= 2
        if keep and len(parts) == 2 and (deeper := [k for k in self.kept if "/" in k]):
            if deeper[0].split("/")[0] != parts[0]:
                del self.kept[deeper[0]]  # two top-level folders: none is unwrapped, none is needed
            keep = False
        digest, kept, size = hashlib.sha256(), bytearray(), 0
        while chunk := stream.read(_CHUNK):
            size += len(chunk)
            self.count(name, size, len(chunk), compressed_size)
            digest.update(chunk)
            if keep and len(kept) <= KEPT_BYTES:
                kept += chunk[: KEPT_BYTES + 1 - len(kept)]
        self.files[key] = digest.digest()
        if keep:
            self.kept[key] = bytes(kept)
        return size


class _CountingStream:
    """The decompressed tar stream, capped: headers and padding count too, so a bomb hidden in a
    pax header or in skipped data is stopped as well as one in a file's content."""

    def __init__(self, inner: IO[bytes], writer: _Writer) -> None:
        self.inner = inner
        self.writer = writer
        self.count = 0
        self.limit = writer.max_total_bytes + writer.max_files * _TAR_HEADER_ALLOWANCE + MiB
        self.member = "(tar header)"

    def read(self, size: int = -1) -> bytes:
        data = self.inner.read(size if size >= 0 else _CHUNK)
        self.count += len(data)
        if self.count > self.limit:
            self.writer.refuse(self.member, f"takes the archive's stream past {self.limit} bytes")
        self.writer.check_ratio(self.member, self.count, self.writer.archive_size)
        return data


def _extract_tar(archive: Path, writer: _Writer) -> None:
    with archive.open("rb") as raw:
        gzipped = raw.read(2) == b"\x1f\x8b"  # trust the content, not the suffix
        raw.seek(0)
        inner: IO[bytes] = gzip.GzipFile(fileobj=raw, mode="rb") if gzipped else raw
        stream = _CountingStream(inner, writer)
        try:
            # "r|": a forward-only stream; members are handled as they arrive, nothing is indexed.
            with tarfile.open(fileobj=stream, mode="r|") as tar:  # type: ignore[call-overload]
                for member in tar:
                    stream.member = member.name
                    _tar_member(tar, member, writer)
        except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as e:
            raise SubmissionError(f"is not a readable tar archive: {e}", file=str(archive)) from e


def _tar_member(tar: tarfile.TarFile, member: tarfile.TarInfo, writer: _Writer) -> None:
    name = member.name
    if member.issym():
        writer.add_link(name, member.linkname)
        return
    if member.islnk():
        writer.refuse(name, f"is a hard link (to '{member.linkname}')")
    if member.ischr() or member.isblk():
        writer.refuse(name, "is a device")
    if member.isfifo():
        writer.refuse(name, "is a fifo")
    if member.isdir():
        writer.add_dir(name)
    elif member.isreg():
        data = tar.extractfile(member)
        assert data is not None  # always a file object for a regular member
        writer.add_file(name, data, executable=bool(member.mode & 0o111))
    else:
        writer.refuse(name, f"has an unsupported type {member.type!r}")


def _extract_zip(archive: Path, writer: _Writer) -> None:
    try:
        _count_zip_entries(archive, writer)
        with zipfile.ZipFile(archive) as zf:
            infos = zf.infolist()
            if len(infos) > writer.max_files:
                writer.refuse(infos[writer.max_files].filename,
                              f"is past the limit of {writer.max_files} members")
            for info in infos:
                _zip_member(zf, info, writer)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as e:
        raise SubmissionError(f"is not a readable zip archive: {e}", file=str(archive)) from e


def _count_zip_entries(archive: Path, writer: _Writer) -> None:
    """Refuse a zip whose central directory holds more than ``max_files`` entries, walking at most
    ``max_files + 1`` of its headers: ``zipfile`` parses the whole directory before anything can be
    counted (as many entries as the upload has room for), and the count the end record declares may
    lie. What this cannot read is left to ``zipfile`` to refuse."""
    with archive.open("rb") as fp:
        end = zipfile._EndRecData(fp)  # type: ignore[attr-defined]  # the record zipfile itself reads
        if not end:
            return
        size_cd = end[zipfile._ECD_SIZE]  # type: ignore[attr-defined]
        # Where zipfile itself starts reading it (_RealGetContents), a zip64 end record included.
        start = end[zipfile._ECD_LOCATION] - size_cd  # type: ignore[attr-defined]
        if end[zipfile._ECD_SIGNATURE] == zipfile.stringEndArchive64:  # type: ignore[attr-defined]
            start -= zipfile.sizeEndCentDir64 + zipfile.sizeEndCentDir64Locator  # type: ignore[attr-defined]
        if start < 0:
            return
        fp.seek(start)
        header = zipfile.sizeCentralDir  # type: ignore[attr-defined]
        position, entries = 0, 0
        while position + header <= size_cd:
            fp.seek(start + position)
            fixed = fp.read(header)
            if len(fixed) < header or fixed[:4] != b"PK\x01\x02":
                return
            name_len, extra_len, comment_len = struct.unpack("<3H", fixed[28:34])
            entries += 1
            if entries > writer.max_files:
                raw = fp.read(name_len)  # decoded as zipfile does: UTF-8 when flagged, else cp437
                flags = struct.unpack("<H", fixed[8:10])[0]
                name = raw.decode("utf-8", "surrogateescape") if flags & 0x800 else raw.decode("cp437")
                writer.refuse(name, f"is past the limit of {writer.max_files} members")
            position += header + name_len + extra_len + comment_len


def _zip_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, writer: _Writer) -> None:
    name = info.filename
    kind = stat.S_IFMT(info.external_attr >> 16)
    if kind == stat.S_IFLNK:
        if not writer.drop_links:
            writer.refuse(name, "is a symbolic link")
        with zf.open(info) as data:  # a zip link's content is its target: read bounded, never created
            target = data.read(MAX_LINK_TARGET + 1)
        writer.add_link(name, target.decode("utf-8", "surrogateescape") if len(target) <= MAX_LINK_TARGET else "")
        return
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        writer.refuse(name, "is a device, fifo or socket")
    if info.flag_bits & 0x1:
        writer.refuse(name, "is encrypted")
    if info.is_dir() or kind == stat.S_IFDIR:
        writer.add_dir(name)
        return
    # zipfile stops reading at the declared size (and then fails its CRC check); lift it past our
    # cap plus a read's worth, so the stream yields what the member really holds and our own count
    # stops it first; then compare with the header.
    unbounded = copy.copy(info)
    unbounded.file_size = writer.max_member_bytes + 2 * _CHUNK
    with zf.open(unbounded) as data:
        size = writer.add_file(name, data, executable=bool((info.external_attr >> 16) & 0o111),
                               compressed_size=info.compress_size)
    if size is not None and size != info.file_size:
        writer.refuse(name, f"declares {info.file_size} bytes but holds {size} (a lying header)")
