"""Dependency advisories for the security judge (SPEC §1: "dependency advisories (OSV snapshot) for
what the submission pins"): the manifests' pinned versions matched against an offline store of OSV
records, imported from osv.dev's per-ecosystem exports with ``bouts advisories import``.
See docs/security.md, "Dependency advisories".
"""

from bouts.judges.security.advisories._check import (
    NOT_CONFIGURED,
    DependencyReport,
    check_trees,
    manifests,
    match,
    not_checked,
    read_manifests,
    read_tree,
)
from bouts.judges.security.advisories._import import ImportLimits, ImportReport, import_export
from bouts.judges.security.advisories._manifests import Dependency, manifest_kind, npm_exact, read_manifest
from bouts.judges.security.advisories._osv import SUPPORTED_ECOSYSTEMS, AdvisoryError, OsvRecord, parse_record
from bouts.judges.security.advisories._rating import Rating, from_score, rate
from bouts.judges.security.advisories._store import AdvisoryStore, StoreInfo, open_store
from bouts.judges.security.advisories._versions import Match, is_affected

__all__ = [
    "NOT_CONFIGURED",
    "SUPPORTED_ECOSYSTEMS",
    "AdvisoryError",
    "AdvisoryStore",
    "Dependency",
    "DependencyReport",
    "ImportLimits",
    "ImportReport",
    "Match",
    "OsvRecord",
    "Rating",
    "StoreInfo",
    "check_trees",
    "from_score",
    "import_export",
    "is_affected",
    "manifest_kind",
    "manifests",
    "match",
    "not_checked",
    "npm_exact",
    "open_store",
    "parse_record",
    "rate",
    "read_manifest",
    "read_manifests",
    "read_tree",
]
