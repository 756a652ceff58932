"""A challenge's prepared dependencies are what its tests import, in the sandbox, for the reference
and the submission alike: whoever can write them decides what the tests run. Their cache is
trusted as every engine cache is: its folders the engine user's, nobody else may write them, no
links; anything else is refused by name (an infrastructure error), never used."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from bouts.errors import InfrastructureError
from bouts.prepare import prepare_dependencies
from bouts.prepare._deps import _world_readable, environment_key


def _challenge(tmp_path: Path) -> Path:
    root = tmp_path / "challenge"
    root.mkdir()
    (root / "requirements.txt").write_text("attrs==23.2.0\n")
    return root


def _prepared(tmp_path: Path, challenge: Path) -> Path:
    """The cache as a finished preparation leaves it (made by hand: no installer runs here)."""
    cache = tmp_path / "deps"
    final = cache / "python" / environment_key([challenge / "requirements.txt"], "python")
    (final / "site" / "attrs").mkdir(parents=True)
    (final / "site" / "attrs" / "__init__.py").write_text("VERSION = '23.2.0'\n")
    for path in (cache, cache / "python"):
        path.chmod(0o700)
    _world_readable(final)
    return cache


def test_a_prepared_environment_of_the_engine_is_used(tmp_path: Path) -> None:
    challenge = _challenge(tmp_path)
    cache = _prepared(tmp_path, challenge)
    env = prepare_dependencies(challenge, "python", cache_root=cache)
    assert env is not None and (env.path / "attrs" / "__init__.py").is_file()


@pytest.mark.parametrize("opened", ["cache", "ecosystem", "environment", "site"])
def test_a_folder_others_can_write_is_refused_by_name(opened: str, tmp_path: Path) -> None:
    challenge = _challenge(tmp_path)
    cache = _prepared(tmp_path, challenge)
    final = cache / "python" / environment_key([challenge / "requirements.txt"], "python")
    path = {"cache": cache, "ecosystem": cache / "python", "environment": final, "site": final / "site"}[opened]
    path.chmod(0o777)
    with pytest.raises(InfrastructureError) as caught:
        prepare_dependencies(challenge, "python", cache_root=cache)
    assert caught.value.file == str(path)


def test_an_environment_that_is_a_link_is_refused(tmp_path: Path) -> None:
    challenge = _challenge(tmp_path)
    cache = _prepared(tmp_path, challenge)
    final = cache / "python" / environment_key([challenge / "requirements.txt"], "python")
    planted = tmp_path / "planted"
    final.rename(planted)
    final.symlink_to(planted)
    with pytest.raises(InfrastructureError, match="not a\\s+link") as caught:
        prepare_dependencies(challenge, "python", cache_root=cache)
    assert caught.value.file == str(final)


def test_a_prepared_tree_is_readable_by_the_sandbox_and_writable_by_the_engine_only(tmp_path: Path) -> None:
    root = tmp_path / "env"
    (root / "site" / "pkg").mkdir(parents=True)
    (root / "site" / "pkg" / "mod.py").write_text("x = 1\n")
    (root / "site" / "pkg" / "tool").write_text("#!/bin/sh\n")
    os.chmod(root / "site" / "pkg" / "tool", 0o774)
    os.chmod(root / "site" / "pkg" / "mod.py", 0o660)
    os.chmod(root / "site" / "pkg", 0o770)  # as an installer under umask 007 may leave them
    os.chmod(root / "site", 0o775)
    _world_readable(root)
    modes = {p.relative_to(root).as_posix(): stat.S_IMODE(p.stat().st_mode) for p in root.rglob("*")}
    assert modes == {"site": 0o755, "site/pkg": 0o755, "site/pkg/mod.py": 0o644, "site/pkg/tool": 0o755}
