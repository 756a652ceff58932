"""``bouts check`` on the example challenge: it must pass (exit 0), every anchor within ±10."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bouts.calibration.check import CheckConfig, check_challenge
from bouts.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "inventory-ledger"


@pytest.mark.sandbox
def test_the_example_challenge_passes_bouts_check() -> None:
    result = CliRunner().invoke(app, ["check", str(EXAMPLE), "--runs", "1", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["launch"] is True and report["problems"] == []
    assert report["reference"]["quarantined"] == [] and len(report["reference"]["seeds"]) == 2
    assert [a["level"] for a in report["anchors"]] == ["low", "mid", "high"]
    assert all(c["ok"] for a in report["anchors"] for c in a["checks"])


def test_static_checks_name_each_problem_with_its_file(tmp_path: Path) -> None:
    root = tmp_path / "ch"
    shutil.copytree(EXAMPLE, root)
    (root / "anchors" / "high" / "expected.toml").unlink()
    (root / "tests" / "hidden" / "conftest.py").write_text("")
    hidden = root / "tests" / "hidden" / "test_ledger_hidden.py"
    hidden.write_text(hidden.read_text().replace("def test_add_item_rejects_duplicate_sku__original_kept", "def _x"))
    report = check_challenge(root, CheckConfig(runs=0, anchors=False))
    assert not report.launch
    where = {(p.check, p.file, p.field) for p in report.problems if p.level == "error"}
    assert ("spec", "anchors/high/expected.toml", None) in where
    assert ("spec", "tests/hidden/conftest.py", None) in where
    assert ("lint", "tests/visible/test_ledger_visible.py", "test_add_item_rejects_duplicate_sku") in where


def test_a_preload_the_engine_cannot_find_is_named(tmp_path: Path) -> None:
    root = tmp_path / "ch"
    shutil.copytree(EXAMPLE, root)
    toml = root / "challenge.toml"
    toml.write_text(toml.read_text().replace("tests_per_process = 32", 'tests_per_process = 32\npreload = '
                                             '["queue", "no_such_package_here.sub", "json.decoder"]'))  # fmt: skip
    report = check_challenge(root, CheckConfig(runs=0, anchors=False))
    found = [(p.level, p.field) for p in report.problems if p.field and p.field.startswith("tests.preload")]
    assert found == [("warning", "tests.preload[1]")]
    assert not [p for p in report.problems if p.level == "error"]  # a preload costs speed only


def test_a_check_that_skips_the_anchors_or_the_reference_never_clears_a_launch(tmp_path: Path) -> None:
    """Issue 39: `bouts check --no-anchors` (or a service check with anchors: false) said launch: true.
    Seed 002: each judge within ±10 of the anchors *before going live*; only a force-open opens without."""
    report = check_challenge(EXAMPLE, CheckConfig(runs=0, anchors=False))
    assert report.problems == [] and report.launch is False
    assert [w.split(" ", 2)[1] for w in report.incomplete] == ["reference", "anchors"]
    result = CliRunner().invoke(app, ["check", str(EXAMPLE), "--runs", "0", "--no-anchors", "--json"])
    assert result.exit_code == 0, result.output  # no error found: not a failure, just not a launch check
    assert json.loads(result.output)["launch"] is False
    text = CliRunner().invoke(app, ["check", str(EXAMPLE), "--runs", "0", "--no-anchors"]).output
    assert "NOT A LAUNCH CHECK" in text and "--no-anchors" in text


def test_a_broken_spec_is_reported_with_file_and_field(tmp_path: Path) -> None:
    root = tmp_path / "ch"
    shutil.copytree(EXAMPLE, root)
    toml = root / "challenge.toml"
    toml.write_text(toml.read_text().replace('family = "blacksite-debug"', 'family = "no-such-family"'))
    result = CliRunner().invoke(app, ["check", str(root), "--runs", "0", "--no-anchors", "--json"])
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert report["problems"][0]["file"] == "challenge.toml" and report["problems"][0]["field"] == "family"
    assert report["skipped"] == ["starter", "reference", "anchors"]


def test_every_check_setting_is_documented() -> None:
    text = (ROOT / "docs" / "calibration.md").read_text(encoding="utf-8")
    missing = [f.name for f in dataclasses.fields(CheckConfig) if f"`{f.name}`" not in text]
    assert not missing, f"docs/calibration.md does not describe CheckConfig.{missing}"
