"""Issue 36: an archive of Python modules is removed from the workspace like compiled code.

``zipimport`` imports from any file whose end is a zip directory once it is on ``sys.path``, and no
judge reads inside an archive: the red team's hard-coded price in a ``.zip`` on ``sys.path`` lifted
the example's low anchor from 27 to 53. The runner decides by content, whatever the file's name."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from bouts.runner import assemble_workspace


def _zip(members: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, text in members.items():
            z.writestr(name, text)
    return buffer.getvalue()


def test_archives_holding_python_are_removed_and_data_archives_kept(tmp_path: Path) -> None:
    code, tests = tmp_path / "code", tmp_path / "tests"
    (code / "pkg").mkdir(parents=True)
    (tests / "visible").mkdir(parents=True)
    (code / "pkg" / "__init__.py").write_text("")
    (code / "pkg" / "_fast.zip").write_bytes(_zip({"fastmoney.py": "X = 1\n"}))
    (code / "pkg" / "speedups-1.0.egg").write_bytes(_zip({"speedups/__init__.pyc": ""}))
    (code / "pkg" / "blob.bin").write_bytes(_zip({"m.py": ""}))  # a zip by content, not by name
    (code / "pkg" / "fixtures.zip").write_bytes(_zip({"rates.csv": "sku,price\n"}))
    (code / "pkg" / "notes.zip").write_bytes(b"PK\x03\x04 not an archive")
    removed = assemble_workspace(code, tests, tmp_path / "ws")
    assert removed == ["pkg/_fast.zip", "pkg/blob.bin", "pkg/speedups-1.0.egg"]
    kept = sorted(p.name for p in (tmp_path / "ws" / "pkg").iterdir())
    assert kept == ["__init__.py", "fixtures.zip", "notes.zip"]
