"""Loading submissions from directories and archives, and refusing malformed ones by file and field."""

from __future__ import annotations

import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from bouts.errors import SubmissionError, UnsafeArchiveError
from bouts.loading import check_matches, load_challenge, load_submission
from bouts.loading import submission as submission_module
from bouts.models.submission import DroppedLink

GOOD_META = 'agent = "claude"\nchallenge = "demo-1"\niteration = 2\nelapsed_s = 61.5\n'


def make_submission(root: Path, meta: str = GOOD_META, *, trajectory: bool = True) -> Path:
    files = {
        "submission.toml": meta,
        "code/app.py": "def f():\n    return 2\n",
        "deliverables/ROOT_CAUSE.md": "# why\n",
    }
    if trajectory:
        files["trajectory.jsonl"] = '{"t": 0, "kind": "submit"}\n'
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def make_challenge(root: Path, challenge_id: str = "demo-1") -> Path:
    for d in ("starter", "reference", "tests/visible", "tests/hidden"):
        (root / d).mkdir(parents=True)
    (root / "challenge.toml").write_text(f'id = "{challenge_id}"\ntitle = "Demo"\n')
    return root


def _error(path: Path, workdir: Path) -> SubmissionError:
    with pytest.raises(SubmissionError) as info:
        load_submission(path, workdir)
    return info.value


def test_directory_submission_loads(tmp_path: Path) -> None:
    root = make_submission(tmp_path / "sub")
    sub = load_submission(root, tmp_path / "work")
    assert sub.meta.agent == "claude" and sub.meta.iteration == 2 and sub.meta.elapsed_s == 61.5
    assert sub.code_dir == root / "code"
    assert sub.deliverables_dir == root / "deliverables"
    assert sub.trajectory_path == root / "trajectory.jsonl"
    assert len(sub.content_hash) == 64


def test_optional_parts_may_be_absent(tmp_path: Path) -> None:
    root = make_submission(tmp_path / "sub", trajectory=False)
    (root / "deliverables/ROOT_CAUSE.md").unlink()
    (root / "deliverables").rmdir()
    sub = load_submission(root, tmp_path / "work")
    assert sub.trajectory_path is None and sub.deliverables_dir is None


def test_tar_gz_submission_with_single_dir_loads(tmp_path: Path) -> None:
    src = make_submission(tmp_path / "sub")
    archive = tmp_path / "sub.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(src, arcname="attempt-1")
    sub = load_submission(archive, tmp_path / "work")
    assert sub.root.name == "attempt-1" and sub.root.is_relative_to(tmp_path / "work")
    assert (sub.code_dir / "app.py").read_text().startswith("def f")
    # The same tree hashes the same whether it came as a directory or an archive.
    assert sub.content_hash == load_submission(src, tmp_path / "work").content_hash


def test_zip_submission_loads(tmp_path: Path) -> None:
    src = make_submission(tmp_path / "sub")
    archive = tmp_path / "sub.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for p in sorted(src.rglob("*")):
            if p.is_file():
                zf.write(p, p.relative_to(src).as_posix())
    sub = load_submission(archive, tmp_path / "work")
    assert sub.meta.challenge == "demo-1"
    assert sub.trajectory_path is not None and sub.trajectory_path.name == "trajectory.jsonl"


def test_hostile_archive_is_refused_as_unsafe(tmp_path: Path) -> None:
    archive = tmp_path / "sub.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("../../escape.txt", "x")
    with pytest.raises(UnsafeArchiveError):
        load_submission(archive, tmp_path / "work")
    assert not (tmp_path / "escape.txt").exists()
    assert list((tmp_path / "work").iterdir()) == []


def test_archive_file_names_use_the_archive_path(tmp_path: Path) -> None:
    archive = tmp_path / "sub.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("submission.toml", GOOD_META)
    err = _error(archive, tmp_path / "work")
    assert err.file == f"{archive}!code"


def test_malformed_submission_toml_names_file_and_field(tmp_path: Path) -> None:
    root = make_submission(tmp_path / "sub", GOOD_META.replace("iteration = 2", "iteration = 0"))
    err = _error(root, tmp_path / "work")
    assert err.file == str(root / "submission.toml")
    assert err.field == "iteration"


def test_submission_toml_syntax_error_names_line(tmp_path: Path) -> None:
    root = make_submission(tmp_path / "sub", 'agent = "a"\nchallenge = \n')
    err = _error(root, tmp_path / "work")
    assert err.file == str(root / "submission.toml") and "line 2" in err.message


def test_missing_required_key_names_it(tmp_path: Path) -> None:
    root = make_submission(tmp_path / "sub", 'challenge = "demo-1"\n')
    err = _error(root, tmp_path / "work")
    assert err.field == "agent" and "required" in err.message


def test_missing_submission_toml_is_refused(tmp_path: Path) -> None:
    root = make_submission(tmp_path / "sub")
    (root / "submission.toml").unlink()
    assert _error(root, tmp_path / "work").file == str(root / "submission.toml")


def test_missing_code_dir_is_refused(tmp_path: Path) -> None:
    root = make_submission(tmp_path / "sub")
    (root / "code/app.py").unlink()
    (root / "code").rmdir()
    err = _error(root, tmp_path / "work")
    assert err.file == str(root / "code") and "missing" in err.message


def test_two_trajectories_are_refused(tmp_path: Path) -> None:
    root = make_submission(tmp_path / "sub")
    (root / "trajectory.log").write_text("x")
    err = _error(root, tmp_path / "work")
    assert err.field == "trajectory"
    assert err.file is not None and err.file.startswith(str(root))
    assert "trajectory.jsonl" in err.message and "trajectory.log" in err.message


# -- links that leave the submission: dropped and recorded, never refused, never followed ------------
# Refusing them gave a cheating submission "no score" (exit 2), which must never be better than a
# flagged score; the integrity judge gives such a link its bright line (tests/judges/integrity).


def test_symlink_leaving_a_directory_submission_is_dropped_and_recorded(tmp_path: Path) -> None:
    root = make_submission(tmp_path / "sub")
    plain = load_submission(root, tmp_path / "work").content_hash
    os.symlink("/etc/passwd", root / "code" / "passwd")
    sub = load_submission(root, tmp_path / "work")
    assert sub.dropped_links == (DroppedLink(path="code/passwd", target="/etc/passwd"),)
    assert sub.code_dir == root / "code"  # the link stays where the author put it: inert, never followed
    assert sub.content_hash != plain  # the link is part of what was submitted


def test_link_to_a_directory_outside_is_dropped_not_descended(tmp_path: Path) -> None:
    outside = tmp_path / "host"
    (outside / "secret").mkdir(parents=True)
    (outside / "secret" / "key.txt").write_text("k")
    root = make_submission(tmp_path / "sub")
    os.symlink(outside, root / "code" / "escape")
    sub = load_submission(root, tmp_path / "work")
    assert [link.path for link in sub.dropped_links] == ["code/escape"]


def test_links_inside_the_submission_are_kept_and_loops_are_harmless(tmp_path: Path) -> None:
    root = make_submission(tmp_path / "sub")
    os.symlink("app.py", root / "code" / "alias.py")
    os.symlink("loop_b", root / "code" / "loop_a")
    os.symlink("loop_a", root / "code" / "loop_b")
    sub = load_submission(root, tmp_path / "work")  # Path.resolve() raised RuntimeError on the loop
    assert sub.dropped_links == ()


def test_deliverable_linked_outside_is_not_read_through_the_link(tmp_path: Path) -> None:
    secret = tmp_path / "host" / "hidden_tests.py"
    secret.parent.mkdir()
    secret.write_text("HIDDEN")
    root = make_submission(tmp_path / "sub")
    (root / "deliverables" / "ROOT_CAUSE.md").rename(root / "deliverables" / "ADR.md")
    os.symlink(secret, root / "deliverables" / "ROOT_CAUSE.md")
    os.symlink(secret.parent, root / "deliverables" / "docs")  # a linked directory on the way
    sub = load_submission(root, tmp_path / "work")
    assert {link.path for link in sub.dropped_links} == {"deliverables/ROOT_CAUSE.md", "deliverables/docs"}
    assert sub.deliverables_dir is not None and sub.deliverables_dir.is_relative_to(tmp_path / "work")
    assert sorted(p.name for p in sub.deliverables_dir.iterdir()) == ["ADR.md"]  # a copy without links


@pytest.mark.parametrize("part", ["code", "deliverables", "trajectory.jsonl"])
def test_a_required_part_that_is_a_link_leaving_is_absent_not_followed(tmp_path: Path, part: str) -> None:
    outside = tmp_path / "host"
    outside.mkdir()
    (outside / "app.py").write_text("STOLEN = 1\n")
    root = make_submission(tmp_path / "sub")
    real = root / part
    if real.is_dir():
        for child in real.iterdir():
            child.unlink()
        real.rmdir()
    else:
        real.unlink()
    os.symlink(outside if part != "trajectory.jsonl" else outside / "app.py", real)
    sub = load_submission(root, tmp_path / "work")
    assert [link.path for link in sub.dropped_links] == [part]
    if part == "code":  # scored as an empty tree (and flagged), not refused
        assert sub.code_dir.is_dir() and list(sub.code_dir.iterdir()) == []
        assert sub.code_dir.is_relative_to(tmp_path / "work")
    elif part == "deliverables":
        assert sub.deliverables_dir is None
    else:
        assert sub.trajectory_path is None


@pytest.mark.parametrize("part", ["code", "deliverables"])
def test_a_folder_that_links_inside_the_submission_is_dropped_too(tmp_path: Path, part: str) -> None:
    """``code -> impl``: the runner and every judge read ``code`` as a folder, so a link there would be
    followed by some and not by others (the tests ran code no judge read). Dropped like any link."""
    root = make_submission(tmp_path / "sub")
    (root / part).rename(root / "impl")
    os.symlink("impl", root / part)
    sub = load_submission(root, tmp_path / "work")
    assert sub.dropped_links == (DroppedLink(path=part, target="impl"),)
    if part == "code":
        assert not sub.code_dir.is_symlink() and list(sub.code_dir.iterdir()) == []
    else:
        assert sub.deliverables_dir is None


def test_a_name_that_is_not_utf8_is_refused_naming_it_escaped(tmp_path: Path) -> None:
    root = make_submission(tmp_path / "sub")
    os.mkdir(os.fsencode(root / "code") + b"/pkg\xff")
    with open(os.fsencode(root / "code") + b"/pkg\xff/notes.txt", "w") as fh:
        fh.write("x")
    err = _error(root, tmp_path / "work")
    assert "not valid UTF-8" in err.message and err.file.endswith("code/pkg\\xff")
    err.file.encode("utf-8")  # printable: no lone surrogate
    archive = tmp_path / "sub.tar"
    with tarfile.open(archive, "w", format=tarfile.GNU_FORMAT) as tar:
        tar.add(root, arcname="attempt")
    err = _error(archive, tmp_path / "work2")
    assert "not valid UTF-8" in err.message and err.file.endswith("code/pkg\\xff")  # the same from an archive
    os.unlink(os.fsencode(root / "code") + b"/pkg\xff/notes.txt")
    os.rmdir(os.fsencode(root / "code") + b"/pkg\xff")
    with open(os.fsencode(root / "code") + b"/x\xff.pyc", "wb") as fh:  # a file the hash skips: named all the same
        fh.write(b"x")
    assert "not valid UTF-8" in _error(root, tmp_path / "work3").message
    os.unlink(os.fsencode(root / "code") + b"/x\xff.pyc")
    os.mkdir(root / "code" / "__pycache__")  # a folder neither hashed nor run: the judges still read it
    with open(os.fsencode(root / "code") + b"/__pycache__/y\xfe.pyc", "wb") as fh:
        fh.write(b"x")
    assert "not valid UTF-8" in _error(root, tmp_path / "work4").message
    os.unlink(os.fsencode(root / "code") + b"/__pycache__/y\xfe.pyc")
    os.symlink(b"../t\xff", os.fsencode(root / "code") + b"/link")  # a target is reported as text too
    err = _error(root, tmp_path / "work5")
    assert "target is not valid UTF-8 (../t\\xff)" in err.message and err.file.endswith("code/link")


def test_a_path_longer_than_a_tree_may_hold_is_refused(tmp_path: Path) -> None:
    root = make_submission(tmp_path / "sub")
    deep = root / "code" / "/".join(["d" * 100] * 11)
    deep.mkdir(parents=True)
    (deep / "x.py").write_text("x")
    err = _error(root, tmp_path / "work")
    assert "longer than the 1024" in err.message and "code/ddd" in err.file


def test_submission_toml_linked_outside_is_refused_not_read(tmp_path: Path) -> None:
    meta = tmp_path / "meta.toml"
    meta.write_text(GOOD_META)
    root = make_submission(tmp_path / "sub")
    (root / "submission.toml").unlink()
    os.symlink(meta, root / "submission.toml")
    err = _error(root, tmp_path / "work")
    assert err.file == str(root / "submission.toml") and "symbolic link" in err.message


def test_archive_symlink_member_is_dropped_and_hashes_like_the_directory(tmp_path: Path) -> None:
    src = make_submission(tmp_path / "sub")
    os.symlink("/etc/passwd", src / "code" / "passwd")
    archive = tmp_path / "sub.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(src, arcname="attempt-1")
    sub = load_submission(archive, tmp_path / "work")
    assert sub.dropped_links == (DroppedLink(path="code/passwd", target="/etc/passwd"),)
    assert not os.path.lexists(sub.code_dir / "passwd")  # never created
    assert sub.content_hash == load_submission(src, tmp_path / "work").content_hash


def test_zip_symlink_member_is_dropped(tmp_path: Path) -> None:
    archive = tmp_path / "sub.zip"
    src = make_submission(tmp_path / "sub")
    with zipfile.ZipFile(archive, "w") as zf:
        for p in sorted(src.rglob("*")):
            if p.is_file():
                zf.write(p, p.relative_to(src).as_posix())
        info = zipfile.ZipInfo("code/answers")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(info, "../../reference")
    sub = load_submission(archive, tmp_path / "work")
    assert sub.dropped_links == (DroppedLink(path="code/answers", target="../../reference"),)
    assert not os.path.lexists(sub.code_dir / "answers")


def test_huge_directory_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(submission_module, "MAX_FILES", 3)
    root = make_submission(tmp_path / "sub")
    (root / "code/more.py").write_text("")
    assert "more than 3 files" in _error(root, tmp_path / "work").message


def test_oversized_directory_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(submission_module, "MAX_TOTAL_BYTES", 1000)
    root = make_submission(tmp_path / "sub")
    (root / "code/blob.bin").write_bytes(b"x" * 2000)
    assert "more than 1000 bytes" in _error(root, tmp_path / "work").message


def test_not_a_submission_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    assert "neither" in _error(tmp_path / "notes.txt", tmp_path / "work").message
    assert "does not exist" in _error(tmp_path / "nope", tmp_path / "work").message


def test_matching_challenge_passes(tmp_path: Path) -> None:
    challenge = load_challenge(make_challenge(tmp_path / "ch"))
    check_matches(challenge, load_submission(make_submission(tmp_path / "sub"), tmp_path / "work"))


def test_mismatched_challenge_id_is_refused(tmp_path: Path) -> None:
    challenge = load_challenge(make_challenge(tmp_path / "ch", "other-challenge"))
    sub = load_submission(make_submission(tmp_path / "sub"), tmp_path / "work")
    with pytest.raises(SubmissionError) as info:
        check_matches(challenge, sub)
    assert info.value.field == "challenge"
    assert info.value.file == str(tmp_path / "sub" / "submission.toml")
    assert "demo-1" in info.value.message and "other-challenge" in info.value.message


def test_toml_nested_too_deeply_is_a_syntax_error_naming_the_file(tmp_path: Path) -> None:
    # tomllib parses arrays recursively: 20,000 nested brackets (under MAX_META_BYTES) raised RecursionError.
    root = make_submission(tmp_path / "sub", GOOD_META + "x = " + "[" * 20_000 + "]" * 20_000 + "\n")
    err = _error(root, tmp_path / "work")
    assert err.file is not None and err.file.endswith("submission.toml")
    assert "nested too deeply" in str(err)
