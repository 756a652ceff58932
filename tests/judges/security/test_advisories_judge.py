"""Dependency advisories in the security verdict: counted with the other findings, baselined on the
starter, and a scorecard that says when (and why) dependencies were not checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from bouts.judges.security import SecurityJudge, SecurityReport, verdict_from
from bouts.judges.security._judge import OSV_NOT_RUN, with_dependencies
from bouts.judges.security.advisories import check_trees, import_export, not_checked

OSV = Path(__file__).parent / "advisories" / "osv"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("advisories") / "store.sqlite"
    import_export([OSV], path)
    return path


def verdict_for(store: Path | None, submission: dict[str, str], starter: dict[str, str] | None = None):
    deps = check_trees({"submission": submission, "starter": starter or {}}, store)
    return verdict_from(with_dependencies(SecurityReport((), {}), deps))


def test_a_vulnerable_pin_costs_its_advisory_severity(store: Path) -> None:
    verdict = verdict_for(store, {"requirements.txt": "requests==2.19.0\n", "package.json":
                                  '{"dependencies": {"lodash": "4.17.20"}}'})
    # requests 2.19.0: CVE-2018-18074 (high) and CVE-2024-35195 (medium); lodash 4.17.20: CVE-2021-23337 (high)
    assert verdict.score.value == 100 - 15 - 5 - 15
    paid = sorted((f.rule, f.points) for f in verdict.findings if f.points)
    assert paid == [("osv:GHSA-35jh-r3h4-6jhm", 15.0), ("osv:GHSA-9wx4-h78v-vm56", 5.0),
                    ("osv:GHSA-x84v-xcm2-53pg", 15.0)]
    assert any(line.startswith("dependencies checked against the OSV snapshot sha256:") for line in verdict.score.math)
    assert verdict.versions["osv"].startswith("snapshot sha256:")


def test_a_pin_kept_from_the_starter_is_pre_existing_and_an_upgrade_clears_it(store: Path) -> None:
    kept = verdict_for(store, {"app/requirements.txt": "requests==2.19.0\n"},
                       {"requirements.txt": "requests==2.19.0\n"})  # moved to another file: same pin
    assert kept.score.value == 100
    shown = [f for f in kept.findings if f.rule.startswith("osv:")]
    assert len(shown) == 2 and all(f.points == 0 and f.message.startswith("pre-existing") for f in shown)
    upgraded = verdict_for(store, {"requirements.txt": "requests==2.32.2\n"},
                           {"requirements.txt": "requests==2.19.0\n"})
    assert upgraded.score.value == 100 and not [f for f in upgraded.findings if f.rule.startswith("osv:")]
    downgraded = verdict_for(store, {"requirements.txt": "requests==2.31.0\n"},
                             {"requirements.txt": "requests==2.32.3\n"})
    assert downgraded.score.value == 95  # CVE-2024-35195, introduced by the submission


def test_unpinned_dependencies_are_listed_not_scored(store: Path) -> None:
    verdict = verdict_for(store, {"requirements.txt": "requests>=2.0\n"})
    assert verdict.score.value == 100
    notes = [f.message for f in verdict.findings if f.rule == "security.dependency-not-checked"]
    assert notes == ["requirements.txt:1: not pinned, not checked: requests>=2.0 (a range (>=2.0), not one version)"]
    assert any("1 unpinned not checked" in line for line in verdict.score.math)


def test_without_a_snapshot_the_verdict_says_dependencies_were_not_checked_and_why() -> None:
    verdict = verdict_from(with_dependencies(SecurityReport((), {}), not_checked()))
    assert verdict.score.value == 100
    said = [f.message for f in verdict.findings if f.rule == "security.dependencies-not-checked"]
    assert len(said) == 1 and "no advisory snapshot is configured" in said[0] and "bouts advisories import" in said[0]
    assert said[0] in verdict.score.math
    assert verdict.versions["osv"] == OSV_NOT_RUN


def test_the_judge_scans_code_and_dependencies_together(store: Path, tmp_path: Path) -> None:
    code, starter = tmp_path / "code", tmp_path / "starter"
    (code / "node_modules" / "lodash").mkdir(parents=True)
    starter.mkdir()
    (code / "app.py").write_text("def add(a, b):\n    return a + b\n")
    (starter / "app.py").write_text("def add(a, b):\n    return a + b\n")
    (code / "requirements.txt").write_text("requests==2.19.0\n")
    # A vendored package's own manifest is not the submission's pin.
    (code / "node_modules" / "lodash" / "package.json").write_text('{"dependencies": {"lodash": "4.17.4"}}')
    report = SecurityJudge().scan(code, starter, advisories=store)
    counted = sorted(f.rule for f in report.findings if f.counted)
    assert counted == ["osv:GHSA-9wx4-h78v-vm56", "osv:GHSA-x84v-xcm2-53pg"]
    assert verdict_from(report).score.value == 100 - 15 - 5
