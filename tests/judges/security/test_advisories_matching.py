"""Dependency advisories, the pure part: OSV ranges in each ecosystem's order, severities, manifests,
and matching pins to the real advisories in advisories/osv (see advisories/SOURCES.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bouts.judges.security.advisories import (
    OsvRecord,
    from_score,
    is_affected,
    match,
    npm_exact,
    parse_record,
    rate,
    read_manifest,
)
from bouts.judges.security.advisories._check import unpinned_notes

OSV = Path(__file__).parent / "advisories" / "osv"


def record(name: str) -> OsvRecord:
    return parse_record((OSV / f"{name}.json").read_text(encoding="utf-8"), file=name)


def constructed(events: list[dict[str, str]], ecosystem: str = "npm", versions: tuple[str, ...] = (),
                kind: str = "ECOSYSTEM") -> OsvRecord:
    """A made-up record to reach the corners of OSV's algorithm that the real fixtures do not."""
    return OsvRecord.model_validate({
        "id": "TEST-1", "modified": "2024-01-01T00:00:00Z",
        "affected": [{"package": {"ecosystem": ecosystem, "name": "pkg"}, "versions": list(versions),
                      "ranges": [{"type": kind, "events": events}]}],
    })


# --- version order per ecosystem -------------------------------------------------------------------


@pytest.mark.parametrize(("version", "affected"), [
    ("2.19.0", True), ("2.19.1", True), ("0.12.01", True), ("2.20.0rc1", True),  # a pre-release sorts first
    ("2.20.0", False), ("2.20", False), ("2.31.0", False), ("2.20.0.post1", False),
])
def test_requests_below_2_20_is_affected_by_cve_2018_18074_in_pep440_order(version: str, affected: bool) -> None:
    rec = record("GHSA-x84v-xcm2-53pg")
    assert is_affected("PyPI", version, rec.affected[0]).affected is affected


@pytest.mark.parametrize(("version", "affected"), [
    ("4.17.20", True), ("4.17.4", True), ("4.17.21-beta.1", True), ("0.1.0", True),
    ("4.17.21", False), ("4.17.21+build.7", False), ("4.18.0", False), ("10.0.0", False),
])
def test_lodash_below_4_17_21_is_affected_by_cve_2021_23337_in_semver_order(version: str, affected: bool) -> None:
    rec = record("GHSA-35jh-r3h4-6jhm")
    assert is_affected("npm", version, rec.affected[0]).affected is affected


def test_4_17_10_is_below_4_17_9_in_neither_order() -> None:
    # String order would say "4.17.10" < "4.17.9" and miss the advisory fixed in 4.17.9.
    rec = constructed([{"introduced": "0"}, {"fixed": "4.17.9"}])
    assert is_affected("npm", "4.17.10", rec.affected[0]).affected is False
    assert is_affected("npm", "4.17.8", rec.affected[0]).affected is True


def test_several_introduced_fixed_pairs_last_affected_and_limit() -> None:
    two = constructed([{"introduced": "1.0.0"}, {"fixed": "1.0.2"}, {"introduced": "3.0.0"}, {"fixed": "3.2.5"}])
    assert [is_affected("npm", v, two.affected[0]).affected for v in ("0.9.0", "1.0.1", "2.0.0", "3.2.4", "3.2.5")] \
        == [False, True, False, True, False]
    last = constructed([{"introduced": "0"}, {"last_affected": "2.1.214"}], ecosystem="PyPI")
    assert is_affected("PyPI", "2.1.214", last.affected[0]).affected is True  # last_affected is included
    assert is_affected("PyPI", "2.1.215", last.affected[0]).affected is False
    limited = constructed([{"introduced": "0"}, {"limit": "2.0.0"}])
    assert is_affected("npm", "1.9.9", limited.affected[0]).affected is True
    assert is_affected("npm", "2.0.0", limited.affected[0]).affected is False


def test_a_listed_version_is_affected_and_an_unreadable_bound_is_said_not_hidden() -> None:
    # A GIT range is not evaluated (no repository here): only the versions list counts.
    listed = constructed([{"introduced": "0"}, {"fixed": "abc123"}], versions=("1.2.3",), kind="GIT")
    assert is_affected("npm", "1.2.3", listed.affected[0]).affected is True
    assert is_affected("npm", "1.2.4", listed.affected[0]).affected is False
    odd = constructed([{"introduced": "0"}, {"fixed": "not-a-version"}], ecosystem="PyPI")
    m = is_affected("PyPI", "1.0", odd.affected[0])
    assert m.affected is False and "not a PEP 440 version" in m.unevaluated[0]


# --- severity ---------------------------------------------------------------------------------------


def test_severity_comes_from_the_advisory_cvss_vector() -> None:
    assert rate(record("GHSA-x84v-xcm2-53pg")).severity == "high"  # CVSS 3.1 base 7.5
    assert rate(record("GHSA-35jh-r3h4-6jhm")).why == "CVSS 3.1 base 7.2"
    assert rate(record("GHSA-9wx4-h78v-vm56")).severity == "medium"  # base 5.6 (GitHub: MODERATE)
    assert [from_score(s) for s in (10.0, 9.0, 8.9, 7.0, 6.9, 4.0, 3.9, 0.0)] == \
        ["critical", "critical", "high", "high", "medium", "medium", "low", "low"]


def test_without_a_vector_the_database_label_then_medium_and_malicious_packages_are_critical() -> None:
    base = json.loads((OSV / "GHSA-9wx4-h78v-vm56.json").read_text(encoding="utf-8"))
    labelled = OsvRecord.model_validate({**base, "severity": []})
    assert (rate(labelled).severity, rate(labelled).why) == ("medium", "advisory severity MODERATE")
    assert rate(record("PYSEC-2018-28")).severity == "medium"  # PyPA gives no severity
    assert "gives no severity" in rate(record("PYSEC-2018-28")).why
    v4 = OsvRecord.model_validate({**base, "severity": [
        {"type": "CVSS_V4", "score": "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N"},
        {"type": "CVSS_V3", "score": "CVSS:3.1/AV:L/AC:H/PR:H/UI:R/S:U/C:H/I:H/A:N"}]})
    assert rate(v4).severity == "critical" and rate(v4).why.startswith("CVSS 4.0")  # the newest version decides
    mal = OsvRecord.model_validate({"id": "MAL-2024-1", "modified": "2024-01-01T00:00:00Z"})
    assert rate(mal).severity == "critical"


# --- manifests --------------------------------------------------------------------------------------


def pins(rel: str, text: str) -> dict[str, str | None]:
    deps, _ = read_manifest(rel, text)
    return {d.name: d.version for d in deps}


def test_requirements_pins_ranges_and_pip_syntax() -> None:
    text = (
        "# comment\nrequests[security]==2.19.0 ; python_version >= '3'  # why\n"
        "flask>=2.0\nclick~=8.1\nurllib3==1.26.*\nidna===2.7\n"
        "certifi==2018.8.24 \\\n    --hash=sha256:abc\n-r other.txt\n--index-url https://example.invalid\n"
        "-e ./local\nhttps://example.invalid/x.whl\nDjango == 3.2.0\n"
    )
    assert pins("requirements.txt", text) == {
        "requests": "2.19.0", "flask": None, "click": None, "urllib3": None, "idna": "2.7", "certifi": "2018.8.24",
        "Django": "3.2.0",
    }
    _, notes = read_manifest("requirements.txt", text)
    assert any("editable" in n for n in notes) and any("path or URL" in n for n in notes)


def test_pyproject_tables_and_poetry() -> None:
    text = '''
[build-system]
requires = ["setuptools==40.0.0"]
[project]
dependencies = ["requests==2.19.0", "rich>=13"]
[project.optional-dependencies]
web = ["flask==1.0"]
[dependency-groups]
dev = ["pytest==7.0.0", {include-group = "web"}]
[tool.poetry.dependencies]
python = "^3.11"
urllib3 = "1.26.4"
idna = "^3.0"
httpx = {version = "==0.23.0", extras = ["http2"]}
'''
    assert pins("pyproject.toml", text) == {
        "setuptools": "40.0.0", "requests": "2.19.0", "rich": None, "flask": "1.0", "pytest": "7.0.0",
        "urllib3": "1.26.4", "idna": None, "httpx": "0.23.0",
    }
    deps, _ = read_manifest("pyproject.toml", text)
    assert next(d for d in deps if d.name == "requests").line == 5
    assert read_manifest("pyproject.toml", "[project\n")[1][0].startswith("pyproject.toml: not valid TOML")


def test_package_json_exact_versions_only_and_aliases() -> None:
    text = json.dumps({"dependencies": {"lodash": "4.17.20", "a": "^1.0.0", "b": "=1.2.3", "c": "v2.0.0",
                                        "d": "latest", "e": "github:x/y", "old": "npm:lodash@4.17.15"},
                       "devDependencies": {"f": "1.x", "g": "1.0.0 - 2.0.0"}}, indent=2)
    got = read_manifest("web/package.json", text)[0]
    assert {(d.name, d.version) for d in got} == {
        ("lodash", "4.17.20"), ("a", None), ("b", "1.2.3"), ("c", "2.0.0"), ("d", None), ("e", None),
        ("lodash", "4.17.15"), ("f", None), ("g", None)}
    assert npm_exact("4.17.20") == "4.17.20" and npm_exact("4.17") is None and npm_exact(">=4.17.20") is None


def test_package_lock_v1_and_v3_list_every_installed_package() -> None:
    v3 = json.dumps({"lockfileVersion": 3, "packages": {
        "": {"name": "app"}, "node_modules/lodash": {"version": "4.17.20"},
        "node_modules/a/node_modules/lodash": {"version": "4.17.4"},
        "node_modules/alias": {"name": "lodash-es", "version": "4.17.15"}, "packages/ws": {"version": "1.0.0"},
        "node_modules/ws": {"link": True, "resolved": "packages/ws"}}}, indent=2)
    assert sorted((d.name, d.version) for d in read_manifest("package-lock.json", v3)[0]) == [
        ("lodash", "4.17.20"), ("lodash", "4.17.4"), ("lodash-es", "4.17.15")]
    v1 = json.dumps({"lockfileVersion": 1, "dependencies": {
        "lodash": {"version": "4.17.20"}, "a": {"version": "1.0.0", "dependencies": {"lodash": {"version": "4.17.4"}}},
        "g": {"version": "git+https://example.invalid/g.git#abc"}}})
    assert sorted((d.name, d.version) for d in read_manifest("npm-shrinkwrap.json", v1)[0]) == [
        ("a", "1.0.0"), ("g", None), ("lodash", "4.17.20"), ("lodash", "4.17.4")]
    assert read_manifest("package-lock.json", "{oops")[1] == [
        "package-lock.json: not valid JSON (line 1), dependencies not checked"]
    assert read_manifest("node_modules/x/package.json", "{}") == ([], [])


# --- matching ---------------------------------------------------------------------------------------


def lookup(eco: str, key: str) -> list[OsvRecord]:
    recs = [record(p.stem) for p in sorted(OSV.glob("*.json"))]
    return [r for r in recs if any(a.package.ecosystem == eco and a.package.name == key for a in r.affected)]


def test_one_finding_per_vulnerability_aliases_merged_and_pins_in_two_files_once() -> None:
    deps = read_manifest("requirements.txt", "requests==2.19.0\n")[0]
    deps += read_manifest("package.json", '{"dependencies": {"lodash": "4.17.15"}}')[0]
    deps += read_manifest("package-lock.json", '{"lockfileVersion": 3, "packages": '
                          '{"node_modules/lodash": {"version": "4.17.15"}}}')[0]
    findings, notes = match(deps, lookup)
    got = sorted((f.file, f.rule, f.severity) for f in findings)
    assert got == [
        ("package-lock.json", "osv:GHSA-35jh-r3h4-6jhm", "high"),  # lock before package.json by path
        ("package-lock.json", "osv:GHSA-p6mc-m468-83gw", "high"),
        ("requirements.txt", "osv:GHSA-9wx4-h78v-vm56", "medium"),
        # GHSA-x84v and PYSEC-2018-28 are both CVE-2018-18074: one finding, the GitHub id, its severity
        ("requirements.txt", "osv:GHSA-x84v-xcm2-53pg", "high"),
    ]
    cve = next(f for f in findings if f.rule == "osv:GHSA-x84v-xcm2-53pg")
    assert "CVE-2018-18074" in cve.message and "PYSEC-2018-28" in cve.message and "fixed in 2.20.0" in cve.message
    assert "also pinned in package.json" in next(f for f in findings if f.rule == "osv:GHSA-35jh-r3h4-6jhm").message
    assert notes == []


def test_fixed_versions_and_unpinned_ranges_give_no_finding() -> None:
    deps = read_manifest("requirements.txt", "requests==2.32.2\nflask>=1\n")[0]
    deps += read_manifest("package.json", '{"dependencies": {"lodash": "4.17.21", "left-pad": "^1.0.0"}}')[0]
    assert match(deps, lookup) == ([], [])
    assert [n.split(": not pinned")[0] for n in unpinned_notes(deps)] == ["requirements.txt:2", "package.json:1"]


def test_a_range_resolved_by_the_lock_beside_it_is_not_listed_as_unpinned() -> None:
    deps = read_manifest("web/package.json", '{"dependencies": {"lodash": "^4.17.0"}}')[0]
    deps += read_manifest("web/package-lock.json", '{"packages": {"node_modules/lodash": {"version": "4.17.21"}}}')[0]
    deps += read_manifest("other/package.json", '{"dependencies": {"lodash": "^4.17.0"}}')[0]
    assert [n.split(":")[0] for n in unpinned_notes(deps)] == ["other/package.json"]
