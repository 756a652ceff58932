"""``bouts advisories import``: osv.dev exports into the store, hostile input refused with an error
naming the file and field, and the store read back."""

from __future__ import annotations

import json
import shutil
import sqlite3
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bouts.cli.main import app
from bouts.errors import InfrastructureError
from bouts.judges.security.advisories import AdvisoryError, ImportLimits, import_export, open_store

OSV = Path(__file__).parent / "advisories" / "osv"


def export_zip(path: Path, members: dict[str, bytes] | None = None) -> Path:
    """A zip shaped like osv.dev's <ECOSYSTEM>/all.zip: one JSON per advisory at the top level."""
    if members is None:
        members = {p.name: p.read_bytes() for p in OSV.glob("*.json")}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def test_a_zip_export_is_stored_indexed_and_described(tmp_path: Path) -> None:
    report = import_export([export_zip(tmp_path / "all.zip")], tmp_path / "store.sqlite")
    assert (report.read, report.stored, report.ecosystems) == (5, 5, ("PyPI", "npm"))
    with open_store(tmp_path / "store.sqlite") as store:
        assert [r.id for r in store.records("PyPI", "requests")] == [
            "GHSA-9wx4-h78v-vm56", "GHSA-x84v-xcm2-53pg", "PYSEC-2018-28"]
        assert [r.id for r in store.records("npm", "lodash-es")] == ["GHSA-35jh-r3h4-6jhm", "GHSA-p6mc-m468-83gw"]
        assert store.records("npm", "requests") == []
        info = store.info()
    assert info.per_ecosystem == {"PyPI": 3, "npm": 2} and info.newest == "2024-05-20T22:07:29Z"
    # The same records from a folder give the same store content (the digest is over the records).
    again = import_export([OSV], tmp_path / "other.sqlite")
    assert again.info.digest == info.digest


def test_an_import_replaces_the_ecosystems_it_covers_and_keeps_the_others(tmp_path: Path) -> None:
    store = tmp_path / "store.sqlite"
    import_export([OSV], store)
    npm_only = tmp_path / "npm"
    npm_only.mkdir()
    shutil.copy(OSV / "GHSA-35jh-r3h4-6jhm.json", npm_only)
    withdrawn = json.loads((OSV / "GHSA-p6mc-m468-83gw.json").read_text())
    (npm_only / "GHSA-p6mc-m468-83gw.json").write_text(json.dumps({**withdrawn, "withdrawn": "2024-01-01T00:00:00Z"}))
    (npm_only / "README.md").write_text("not a record")
    report = import_export([npm_only], store)
    assert (report.withdrawn, report.skipped_files, report.ecosystems) == (1, 1, ("npm",))
    with open_store(store) as opened:
        assert [r.id for r in opened.records("npm", "lodash")] == ["GHSA-35jh-r3h4-6jhm"]  # the withdrawn one is gone
        assert len(opened.records("PyPI", "requests")) == 3  # PyPI untouched


def test_a_record_of_another_ecosystem_is_counted_not_stored(tmp_path: Path) -> None:
    go = {"id": "GO-2024-1", "modified": "2024-01-01T00:00:00Z",
          "affected": [{"package": {"ecosystem": "Go", "name": "example.com/x"}}]}
    report = import_export([export_zip(tmp_path / "go.zip", {"GO-2024-1.json": json.dumps(go).encode()})],
                           tmp_path / "s.sqlite")
    assert (report.read, report.stored, report.other_ecosystems) == (1, 0, 1)


@pytest.mark.parametrize(("members", "where", "says"), [
    # zip-slip: a member name that would leave the archive (names are never extracted, still refused)
    ({"../evil.json": b"{}"}, "all.zip!../evil.json: field 'name'", "leaves the archive"),
    ({"/etc/evil.json": b"{}"}, "field 'name'", "leaves the archive"),
    ({"ok/..\\..\\x.json": b"{}"}, "field 'name'", "leaves the archive"),
    # malformed records: the member and the field are named
    ({"GHSA-1.json": b'{"id": "GHSA-1", "modified": '}, "all.zip!GHSA-1.json", "not valid JSON (line 1"),
    ({"GHSA-2.json": b"[1, 2]"}, "all.zip!GHSA-2.json", "a JSON object, got list"),
    ({"GHSA-3.json": b'{"id": "GHSA-3"}'}, "all.zip!GHSA-3.json: field 'modified'", "Field required"),
    ({"GHSA-4.json": json.dumps({"id": "GHSA-4", "modified": "x", "affected": [{"package": {"ecosystem": "npm",
      "name": "a"}, "ranges": [{"type": "SEMVER", "events": [{"introduced": "0", "fixed": "1.0.0"}]}]}]}).encode()},
     "field 'affected[0].ranges[0].events[0]'", "exactly one of"),
    ({"GHSA-5.json": b"\xff\xfe{}"}, "all.zip!GHSA-5.json", "not UTF-8"),
    ({"GHSA-6.json": b"[" * 100_000 + b"]" * 100_000}, "all.zip!GHSA-6.json", ""),
])
def test_hostile_or_malformed_exports_are_refused_naming_file_and_field(
    tmp_path: Path, members: dict[str, bytes], where: str, says: str
) -> None:
    store = tmp_path / "store.sqlite"
    import_export([OSV], store)
    before = store.read_bytes()
    with pytest.raises(AdvisoryError) as caught:
        import_export([export_zip(tmp_path / "all.zip", {**{"GHSA-0.json": (OSV / "PYSEC-2018-28.json").read_bytes()},
                                                          **members})], store)
    assert where in caught.value.describe() and says in caught.value.describe()
    assert store.read_bytes() == before  # nothing written


def test_zip_bombs_and_oversized_exports_stop_at_the_caps(tmp_path: Path) -> None:
    bomb = export_zip(tmp_path / "bomb.zip", {"GHSA-big.json": b'{"id": "' + b"A" * 5_000_000 + b'"}'})
    assert bomb.stat().st_size < 50_000  # highly compressed
    with pytest.raises(AdvisoryError, match="over the cap of 1000000 for one advisory"):
        import_export([bomb], tmp_path / "s.sqlite", limits=ImportLimits(record_bytes=1_000_000))
    with pytest.raises(AdvisoryError, match="more than 4000 bytes uncompressed"):
        import_export([OSV], tmp_path / "s.sqlite", limits=ImportLimits(total_bytes=4000))
    with pytest.raises(AdvisoryError, match="over the cap of 2"):
        import_export([export_zip(tmp_path / "all.zip")], tmp_path / "s.sqlite", limits=ImportLimits(members=2))
    assert not (tmp_path / "s.sqlite").exists()


def test_a_header_that_understates_a_member_size_does_not_get_past_the_cap(tmp_path: Path) -> None:
    path = export_zip(tmp_path / "lie.zip", {"GHSA-big.json": b" " * 3_000_000 + b"{}"})
    data = bytearray(path.read_bytes())
    # Rewrite the uncompressed size in the central directory to 10 bytes.
    cd = data.rfind(b"PK\x01\x02")
    data[cd + 24:cd + 28] = (10).to_bytes(4, "little")
    path.write_bytes(bytes(data))
    with pytest.raises(AdvisoryError) as caught:
        import_export([path], tmp_path / "s.sqlite", limits=ImportLimits(record_bytes=1_000_000))
    assert "lie.zip!GHSA-big.json" in caught.value.describe()


def test_not_a_zip_not_a_store_and_no_records_are_clear_errors(tmp_path: Path) -> None:
    (tmp_path / "x.zip").write_bytes(b"not a zip")
    with pytest.raises(AdvisoryError, match="not a zip archive"):
        import_export([tmp_path / "x.zip"], tmp_path / "s.sqlite")
    with pytest.raises(AdvisoryError, match="no such file or folder"):
        import_export([tmp_path / "missing.zip"], tmp_path / "s.sqlite")
    (tmp_path / "empty").mkdir()
    with pytest.raises(AdvisoryError, match="no OSV records"):
        import_export([tmp_path / "empty"], tmp_path / "s.sqlite")
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t (x)")
    with pytest.raises(AdvisoryError, match="not an advisory store"):
        import_export([OSV], other)
    with pytest.raises(InfrastructureError, match="not an advisory store of this engine"), open_store(other):
        pass
    with pytest.raises(InfrastructureError, match="does not exist"), open_store(tmp_path / "nope.sqlite"):
        pass
    (tmp_path / "text.sqlite").write_text("hello")
    with pytest.raises(InfrastructureError, match="not an advisory store"), open_store(tmp_path / "text.sqlite"):
        pass


def test_the_cli_imports_and_describes_and_reports_bad_input_without_a_traceback(tmp_path: Path) -> None:
    runner = CliRunner()
    store = tmp_path / "s.sqlite"
    done = runner.invoke(app, ["advisories", "import", str(export_zip(tmp_path / "all.zip")), "--store", str(store)])
    assert done.exit_code == 0, done.output
    assert "5 records read: 5 stored (PyPI, npm)" in done.output
    info = runner.invoke(app, ["advisories", "info"], env={"BOUTS_ADVISORIES": str(store)})
    assert info.exit_code == 0 and "PyPI 3, npm 2" in info.output
    bad = export_zip(tmp_path / "bad.zip", {"../x.json": b"{}"})
    failed = runner.invoke(app, ["advisories", "import", str(bad), "--store", str(store)])
    assert failed.exit_code == 2 and "leaves the archive" in failed.output and "Traceback" not in failed.output
    nowhere = runner.invoke(app, ["advisories", "import", str(bad)], env={"BOUTS_ADVISORIES": ""})
    assert nowhere.exit_code == 2 and "--store" in nowhere.output
