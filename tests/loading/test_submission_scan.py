"""``inspect_submission_archive`` (the upload's check, bouts.service.intake) gives what
``load_submission`` gives on the same archive, meta and content hash or the same refusal, without
writing anything; and it stops reading at the first cap, so an archive past ``max_files`` is refused
having read at most ``max_files + 1`` member headers whatever it holds."""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from bouts.errors import SubmissionError
from bouts.loading import archive as archive_module
from bouts.loading import load_submission
from bouts.loading import submission as submission_module
from bouts.loading.submission import inspect_submission_archive

META = 'agent = "a"\nchallenge = "demo-1"\niteration = 1\n'
LINK = object()  # a symbolic link member; the value after it is its target
DIR = object()
Members = list[tuple[str, object]]


def _base(top: str = "s/") -> Members:
    return [(f"{top}submission.toml", META), (f"{top}code/app.py", "x = 1\n"), (f"{top}deliverables/R.md", "# r\n")]


CASES: dict[str, Members] = {
    "plain": _base(),
    "no top directory": _base(""),
    "explicit directories": [("s/", DIR), ("s/code/", DIR), *_base()],
    "caches are left out": [
        *_base(),
        ("s/code/__pycache__/app.cpython-311.pyc", "b"),
        ("s/code/m.pyc", "b"),
        ("s/code/.pytest_cache/v", "c"),
        ("s/trajectory.pyc", "t"),
    ],
    "macOS folder is skipped": [*_base(), ("__MACOSX/s/._app.py", "junk"), ("__MACOSX/", DIR)],
    "a link inside code": [*_base(), ("s/code/passwd", (LINK, "/etc/passwd"))],
    "a link beside the top directory": [*_base(), ("other", (LINK, "s"))],  # no unwrap: no root toml
    "code is a link": [("s/submission.toml", META), ("s/code", (LINK, "/"))],
    "deliverables is a link": [("s/submission.toml", META), ("s/code/x.py", ""), ("s/deliverables", (LINK, "/etc"))],
    "a trajectory": [*_base(), ("s/trajectory.jsonl", "{}\n"), ("s/trajectory", DIR)],
    "submission.toml is a link": [("s/submission.toml", (LINK, "/etc/passwd")), ("s/code/x.py", "")],
    "submission.toml is a directory": [("s/submission.toml/x", ""), ("s/code/x.py", "")],
    "no submission.toml": [("s/code/x.py", "")],
    "no code": [("s/submission.toml", META), ("s/deliverables/R.md", "")],
    "code is a file": [("s/submission.toml", META), ("s/code", "")],
    "deliverables is a file": [("s/submission.toml", META), ("s/code/x.py", ""), ("s/deliverables", "")],
    "two trajectories": [*_base(), ("s/trajectory.jsonl", "{}\n"), ("s/trajectory.json", "[]")],
    "bad TOML": [("s/submission.toml", "agent = \n"), ("s/code/x.py", "")],
    "TOML not UTF-8": [("s/submission.toml", b"agent = '\xff'\n"), ("s/code/x.py", "")],
    "submission.toml too big": [("s/submission.toml", META + "#" * (1 << 16)), ("s/code/x.py", "")],
    "a toml in each of three top folders": [(f"{t}/submission.toml", META) for t in "abc"],
    "bad field": [("s/submission.toml", META.replace("1", "-1")), ("s/code/x.py", "")],
    "path too long": [*_base(), ("s/code/" + "/".join(["d" * 200] * 6) + "/x.py", "")],
    "file then a file under it": [*_base(), ("s/code/a", ""), ("s/code/a/b", "")],
    "file under then the file": [*_base(), ("s/code/a/b", ""), ("s/code/a", "")],
    "file then a directory of its name": [*_base(), ("s/code/a", ""), ("s/code/a/", DIR)],
    "duplicate": [*_base(), ("s/code/app.py", "y = 2\n")],
    "traversal": [*_base(), ("s/../../evil.py", "")],
    "absolute": [*_base(), ("/tmp/evil.py", "")],
    "link with a traversal name": [*_base(), ("s/../l", (LINK, "x"))],
}

LOADS = {"plain", "no top directory", "explicit directories", "caches are left out", "macOS folder is skipped",
         "a link inside code", "code is a link", "deliverables is a link",
         "a trajectory"}  # fmt: skip


def _tar(path: Path, members: Members) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, value in members:
            info = tarfile.TarInfo(name)
            if value is DIR:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            elif isinstance(value, tuple):
                info.type, info.linkname = tarfile.SYMTYPE, str(value[1])
                tar.addfile(info)
            else:
                data = value.encode() if isinstance(value, str) else value
                assert isinstance(data, bytes)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return path


def _zip(path: Path, members: Members) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, value in members:
            if value is DIR:
                zf.writestr(zipfile.ZipInfo(name), b"")
            elif isinstance(value, tuple):
                info = zipfile.ZipInfo(name)
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
                zf.writestr(info, str(value[1]))
            else:
                zf.writestr(name, value)  # type: ignore[arg-type]
    return path


def _outcome(call: object) -> tuple[object, ...]:
    try:
        result = call()  # type: ignore[operator]
    except SubmissionError as exc:
        return (type(exc).__name__, exc.message, exc.file, exc.field)
    return ("ok", *result)


@pytest.mark.filterwarnings("ignore:Duplicate name")  # the "duplicate" case, written on purpose
@pytest.mark.parametrize("kind", ["tar.gz", "zip"])
@pytest.mark.parametrize("case", list(CASES))
def test_the_scan_answers_as_the_loader_does(tmp_path: Path, case: str, kind: str) -> None:
    archive = (_tar if kind == "tar.gz" else _zip)(tmp_path / f"up.{kind}", CASES[case])

    def loaded() -> tuple[object, str]:
        sub = load_submission(archive, tmp_path / "work")
        return sub.meta, sub.content_hash

    expected = _outcome(loaded)
    assert _outcome(lambda: inspect_submission_archive(archive)) == expected
    assert (expected[0] == "ok") == (case in LOADS)  # each case is what its name says


def test_the_scan_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = _tar(tmp_path / "up.tar.gz", CASES["plain"])

    def no_writes(*args: object, **kwargs: object) -> None:
        raise AssertionError("the scan created a file or directory")

    monkeypatch.setattr(archive_module.os, "open", no_writes)
    monkeypatch.setattr(archive_module.tempfile, "mkdtemp", no_writes)
    meta, digest = inspect_submission_archive(archive)
    assert meta.agent == "a" and len(digest) == 64


def _many(n: int) -> Members:
    return [("s/submission.toml", META), *((f"s/code/f{i}.py", f"x = {i}\n") for i in range(n))]


def test_a_tar_past_the_file_limit_is_refused_after_limit_plus_one_headers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    limit = 20
    archive = _tar(tmp_path / "many.tar.gz", _many(10 * limit))
    monkeypatch.setattr(submission_module, "MAX_FILES", limit)
    headers = 0
    real = tarfile.TarInfo.fromtarfile.__func__  # type: ignore[attr-defined]

    def counting(cls: type[tarfile.TarInfo], tar: tarfile.TarFile) -> tarfile.TarInfo:
        nonlocal headers
        headers += 1
        return real(cls, tar)

    monkeypatch.setattr(tarfile.TarInfo, "fromtarfile", classmethod(counting))
    with pytest.raises(SubmissionError, match=f"past the limit of {limit} members"):
        inspect_submission_archive(archive)
    assert headers == limit + 1


@pytest.mark.parametrize("zip64", [False, True])
def test_a_zip_past_the_file_limit_is_refused_before_zipfile_reads_its_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, zip64: bool
) -> None:
    """``zipfile`` parses every central-directory entry on opening (as many as the upload has room
    for, whatever the end record declares): the entries are counted first, at most limit + 1. With
    more than 65,535 entries a zip ends with a zip64 record (forced here on a small one)."""
    limit = 20
    with monkeypatch.context() as m:
        if zip64:
            m.setattr(zipfile, "ZIP_FILECOUNT_LIMIT", 10)
        archive = _zip(tmp_path / "many.zip", _many(10 * limit))
    assert (b"PK\x06\x06" in archive.read_bytes()[-200:]) == zip64  # the zip64 end record
    monkeypatch.setattr(submission_module, "MAX_FILES", limit)
    parsed, read = [], 0
    monkeypatch.setattr(zipfile.ZipFile, "_RealGetContents", lambda self: parsed.append(self))
    real_read = io.BufferedReader.read

    class Counting(io.BufferedReader):
        def read(self, size: int | None = -1) -> bytes:
            nonlocal read
            data = real_read(self, size)
            read += len(data)
            return data

    real_open = Path.open
    monkeypatch.setattr(Path, "open", lambda self, mode="r", *a, **k: Counting(io.FileIO(self, "rb"))
                        if mode == "rb" else real_open(self, mode, *a, **k))  # fmt: skip
    with pytest.raises(SubmissionError, match=f"past the limit of {limit} members"):
        inspect_submission_archive(archive)
    assert parsed == []
    # The end record (zipfile looks at the last 22 bytes, then up to 64 KiB for a comment) and
    # limit + 1 directory headers with their names: not the other 180 entries.
    header = 46 + len("s/code/f100.py")
    assert read <= 22 + 76 + (limit + 1) * header + 1024 < archive.stat().st_size
