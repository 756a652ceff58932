"""Hostile archives: each test names the attack ``extract_archive`` must stop."""

from __future__ import annotations

import io
import os
import stat
import struct
import tarfile
import zipfile
from pathlib import Path

import pytest

from bouts.errors import SubmissionError, UnsafeArchiveError
from bouts.loading import extract_archive
from bouts.loading.archive import extract_archive_dropping_links

MiB = 1024 * 1024


def _tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]], mode: str = "w:gz") -> Path:
    with tarfile.open(path, mode) as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                tar.addfile(info)
    return path


def _file(name: str, data: bytes = b"x") -> tuple[tarfile.TarInfo, bytes]:
    return tarfile.TarInfo(name), data


def _special(name: str, kind: bytes, linkname: str = "") -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info, None


def _zip(path: Path, members: list[tuple[str | zipfile.ZipInfo, bytes]]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members:
            zf.writestr(name, data)
    return path


def _refused(archive: Path, dest: Path, member: str, **caps: int) -> UnsafeArchiveError:
    with pytest.raises(UnsafeArchiveError) as info:
        extract_archive(archive, dest, **caps)
    err = info.value
    assert err.file == str(archive)
    assert member in err.message
    # Nothing half-extracted: neither the target nor a staging directory is left behind.
    assert not dest.exists()
    assert [p.name for p in dest.parent.iterdir() if p.name.startswith(f".{dest.name}.")] == []
    return err


def test_good_tar_gz_extracts_files(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "s.tar.gz", [_file("submission.toml", b"a"), _file("code/m.py", b"print(1)")])
    root = extract_archive(archive, tmp_path / "out")
    assert root == tmp_path / "out"
    assert (root / "code" / "m.py").read_bytes() == b"print(1)"
    assert (root / "submission.toml").read_bytes() == b"a"


def test_good_zip_extracts_files(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "s.zip", [("submission.toml", b"a"), ("code/m.py", b"print(1)")])
    root = extract_archive(archive, tmp_path / "out")
    assert (root / "code" / "m.py").read_bytes() == b"print(1)"


def test_plain_tar_extracts(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "s.tar", [_file("a.txt", b"hi")], mode="w")
    assert (extract_archive(archive, tmp_path / "out") / "a.txt").read_bytes() == b"hi"


def test_nested_single_dir_is_unwrapped(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "s.tgz", [_file("sub/submission.toml"), _file("sub/code/m.py")])
    root = extract_archive(archive, tmp_path / "out")
    assert root == tmp_path / "out" / "sub"
    assert (root / "code" / "m.py").is_file()


def test_macos_junk_does_not_prevent_unwrapping(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "s.zip", [("sub/a.txt", b"a"), ("__MACOSX/sub/._a.txt", b"junk")])
    assert extract_archive(archive, tmp_path / "out") == tmp_path / "out" / "sub"


def test_dotdot_traversal_is_refused(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "s.tar.gz", [_file("ok.txt"), _file("code/../../evil.txt")])
    _refused(archive, tmp_path / "out", "code/../../evil.txt")
    assert not (tmp_path / "evil.txt").exists()


def test_dotdot_traversal_in_zip_is_refused(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "s.zip", [("../evil.txt", b"x")])
    _refused(archive, tmp_path / "out", "../evil.txt")


def test_absolute_path_is_refused(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "s.tar.gz", [_file(str(tmp_path / "abs.txt"))])
    err = _refused(archive, tmp_path / "out", "abs.txt")
    assert "absolute" in err.message
    assert not (tmp_path / "abs.txt").exists()


def test_drive_letter_is_refused(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "s.zip", [("C:/Windows/evil.txt", b"x")])
    _refused(archive, tmp_path / "out", "C:/Windows/evil.txt")


def test_backslash_traversal_is_refused(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "s.zip", [("code\\..\\..\\evil.txt", b"x")])
    _refused(archive, tmp_path / "out", "evil.txt")


def test_symlink_member_is_refused(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "s.tar.gz", [_special("code/link", tarfile.SYMTYPE, "/etc/passwd")])
    err = _refused(archive, tmp_path / "out", "code/link")
    assert "symbolic link" in err.message


def test_symlink_member_in_zip_is_refused(tmp_path: Path) -> None:
    info = zipfile.ZipInfo("code/link")
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    archive = _zip(tmp_path / "s.zip", [(info, b"/etc/passwd")])
    _refused(archive, tmp_path / "out", "code/link")


# A submission archive is extracted dropping its symlinks (never created, returned with their target
# text, judged by the integrity judge): "no score" must never be better than a flagged score.


def test_dropped_symlink_member_is_never_created(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "s.tar.gz", [_file("code/app.py"), _special("code/link", tarfile.SYMTYPE, "/etc")])
    out = extract_archive_dropping_links(archive, tmp_path / "out")
    assert out.links == (("link", "/etc"),) and out.root == tmp_path / "out" / "code"
    assert not os.path.lexists(out.root / "link")


def test_dropped_symlink_cannot_redirect_a_later_member(tmp_path: Path) -> None:
    """The classic tar escape: a link to a directory outside, then a file written "through" it."""
    outside = tmp_path / "victim"
    outside.mkdir()
    archive = _tar(tmp_path / "s.tar.gz", [
        _special("sub/esc", tarfile.SYMTYPE, str(outside)), _file("sub/esc/pwned.txt", b"x"), _file("sub/a.txt"),
    ])
    out = extract_archive_dropping_links(archive, tmp_path / "out")
    assert list(outside.iterdir()) == []
    assert (out.root / "esc" / "pwned.txt").is_file() and not (out.root / "esc").is_symlink()


def test_dropped_symlink_names_are_still_checked(tmp_path: Path) -> None:
    for name in ("../evil", "/abs/link"):
        archive = _tar(tmp_path / "s.tar.gz", [_special(name, tarfile.SYMTYPE, "x")])
        with pytest.raises(UnsafeArchiveError):
            extract_archive_dropping_links(archive, tmp_path / "out")
    archive = _tar(tmp_path / "s.tar.gz", [_special("code/l", tarfile.SYMTYPE, "x" * 5000)])  # past PATH_MAX
    with pytest.raises(UnsafeArchiveError):
        extract_archive_dropping_links(archive, tmp_path / "out")


def test_a_dropped_link_beside_the_one_directory_keeps_the_root(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "s.tar.gz", [_file("attempt/code/app.py"), _special("evil", tarfile.SYMTYPE, "/")])
    out = extract_archive_dropping_links(archive, tmp_path / "out")
    assert out.root == tmp_path / "out" and out.links == (("evil", "/"),)


def test_hardlink_member_is_refused(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "s.tar.gz", [_file("a.txt"), _special("b.txt", tarfile.LNKTYPE, "a.txt")])
    err = _refused(archive, tmp_path / "out", "b.txt")
    assert "hard link" in err.message


def test_device_member_is_refused(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "s.tar.gz", [_special("dev/sda", tarfile.BLKTYPE)])
    assert "device" in _refused(archive, tmp_path / "out", "dev/sda").message


def test_fifo_member_is_refused(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "s.tar.gz", [_special("pipe", tarfile.FIFOTYPE)])
    assert "fifo" in _refused(archive, tmp_path / "out", "pipe").message


def test_duplicate_member_is_refused(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "s.tar.gz", [_file("code/m.py", b"good"), _file("code/./m.py", b"evil")])
    assert "twice" in _refused(archive, tmp_path / "out", "m.py").message


def test_duplicate_member_in_zip_is_refused(tmp_path: Path) -> None:
    with pytest.warns(UserWarning, match="Duplicate"):
        archive = _zip(tmp_path / "s.zip", [("a.txt", b"good"), ("a.txt", b"evil")])
    _refused(archive, tmp_path / "out", "a.txt")


def test_too_many_files_is_refused(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "s.tar.gz", [_file(f"f{i}.txt") for i in range(6)])
    _refused(archive, tmp_path / "out", "f5.txt", max_files=5)


def test_too_many_files_in_zip_is_refused(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "s.zip", [(f"f{i}.txt", b"x") for i in range(6)])
    _refused(archive, tmp_path / "out", "f5.txt", max_files=5)


def test_member_over_size_cap_is_refused(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "s.tar", [_file("big.bin", b"x" * 2000)], mode="w")
    _refused(archive, tmp_path / "out", "big.bin", max_member_bytes=1000)


def test_total_over_size_cap_is_refused(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "s.tar", [_file(f"f{i}", b"x" * 600) for i in range(3)], mode="w")
    _refused(archive, tmp_path / "out", "f1", max_total_bytes=1000)


def test_gzip_ratio_bomb_is_refused(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "s.tar.gz", [_file("zeros.bin", b"\0" * (8 * MiB))])
    err = _refused(archive, tmp_path / "out", "zeros.bin")
    assert "bomb" in err.message


def test_zip_ratio_bomb_is_refused(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "s.zip", [("zeros.bin", b"\0" * (8 * MiB))])
    assert "bomb" in _refused(archive, tmp_path / "out", "zeros.bin").message


def _lie_about_size(archive: Path, claimed: int) -> None:
    """Rewrite the uncompressed size in the local header and central directory of a one-member zip."""
    raw = bytearray(archive.read_bytes())
    local = raw.find(b"PK\x03\x04")
    struct.pack_into("<I", raw, local + 22, claimed)
    central = raw.find(b"PK\x01\x02")
    struct.pack_into("<I", raw, central + 24, claimed)
    archive.write_bytes(bytes(raw))


def test_zip_bomb_with_lying_header_is_stopped_by_stream_count(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "s.zip", [("bomb.bin", b"\0" * (4 * MiB))])
    _lie_about_size(archive, 100)
    assert zipfile.ZipFile(archive).getinfo("bomb.bin").file_size == 100  # the header really lies
    # The ratio check is off; only bytes counted while streaming can stop it.
    err = _refused(archive, tmp_path / "out", "bomb.bin", max_member_bytes=1 * MiB, max_ratio=10**9)
    assert str(1 * MiB) in err.message


def test_zip_header_understating_size_is_refused(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "s.zip", [("small.bin", b"a" * 5000)])
    _lie_about_size(archive, 10)
    assert "lying header" in _refused(archive, tmp_path / "out", "small.bin").message


def test_corrupt_archive_is_a_submission_error(tmp_path: Path) -> None:
    archive = tmp_path / "s.tar.gz"
    archive.write_bytes(b"\x1f\x8b not really gzip")
    with pytest.raises(SubmissionError) as info:
        extract_archive(archive, tmp_path / "out")
    assert info.value.file == str(archive)
    assert not (tmp_path / "out").exists()


def test_unsupported_suffix_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "s.rar"
    archive.write_bytes(b"x")
    with pytest.raises(SubmissionError, match="not a supported archive"):
        extract_archive(archive, tmp_path / "out")


def test_refusal_after_good_members_leaves_nothing(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "s.tar.gz", [_file("code/a.py"), _file("code/b.py"), _file("/etc/x")])
    _refused(archive, tmp_path / "out", "/etc/x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.tar.gz"]


def test_pax_header_bomb_is_refused(tmp_path: Path) -> None:
    info = tarfile.TarInfo("a.txt")
    info.pax_headers = {"comment": "x" * (3 * MiB)}
    archive = tmp_path / "s.tar"
    with tarfile.open(archive, "w", format=tarfile.PAX_FORMAT) as tar:
        tar.addfile(info, io.BytesIO(b""))
    with pytest.raises(UnsafeArchiveError, match="stream past"):
        extract_archive(archive, tmp_path / "out", max_total_bytes=1000, max_files=1)
    assert not (tmp_path / "out").exists()


def test_file_then_dir_of_same_path_is_refused(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "s.tar.gz", [_file("code"), _file("code/m.py")])
    assert "conflicts" in _refused(archive, tmp_path / "out", "code/m.py").message


def test_dest_must_be_empty(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "s.tar.gz", [_file("a.txt")])
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    with pytest.raises(FileExistsError):
        extract_archive(archive, tmp_path / "out")
    assert (tmp_path / "out" / "keep.txt").read_text() == "mine"
