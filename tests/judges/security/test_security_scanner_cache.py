"""One cached scan over many trees (issue 17): each file's findings are scanned once per (path,
bytes, scan policy); an unchanged starter file in a submission is never scanned again; a re-scan of
unchanged trees starts no scanner; a run with notes caches nothing."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from judges_security_paths import SNIPPETS

from bouts.judges.security import _scanners as sc
from bouts.judges.security._eslint import EslintTool, default_package_dir, find_node
from bouts.judges.security._rules import compiled_rules, load_rules, rules_dir

pytestmark = pytest.mark.slow_io  # runs an external tool for seconds (tests/conftest.py)

BAD_SQL = (SNIPPETS / "python" / "sql-injection.bad.py").read_text()
SAFE = "def add(a: int, b: int) -> int:\n    return a + b\n"


def tools(**kw: object) -> sc.Scanners:
    bin_dir = Path(sys.executable).parent
    return sc.Scanners(
        semgrep=kw.get("semgrep", bin_dir / "semgrep"),  # type: ignore[arg-type]
        bandit=bin_dir / "bandit", rules=rules_dir(), eslint=EslintTool(default_package_dir(), find_node()),
    )  # fmt: skip


def tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def rules_of(result: sc.ScanResult, name: str) -> set[tuple[str, int, str]]:
    return {(f.file, f.line, f.rule) for f in result.findings.get(name, [])}


def test_compiled_rules_hold_every_rule_with_aliases_resolved() -> None:
    doc = json.loads(compiled_rules(rules_dir()))
    assert [r["id"] for r in doc["rules"]] == [r.id for r in load_rules(rules_dir())]
    sql = next(r for r in doc["rules"] if r["id"] == "bouts.python.sql-injection")
    # The YAML shares its sink list through an anchor; the compiled rule spells it out twice.
    inner = [p for branch in sql["pattern-either"] for p in branch["patterns"] if "pattern-either" in p]
    assert len(inner) == 2 and inner[0] == inner[1] and isinstance(inner[0]["pattern-either"], list)


def test_a_rescan_of_unchanged_trees_reads_the_cache_and_starts_no_scanner(tmp_path: Path) -> None:
    code = tree(tmp_path / "code", {"app/db.py": BAD_SQL, "app/ok.py": SAFE})
    cache = sc.FindingsCache()
    first = sc.scan({"submission": code}, tools(), cache=cache)
    assert first.cached == 0 and "semgrep" in first.seconds
    found = rules_of(first, "submission")
    assert ("app/db.py", 7, "semgrep:bouts.python.sql-injection") in found
    # A semgrep that cannot run would fail the scan: the second scan never starts it.
    second = sc.scan({"submission": code}, tools(), cache=cache)
    assert second.cached == 2 and "semgrep" not in second.seconds and "bandit" not in second.seconds
    assert rules_of(second, "submission") == found
    assert second.findings == first.findings


def test_unchanged_starter_files_are_not_scanned_again_in_a_submission(tmp_path: Path) -> None:
    starter = tree(tmp_path / "starter", {"app/db.py": BAD_SQL, "app/ok.py": SAFE})
    cache = sc.FindingsCache()
    sc.scan({"starter": starter}, tools(), cache=cache)
    code = tree(tmp_path / "code", {"app/db.py": BAD_SQL, "app/ok.py": SAFE, "app/new.py": BAD_SQL})
    result = sc.scan({"submission": code, "starter": starter}, tools(), cache=cache)
    assert result.cached == 4  # both starter files, and their unchanged copies in the submission
    got = rules_of(result, "submission")
    assert ("app/new.py", 7, "semgrep:bouts.python.sql-injection") in got
    assert ("app/db.py", 7, "semgrep:bouts.python.sql-injection") in got
    assert rules_of(result, "starter") == {x for x in got if x[0] == "app/db.py"}


def test_the_same_bytes_at_another_path_are_scanned_as_a_new_file(tmp_path: Path) -> None:
    cache = sc.FindingsCache()
    sc.scan({"submission": tree(tmp_path / "a", {"db.py": BAD_SQL})}, tools(), cache=cache)
    moved = sc.scan({"submission": tree(tmp_path / "b", {"tests/db.py": BAD_SQL})}, tools(), cache=cache)
    assert moved.cached == 0


def test_a_batch_of_trees_is_one_scan_with_findings_per_tree(tmp_path: Path) -> None:
    trees = {f"s{i}": tree(tmp_path / f"s{i}", {"m.py": BAD_SQL if i % 2 else SAFE}) for i in range(4)}
    result = sc.scan(trees, tools(), cache=None)
    assert [bool(result.findings.get(f"s{i}")) for i in range(4)] == [False, True, False, True]


def test_the_disk_cache_is_shared_by_a_new_process_and_survives_garbage(tmp_path: Path) -> None:
    code = tree(tmp_path / "code", {"db.py": BAD_SQL})
    first = sc.scan({"submission": code}, tools(), cache=sc.FindingsCache(tmp_path / "cache"))
    again = sc.scan({"submission": code}, tools(), cache=sc.FindingsCache(tmp_path / "cache"))
    assert again.cached == 1 and again.findings == first.findings
    for entry in (tmp_path / "cache").rglob("*.json"):
        entry.write_text("{not json")
    broken = sc.scan({"submission": code}, tools(), cache=sc.FindingsCache(tmp_path / "cache"))
    assert broken.cached == 0 and broken.findings == first.findings


def test_a_scan_with_notes_caches_nothing(tmp_path: Path) -> None:
    code = tree(tmp_path / "code", {"db.py": BAD_SQL, "broken.py": "def (:\n"})
    cache = sc.FindingsCache()
    first = sc.scan({"submission": code}, tools(), cache=cache)
    assert first.notes, "a file no scanner can parse leaves a note"
    again = sc.scan({"submission": code}, tools(), cache=cache)
    assert again.cached == 0 and again.notes


def test_a_change_of_scanner_is_a_different_cache_entry(tmp_path: Path) -> None:
    code = tree(tmp_path / "code", {"db.py": BAD_SQL})
    cache = sc.FindingsCache()
    sc.scan({"submission": code}, tools(), cache=cache)
    fake = tmp_path / "semgrep"
    shutil.copy(Path(sys.executable).parent / "semgrep", fake)
    assert tools(semgrep=fake).policy() != tools().policy()
    with pytest.raises(Exception, match="semgrep"):
        fake.write_text("#!/bin/sh\nexit 7\n")
        sc.scan({"submission": code}, tools(semgrep=fake), cache=cache)
