"""Dependency advisories: the versions a submission pins, matched against the OSV snapshot.

``match`` is pure (dependencies and a look-up in, findings out); ``check_trees`` reads the store.
Findings are ``SecurityFinding``s like the scanners', so the baseline against ``starter/`` and the
SPEC formula treat them alike: a vulnerable pin the starter already had is pre-existing, one the
submission added or changed to counts. Their identity (the baseline's snippet) is ecosystem,
package, version and advisory, so moving a pin between manifests does not make it new.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bouts.judges.security._findings import SecurityFinding
from bouts.judges.security._severity import SEVERITY_RANK
from bouts.judges.security.advisories._manifests import (
    LOCK_NAMES,
    Dependency,
    manifest_kind,
    pypi_key,
    read_manifest,
)
from bouts.judges.security.advisories._osv import OsvRecord
from bouts.judges.security.advisories._rating import Rating, rate
from bouts.judges.security.advisories._store import open_store
from bouts.judges.security.advisories._versions import is_affected
from bouts.loading.view import read_file_tree
from bouts.models.view import FileTree

NOT_CONFIGURED = (
    "no advisory snapshot is configured (the `advisories` setting: `bouts score --advisories STORE` or "
    "BOUTS_ADVISORIES, written by `bouts advisories import`; docs/security.md)"
)
Lookup = Callable[[str, str], Sequence[OsvRecord]]


@dataclass(frozen=True)
class Hit:
    """One advisory that affects one pinned version."""

    record: OsvRecord
    rating: Rating
    fixed: tuple[str, ...]


@dataclass(frozen=True)
class DependencyReport:
    """What the dependency check did, for the verdict: its findings per tree and what it could not check."""

    checked: bool
    summary: str
    """One line for the verdict's math: what was checked against which snapshot, or why nothing was."""
    findings: Mapping[str, tuple[SecurityFinding, ...]]
    """Per tree (``submission`` / ``starter``), one finding per vulnerable pin and advisory."""
    notes: tuple[str, ...] = ()
    """The submission's dependencies not checked (not pinned, unreadable manifests, unevaluated ranges)."""
    snapshot: str = ""
    """The store's label (digest, size, freshness), for ``Verdict.versions``."""


def not_checked(why: str = NOT_CONFIGURED) -> DependencyReport:
    return DependencyReport(False, f"dependencies not checked: {why}", {})


def check_trees(trees: Mapping[str, Mapping[str, str]], store_path: Path | None) -> DependencyReport:
    """Check the manifests of each tree (``rel → text``, see ``manifest_kind``) against the store at
    ``store_path``; ``None``: nothing is checked and the report says why."""
    if store_path is None:
        return not_checked()
    with open_store(store_path) as store:
        label = store.info().label()
        found: dict[str, tuple[SecurityFinding, ...]] = {}
        notes: tuple[str, ...] = ()
        counts = (0, 0, 0)
        for tree, files in trees.items():
            deps, manifest_notes = read_tree(files)
            findings, match_notes = match(deps, store.records)
            found[tree] = tuple(findings)
            if tree == "submission":
                unpinned = unpinned_notes(deps)
                notes = tuple(manifest_notes + match_notes + unpinned)
                counts = (sum(1 for d in deps if d.version is not None), len(unpinned), len(files))
    pinned, unpinned, manifests = counts
    summary = (f"dependencies checked against the OSV {label}: {pinned} pinned versions in {manifests} manifests"
               f"{f', {unpinned} unpinned not checked' if unpinned else ''}")
    if manifests == 0:
        summary = f"dependencies: no manifest in the submission (OSV {label})"
    return DependencyReport(True, summary, found, notes, label)


def read_tree(files: Mapping[str, str]) -> tuple[list[Dependency], list[str]]:
    deps: list[Dependency] = []
    notes: list[str] = []
    for rel in sorted(files):
        got, said = read_manifest(rel, files[rel])
        deps += got
        notes += said
    return deps, notes


def unpinned_notes(deps: Sequence[Dependency]) -> list[str]:
    """One note per unpinned dependency, except those a lock file next to its manifest resolves."""
    locked = {(_folder(d.file), d.ecosystem, d.key) for d in deps if _name(d.file) in LOCK_NAMES and d.version}
    return [
        f"{d.file}:{d.line}: not pinned, not checked: {d.spec} ({d.why_unpinned})"
        for d in deps
        if d.version is None and (_folder(d.file), d.ecosystem, d.key) not in locked
    ]


def match(deps: Sequence[Dependency], lookup: Lookup) -> tuple[list[SecurityFinding], list[str]]:
    """One finding per pinned (ecosystem, package, version) and vulnerability: advisories that name
    each other (``aliases``: GHSA-…, PYSEC-…, CVE-…) are one vulnerability, at the highest severity any
    of them gives. A version pinned in several manifests is one finding, at the first (by path)."""
    firsts: dict[tuple[str, str, str], list[Dependency]] = {}
    for d in sorted((d for d in deps if d.version is not None), key=lambda d: (d.file, d.line)):
        assert d.version is not None
        firsts.setdefault((d.ecosystem, d.key, d.version), []).append(d)
    findings: list[SecurityFinding] = []
    notes: list[str] = []
    for (eco, key, version), where in firsts.items():
        hits: list[Hit] = []
        for rec in lookup(eco, key):
            for aff in rec.affected:
                if aff.package.ecosystem != eco or _key(eco, aff.package.name) != key:
                    continue
                m = is_affected(eco, version, aff)
                if m.affected:
                    hits.append(Hit(rec, rate(rec, aff), m.fixed))
                    break
                notes += [f"{where[0].file}:{where[0].line}: {rec.id} not fully evaluated for {key} {version}: {u}"
                          for u in m.unevaluated]
        findings += [_finding(where, version, group) for group in _groups(hits)]
    return findings, notes


def _groups(hits: list[Hit]) -> list[list[Hit]]:
    """Advisories linked by id or alias, transitively: one vulnerability each."""
    groups: list[tuple[set[str], list[Hit]]] = []
    for hit in sorted(hits, key=lambda h: h.record.id):
        names = {hit.record.id, *hit.record.aliases}
        merged_names, merged_hits = set(names), [hit]
        for g in [g for g in groups if g[0] & names]:
            merged_names |= g[0]
            merged_hits += g[1]
            groups.remove(g)
        groups.append((merged_names, merged_hits))
    return [g[1] for g in groups]


_PREFERRED = ("GHSA-", "PYSEC-", "MAL-")


def _finding(where: list[Dependency], version: str, group: list[Hit]) -> SecurityFinding:
    first = where[0]
    top = min(group, key=lambda h: (-SEVERITY_RANK[h.rating.severity], _rank(h.record.id), h.record.id))
    rec = top.record
    ids = sorted(({h.record.id for h in group} | {a for h in group for a in h.record.aliases}) - {rec.id})
    also = sorted({d.file for d in where[1:]} - {first.file})
    fixes = sorted({f for h in group for f in h.fixed})
    parts = [
        f"dependency {first.name} {version} ({first.ecosystem}) is affected by {rec.id}"
        + (f" ({', '.join(ids)})" if ids else "") + f": {rec.summary or 'no summary'}",
        f"fixed in {', '.join(fixes)}" if fixes else "no fixed version",
        f"severity from {top.rating.why}",
    ]
    if also:
        parts.append(f"also pinned in {', '.join(also)}")
    rule = f"osv:{rec.id}"
    return SecurityFinding(
        cwe=None, severity=top.rating.severity, file=first.file, line=first.line, end_line=first.line, rule=rule,
        message="; ".join(parts), snippet=f"{first.ecosystem}:{first.key}@{version}:{rec.id}", rules=(rule,),
        tools=("osv",),
    )


def _rank(rid: str) -> int:
    return next((i for i, p in enumerate(_PREFERRED) if rid.startswith(p)), len(_PREFERRED))


def _key(ecosystem: str, name: str) -> str:
    return pypi_key(name) if ecosystem == "PyPI" else name


def _folder(rel: str) -> str:
    return rel.rpartition("/")[0]


def _name(rel: str) -> str:
    return rel.rpartition("/")[2]


def read_manifests(root: Path) -> dict[str, str]:
    """The manifests under ``root``, ``rel → text`` (I/O: read with the submission view's walker)."""
    return manifests(read_file_tree(root))


def manifests(tree: FileTree) -> dict[str, str]:
    """The manifests of a tree read once, ``rel → text``. Those inside ``node_modules`` and ``.git``
    describe installed packages, not the submission's own pins, and are left out; so is a file over
    the view's size cap (cut: its text would not parse)."""
    return {f.rel: f.data.decode("utf-8-sig", errors="replace") for f in tree
            if manifest_kind(f.rel) is not None and f.data is not None and not f.truncated
            and not {"node_modules", ".git"} & set(f.rel.split("/")[:-1])}
