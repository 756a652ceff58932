"""The shipped Semgrep rule set: where it lives, what each rule says, and its hash for the scorecard."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path

from bouts.errors import InfrastructureError
from bouts.judges.security._severity import BANDIT_CWE_OVERRIDES, CWE_FAMILY, CWE_SEVERITY, parse_cwe


@dataclass(frozen=True)
class RuleInfo:
    """One shipped Semgrep rule, as documented and exported to SARIF."""

    id: str
    cwe: int | None
    severity: str
    message: str
    languages: tuple[str, ...]
    file: str
    """Rule file relative to the rule-set root, e.g. ``python/injection.yml``."""


def rules_dir() -> Path:
    """The directory of shipped Semgrep rules (inside the installed ``bouts`` package)."""
    path = Path(str(files("bouts.rules") / "semgrep"))
    if not path.is_dir():
        raise InfrastructureError(f"the shipped Semgrep rules are missing (looked in {path})")
    return path


def rule_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.y*ml") if p.is_file())


@cache
def _documents(root: Path) -> tuple[tuple[Path, dict], ...]:
    """Each rule file under ``root`` and its document, parsed once per process. PyYAML comes with
    bandit, which the judge needs anyway; its libyaml loader where the wheel has it (the same
    documents for these files, ``tests/judges/security``; the pure-Python one took 0.15 s a score)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return tuple((path, yaml.load(path.read_text(encoding="utf-8"), Loader=loader) or {})  # noqa: S506 (a safe loader)
                 for path in rule_files(root))  # fmt: skip


@cache
def load_rules(root: Path) -> tuple[RuleInfo, ...]:
    """Every rule under ``root``."""
    infos: list[RuleInfo] = []
    for path, doc in _documents(root):
        for rule in doc.get("rules", []):
            meta = rule.get("metadata", {})
            infos.append(
                RuleInfo(
                    id=rule["id"],
                    cwe=parse_cwe(meta.get("cwe")),
                    severity=str(meta.get("severity", "")),
                    message=" ".join(str(rule.get("message", "")).split()),
                    languages=tuple(rule.get("languages", ())),
                    file=path.relative_to(root).as_posix(),
                )
            )
    return tuple(infos)


@cache
def compiled_rules(root: Path) -> str:
    """Every rule under ``root`` as one JSON document, YAML anchors and aliases resolved: Semgrep's
    OCaml CLI does not resolve aliases (``Expected a list for pattern-either``), and JSON is YAML.
    Derived from the files ``ruleset_hash`` covers, so it needs no hash of its own."""
    rules: list[object] = []
    for _, doc in _documents(root):
        rules.extend(doc.get("rules", []))
    return json.dumps({"rules": rules})


@cache
def ruleset_hash(root: Path, scanner_policy: str = "") -> str:
    """sha256 over the rule files, the severity policy and the scanners' settings (plugins,
    thresholds): changing any of them can change a score."""
    digest = hashlib.sha256()
    for path in rule_files(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    policy = {
        "cwe_severity": sorted(CWE_SEVERITY.items()),
        "cwe_family": sorted(CWE_FAMILY.items()),
        "bandit_overrides": sorted(BANDIT_CWE_OVERRIDES.items()),
    }
    digest.update(json.dumps(policy, sort_keys=True).encode())
    digest.update(scanner_policy.encode())
    return digest.hexdigest()


def local_rule_id(check_id: str, known: frozenset[str]) -> str:
    """Semgrep prefixes a local rule's id with its config file's directories
    (``work.main.src.bouts.rules.semgrep.python.bouts.python.sql-injection``); recover our id."""
    if check_id in known:
        return check_id
    for rid in known:
        if check_id.endswith("." + rid):
            return rid
    return check_id
