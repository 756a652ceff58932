"""``bouts advisories import``: read osv.dev exports (a zip of one JSON per advisory, or a folder of
them) into the local store. The input is untrusted: bounded member sizes, total size and count, no
member name that leaves the archive, and every record checked before anything is written (a bad one
stops the import with an error naming the file and the field). I/O edge.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from bouts.judges.security.advisories._manifests import pypi_key
from bouts.judges.security.advisories._osv import (
    SUPPORTED_ECOSYSTEMS,
    AdvisoryError,
    OsvRecord,
    decode,
    parse_record,
)
from bouts.judges.security.advisories._store import StoreInfo, write_store


@dataclass(frozen=True)
class ImportLimits:
    """Caps on one import; the defaults hold osv.dev's PyPI and npm exports with room to spare."""

    record_bytes: int = 16 * 1024 * 1024
    """One advisory's JSON (real ones are a few KiB)."""
    total_bytes: int = 4 * 1024 * 1024 * 1024
    """Everything read, uncompressed, over all sources."""
    members: int = 2_000_000
    """Files in one archive or folder."""


@dataclass
class ImportReport:
    info: StoreInfo
    read: int = 0
    """Records read and checked."""
    stored: int = 0
    withdrawn: int = 0
    other_ecosystems: int = 0
    """Records affecting no ecosystem the judge reads (kept out of the store)."""
    skipped_files: int = 0
    """Files that are not ``*.json`` (a README in a folder, say)."""
    ecosystems: tuple[str, ...] = ()
    sources: list[str] = field(default_factory=list)


def import_export(sources: Sequence[Path], store: Path, *, limits: ImportLimits = ImportLimits()) -> ImportReport:
    """Check every record of ``sources`` (zips or folders), then replace the store's advisories of
    each ecosystem they cover. Raises ``AdvisoryError`` (names the file and field) on bad input."""
    if not sources:
        raise AdvisoryError("give at least one export (a .zip or a folder of OSV JSON files)")
    records: dict[str, tuple[OsvRecord, str]] = {}
    index: dict[str, set[tuple[str, str]]] = {}
    covered: set[str] = set()
    counts = {"read": 0, "withdrawn": 0, "other": 0, "skipped": 0}
    budget = [limits.total_bytes]
    digest = hashlib.sha256()
    for source in sources:
        for name, data in _members(source, limits, budget, counts):
            text = decode(data, name)
            rec = parse_record(text, file=name)
            counts["read"] += 1
            digest.update(hashlib.sha256(data).digest())
            ecos = {a.package.ecosystem for a in rec.affected} & set(SUPPORTED_ECOSYSTEMS)
            covered |= ecos
            if not ecos:
                counts["other"] += 1
                continue
            if rec.withdrawn:
                counts["withdrawn"] += 1
                continue
            kept = records.get(rec.id)
            if kept is None or rec.modified >= kept[0].modified:  # one advisory in two exports: the newer
                records[rec.id] = (rec, text)
                index[rec.id] = {(a.package.ecosystem, _key(a.package.ecosystem, a.package.name))
                                 for a in rec.affected if a.package.ecosystem in SUPPORTED_ECOSYSTEMS}
    if counts["read"] == 0:
        raise AdvisoryError("no OSV records (*.json) found", file=", ".join(map(str, sources)))
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    summary = f"{counts['read']} read, {len(records)} stored, ecosystems {', '.join(sorted(covered)) or 'none'}"
    source_label = ", ".join(str(s) for s in sources)
    info = write_store(store, records, covered, index, (source_label, digest.hexdigest(), summary), now)
    return ImportReport(info, counts["read"], len(records), counts["withdrawn"], counts["other"], counts["skipped"],
                        tuple(sorted(covered)), [str(s) for s in sources])


def _key(ecosystem: str, name: str) -> str:
    return pypi_key(name) if ecosystem == "PyPI" else name


def _members(source: Path, limits: ImportLimits, budget: list[int], counts: dict[str, int]
             ) -> Iterator[tuple[str, bytes]]:
    if source.is_dir():
        yield from _folder(source, limits, budget, counts)
    elif source.is_file():
        yield from _zip(source, limits, budget, counts)
    else:
        raise AdvisoryError("no such file or folder", file=str(source))


def _zip(path: Path, limits: ImportLimits, budget: list[int], counts: dict[str, int]) -> Iterator[tuple[str, bytes]]:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise AdvisoryError(f"not a zip archive ({exc})", file=str(path)) from None
    with archive:
        infos = archive.infolist()
        if len(infos) > limits.members:
            raise AdvisoryError(f"{len(infos)} members, over the cap of {limits.members}", file=str(path))
        for info in infos:
            where = f"{path}!{info.filename}"
            _check_name(info.filename, where)
            if info.is_dir():
                continue
            if not info.filename.endswith(".json"):
                counts["skipped"] += 1
                continue
            if info.file_size > limits.record_bytes:
                raise AdvisoryError(f"{info.file_size} bytes uncompressed, over the cap of {limits.record_bytes} "
                                    "for one advisory", file=where)
            try:
                with archive.open(info) as fh:
                    data = fh.read(limits.record_bytes + 1)  # the header's size is not trusted
            except (zipfile.BadZipFile, RuntimeError, OSError, NotImplementedError, EOFError) as exc:
                raise AdvisoryError(f"cannot be read from the archive ({exc})", file=where) from None
            yield where, _charge(data, where, limits, budget)


def _folder(root: Path, limits: ImportLimits, budget: list[int], counts: dict[str, int]
            ) -> Iterator[tuple[str, bytes]]:
    seen = 0
    for dirpath, dirnames, filenames in os.walk(root):  # links to folders are not followed
        dirnames.sort()
        for fname in sorted(filenames):
            path = Path(dirpath) / fname
            seen += 1
            if seen > limits.members:
                raise AdvisoryError(f"more than {limits.members} files, over the cap", file=str(root))
            if path.is_symlink() or not fname.endswith(".json") or not path.is_file():
                counts["skipped"] += 1
                continue
            if path.stat().st_size > limits.record_bytes:
                raise AdvisoryError(f"{path.stat().st_size} bytes, over the cap of {limits.record_bytes} "
                                    "for one advisory", file=str(path))
            with path.open("rb") as fh:
                data = fh.read(limits.record_bytes + 1)
            yield str(path), _charge(data, str(path), limits, budget)


def _check_name(name: str, where: str) -> None:
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if name.startswith(("/", "\\")) or ".." in parts or (parts and ":" in parts[0]):
        raise AdvisoryError("member name leaves the archive (absolute, a drive, or '..'); refusing the archive",
                            file=where, field="name")


def _charge(data: bytes, where: str, limits: ImportLimits, budget: list[int]) -> bytes:
    if len(data) > limits.record_bytes:
        raise AdvisoryError(f"larger than the cap of {limits.record_bytes} bytes for one advisory", file=where)
    budget[0] -= len(data)
    if budget[0] < 0:
        raise AdvisoryError(f"the export holds more than {limits.total_bytes} bytes uncompressed, over the cap",
                            file=where)
    return data
