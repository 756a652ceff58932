"""The submission view (``bouts.loading.view``): read once, bounded, links never followed, and what is
left out of judging decided in one place — by what the challenge declares or a lockfile shows, never
by a folder's name."""

from __future__ import annotations

import base64
import hashlib
import json
import os
from pathlib import Path

import pytest

from bouts.languages import language
from bouts.loading import load_challenge
from bouts.loading.view import build_view, read_file_tree, read_view
from bouts.models.view import MAX_FILE_BYTES, glob_matches
from bouts.runner import assemble_workspace

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def test_every_folder_is_read_links_are_listed_never_followed(tmp_path: Path) -> None:
    outside = write(tmp_path / "outside", {"secret.py": "TOKEN = 1\n"})
    code = write(tmp_path / "code", {
        "league/table.py": "x = 1\n", "build/impl.py": "y = 2\n", "dist/a.py": "", "venv/lib/b.py": "",
        ".venv/c.py": "", "site-packages/d.py": "", ".hidden/e.py": "",
    })  # fmt: skip
    os.symlink(outside / "secret.py", code / "league" / "leak.py")
    os.symlink(outside, code / "linked")
    os.mkfifo(code / "pipe.py")
    tree = read_file_tree(code)
    assert {"league/table.py", "build/impl.py", "dist/a.py", "venv/lib/b.py", ".venv/c.py", "site-packages/d.py",
            ".hidden/e.py"} <= set(tree.files)
    assert dict(tree.links) == {"league/leak.py": str(outside / "secret.py"), "linked": str(outside)}
    assert "secret.py" not in {Path(r).name for r in tree.files}
    assert tree.files["pipe.py"].data is None and tree.files["pipe.py"].skipped == "not a regular file"


def test_a_file_over_the_cap_is_cut_but_hashed_whole(tmp_path: Path) -> None:
    big = b"a" * (MAX_FILE_BYTES + 10)
    other = b"a" * MAX_FILE_BYTES + b"b" * 10  # same first MiB, same size, other content
    code = write(tmp_path / "code", {"big.py": big})
    starter = write(tmp_path / "starter", {"big.py": other})
    view = read_view(code, starter)
    f = view.code.files["big.py"]
    assert f.truncated and f.text is None and len(f.data or b"") == MAX_FILE_BYTES and f.size == len(big)
    assert f.sha256 == hashlib.sha256(big).hexdigest()
    assert view.changes == {"big.py": "modified"}  # the cap never hides a change


def test_changes_are_judged_files_only(tmp_path: Path) -> None:
    starter = write(tmp_path / "starter", {"app/a.py": "A = 1\n", "app/gone.py": "", "tests/test_a.py": ""})
    code = write(tmp_path / "code", {"app/a.py": "A = 2\n", "app/new.py": "", "tests/test_a.py": "changed",
                                     "app/__pycache__/a.cpython-311.pyc": b"\0"})
    view = read_view(code, starter, protected=("tests/**",))
    assert dict(view.changes) == {"app/a.py": "modified", "app/gone.py": "deleted", "app/new.py": "added"}
    assert "tests/test_a.py" in view.code and "tests/test_a.py" not in view.judged
    assert "app/__pycache__/a.cpython-311.pyc" in view.integrity_code  # the integrity judge still sees bytecode
    assert [e.kind for e in view.excluded] == ["bytecode"]


def test_declared_vendored_code_is_excluded_and_listed(tmp_path: Path) -> None:
    code = write(tmp_path / "code", {"vendor/lib/x.py": "", "vendor/lib/y.py": "", "app/main.py": ""})
    view = read_view(code, None, vendored=("vendor/**",))
    (e,) = view.excluded
    assert (e.path, e.members, e.kind) == ("vendor/**", ("vendor/lib/x.py", "vendor/lib/y.py"), "vendored")
    assert set(view.judged.files) == {"app/main.py"}
    assert set(view.integrity_code.files) == set(view.code.files)  # vendored code is still read for integrity


def test_npm_lockfile_shows_vendored_packages(tmp_path: Path) -> None:
    lock = {"name": "app", "lockfileVersion": 3, "packages": {
        "": {"name": "app"},
        "node_modules/lodash": {"version": "4.17.21"},
        "node_modules/@scope/pkg": {"version": "1.0.0"},
        "node_modules/../../escape": {"version": "1"},
    }}  # fmt: skip
    code = write(tmp_path / "code", {
        "package-lock.json": json.dumps(lock), "node_modules/lodash/index.js": "",
        "node_modules/@scope/pkg/index.js": "", "node_modules/mine/index.js": "", "src/app.js": "",
        "node_modules/lodash/impl.py": "",  # importable from a Python test: no lockfile vouches for it
    })  # fmt: skip
    view = read_view(code, None, language="python")
    excluded = {e.path: e.members for e in view.excluded}
    assert excluded == {"node_modules/@scope/pkg/": ("node_modules/@scope/pkg/index.js",),
                        "node_modules/lodash/": ("node_modules/lodash/index.js",)}
    assert "node_modules/mine/index.js" in view.judged  # not in the lockfile: the submission's own
    assert "node_modules/lodash/impl.py" in view.judged


def test_javascript_node_modules_is_not_run(tmp_path: Path) -> None:
    code = write(tmp_path / "code", {"node_modules/dep/index.js": "", "src/app.js": ""})
    os.symlink("../dep/index.js", code / "node_modules" / "bin")
    view = read_view(code, None, language="javascript")
    assert [e.kind for e in view.excluded] == ["not-run"]
    assert set(view.integrity_code.files) == {"src/app.js"} and not view.integrity_code.links
    assert "node_modules/dep/index.js" in read_view(code, None, language="python").judged  # Python: judged


def _record_row(rel: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{rel},sha256={digest},{len(data)}"


def test_nothing_the_submission_says_of_itself_excludes_code_that_runs(tmp_path: Path) -> None:
    """An environment's ``site-packages`` is left out (the runner deletes it: it never runs); a
    ``*.dist-info/RECORD`` anywhere else is the submission's own claim, and the files it lists, with
    their right hashes, are judged: they would run (``from ledger_impl import ...``)."""
    site = "venv/lib/python3.11/site-packages"
    body = b"def get(): ...\n"
    record = "\n".join([_record_row("ledger_impl/core.py", body), "ledger_impl-1.0.dist-info/RECORD,,"])
    code = write(tmp_path / "code", {
        f"{site}/requests/api.py": body, f"{site}/requests-2.0.dist-info/RECORD": _record_row("requests/api.py", body),
        "ledger_impl/core.py": body, "ledger_impl-1.0.dist-info/RECORD": record, "app/main.py": "",
    })  # fmt: skip
    view = read_view(code, None)
    (e,) = view.excluded
    assert (e.path, e.kind) == ("site-packages/", "not-run")
    assert set(e.members) == {f"{site}/requests/api.py", f"{site}/requests-2.0.dist-info/RECORD"}
    assert {"ledger_impl/core.py", "app/main.py"} <= {f.rel for f in view.judged}
    ws = tmp_path / "ws"
    assemble_workspace(code, tmp_path / "tests", ws, replaced=language("python").replaced_by_runner)
    assert not (ws / "venv" / "lib" / "python3.11" / "site-packages").exists()  # judged out: never runs
    assert (ws / "ledger_impl" / "core.py").is_file()


def test_documents_are_read_from_the_view(tmp_path: Path) -> None:
    outside = write(tmp_path / "outside", {"x.md": "secret"})
    docs = write(tmp_path / "deliverables", {"NOTES.md": "hello", "big.md": "x" * (MAX_FILE_BYTES + 5)})
    os.symlink(outside / "x.md", docs / "LINK.md")
    os.symlink(outside, docs / "dir")
    view = read_view(None, None, docs)
    assert view.document("NOTES.md") == ("hello", "")
    assert view.document("LINK.md") == (None, "LINK.md is a symlink (refused)")
    assert view.document("dir/x.md") == (None, "dir/x.md is a symlink (refused)")
    assert view.document("missing.md") == (None, "missing.md is missing")
    text, note = view.document("big.md")
    assert len(text or "") == MAX_FILE_BYTES and "first" in note
    assert read_view(None, None, None).document("NOTES.md")[0] is None


@pytest.mark.parametrize(("pattern", "rel", "hit"), [
    ("tests/**", "tests/a/b.py", True), ("**/conftest.py", "conftest.py", True),
    ("**/conftest.py", "a/b/conftest.py", True), ("*.py", "a/b.py", False), ("*.py", "b.py", True),
    ("vendor/*", "vendor/a/b.py", False),
])  # fmt: skip
def test_glob_semantics(pattern: str, rel: str, hit: bool) -> None:
    assert glob_matches(pattern, rel) is hit


def test_build_view_reads_the_challenge_settings() -> None:
    challenge = load_challenge(EXAMPLES / "league-table")
    view = build_view(challenge, challenge.reference, None)
    assert view.protected == tuple(challenge.spec.protected)
    assert "league/table.py" in view.changes and view.deliverables is None
