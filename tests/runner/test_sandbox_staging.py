"""The root engine's staging: each source the per-run uid cannot reach is bound, by one ``mount``
from a table, onto a mount point made beforehand; what was made is removed name by name, never
recursively."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest

from bouts.models.challenge import Limits
from bouts.sandbox import Mount, Sandbox

bw = importlib.import_module("bouts.sandbox._bubblewrap")  # the package's own ``_bubblewrap`` is its factory

AWKWARD = "a dir\twith\\odd names\nand a newline"


def test_a_stage_has_a_mount_point_of_each_sources_kind_and_a_table_libmount_reads(tmp_path: Path) -> None:
    folder, file = tmp_path / AWKWARD, tmp_path / "plain.txt"
    folder.mkdir()
    file.write_text("x")
    stage = tmp_path / "stage"
    stage.mkdir(mode=0o700)
    table = bw.stage(str(stage), [str(folder), str(file)])
    assert (stage / "0").is_dir() and (stage / "1").is_file()
    assert stage.stat().st_mode & 0o777 == 0o755  # the per-run uid can pass through it
    assert Path(table).stat().st_mode & 0o777 == 0o600
    lines = Path(table).read_text().splitlines()
    assert len(lines) == 2  # the newline in a name did not split its line
    source, point, kind, options, *_ = lines[0].split()  # whitespace in a name did not split its field
    assert source == str(folder).replace("\\", "\\134").replace(" ", "\\040").replace("\t", "\\011").replace(
        "\n", "\\012"
    )
    assert (point, kind, options) == (f"{stage}/0", "none", "bind")


def test_unstaging_removes_only_what_staging_made_and_never_a_bound_sources_files(tmp_path: Path) -> None:
    stage = tmp_path / "stage"
    stage.mkdir()
    source = tmp_path / "source"
    source.mkdir()
    bw.stage(str(stage), [str(source), str(tmp_path)])
    (stage / "1").rmdir()
    (stage / "1").mkdir()
    (stage / "1" / "keep.txt").write_text("a source's file, as a bind still seen here would show it")
    bw.unstage(str(stage))
    assert (stage / "1" / "keep.txt").read_text().startswith("a source's file")
    assert sorted(p.name for p in stage.iterdir()) == ["1"]  # the rest removed; the stage kept, not empty
    (stage / "1" / "keep.txt").unlink()
    bw.unstage(str(stage))
    assert not stage.exists()


@pytest.mark.sandbox
@pytest.mark.skipif(os.geteuid() != 0, reason="sources are staged under a root engine only")
def test_awkwardly_named_sources_are_seen_inside_and_their_stage_is_gone_after(
    tmp_path: Path, bwrap: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = tmp_path / AWKWARD
    workspace.mkdir()
    (workspace / "inside.txt").write_text("from the workspace\n")
    data = tmp_path / "data file \\ with spaces.txt"
    data.write_text("from a mount\n")
    tmp_path.chmod(0o700)  # out of the per-run uid's reach: only the stage brings them in
    stages: list[str] = []
    real = bw.stage

    def recorded(stage_dir: str, staged: list[str]) -> str:
        stages.append(stage_dir)
        return real(stage_dir, staged)

    monkeypatch.setattr(bw, "stage", recorded)
    result = bwrap.run(
        ["/bin/sh", "-c", "cat inside.txt /data/file.txt"],
        workspace=workspace,
        env={"PATH": "/usr/bin:/bin"},
        limits=Limits(),
        timeout_s=60,
        mounts=[Mount(data, "/data/file.txt")],
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout == b"from the workspace\nfrom a mount\n"
    assert len(stages) == 1 and not os.path.exists(stages[0])
