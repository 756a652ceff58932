"""Running the scanners (Semgrep, Bandit, ESLint, detect-secrets) offline over a staged copy of both trees.

I/O edge of the security judge. Why a staged copy: the scanners obey configuration found in the tree
they scan (``.semgrepignore``, ``.gitignore``, ``.bandit``), so a submission could hide its own
code; the copy leaves those files out, has no symlinks, and sits outside any git repository (Semgrep
would otherwise scan only git-tracked files). Semgrep, Bandit and (for JavaScript/TypeScript) ESLint
run once each, over both trees, concurrently; detect-secrets runs in-process meanwhile. ESLint gets
the engine's own config (``--config``), so an ``eslint.config.*`` in the submission is never read.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bouts.errors import InfrastructureError
from bouts.judges.security._eslint import parse_eslint
from bouts.judges.security._findings import ToolFinding, normalise
from bouts.judges.security._rules import RuleInfo, local_rule_id
from bouts.judges.security._severity import BANDIT_CWE_OVERRIDES, Severity, parse_cwe, severity_for

TOOL_CONFIG_FILES = frozenset({".semgrepignore", ".gitignore", ".bandit", ".secrets.baseline"})
"""Never copied: each can tell a scanner to skip code."""
SKIP_DIRS = frozenset({".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", "node_modules"})
MAX_FILE_BYTES = 2_000_000
"""Larger files are not scanned (listed on the verdict); generated or data files, not code."""

# High-entropy string detectors flag hashes, test vectors and lock files; the keyword and
# vendor-format detectors find real credentials with far fewer false positives.
DETECT_SECRETS_PLUGINS: tuple[str, ...] = (
    "ArtifactoryDetector", "AWSKeyDetector", "AzureStorageKeyDetector", "BasicAuthDetector",
    "CloudantDetector", "DiscordBotTokenDetector", "GitHubTokenDetector", "GitLabTokenDetector",
    "IbmCloudIamDetector", "IbmCosHmacDetector", "JwtTokenDetector", "KeywordDetector", "MailchimpDetector",
    "NpmDetector", "OpenAIDetector", "PrivateKeyDetector", "PypiTokenDetector", "SendGridDetector",
    "SlackDetector", "SoftlayerDetector", "SquareOAuthDetector", "StripeDetector", "TelegramBotTokenDetector",
    "TwilioKeyDetector",
)
KEYWORD_RULE_SUFFIXES = frozenset({".py"})
"""Where our own hardcoded-credential rule reads the code (names, not just words), detect-secrets'
keyword heuristic is dropped: it flags ``PASSWORD_FIELD = "password"``. Its vendor-format
detectors (AWS keys, private keys, tokens) still run on every file."""
BANDIT_ARGS: tuple[str, ...] = ("--severity-level", "medium", "--confidence-level", "medium", "--ignore-nosec")
SEMGREP_ARGS: tuple[str, ...] = (
    "--metrics=off", "--disable-version-check", "--json", "--quiet",
    "--disable-nosem",  # a `# nosemgrep` comment must not hide an introduced finding
    "--no-git-ignore", "--x-ignore-semgrepignore-files",
    "--max-target-bytes=0", "--timeout=10",
)
SCANNER_POLICY = json.dumps(
    {
        "detect_secrets": DETECT_SECRETS_PLUGINS, "keyword_rule_suffixes": sorted(KEYWORD_RULE_SUFFIXES),
        "bandit": BANDIT_ARGS, "semgrep": SEMGREP_ARGS, "max_file_bytes": MAX_FILE_BYTES,
    }
)
_TOOL_SEVERITY: dict[str, Severity] = {
    "ERROR": "high", "WARNING": "medium", "INFO": "low", "HIGH": "high", "MEDIUM": "medium", "LOW": "low",
}
_SECRETS_LOCK = threading.Lock()  # detect-secrets keeps its settings in a module-level global


@dataclass
class ScanResult:
    """Raw findings per tree name (``submission`` / ``starter``) plus what could not be scanned."""

    findings: dict[str, list[ToolFinding]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


def stage(trees: dict[str, Path], dest: Path) -> list[str]:
    """Copy each tree's regular files to ``dest/<name>/``; return the relative paths left out."""
    skipped: list[str] = []
    for name, root in trees.items():
        target = dest / name
        target.mkdir(parents=True)
        if not root.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            here = Path(dirpath)
            dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not (here / d).is_symlink()]
            for fname in filenames:
                src = here / fname
                rel = src.relative_to(root)
                if fname in TOOL_CONFIG_FILES or src.is_symlink() or not src.is_file():
                    continue
                if src.stat().st_size > MAX_FILE_BYTES:
                    skipped.append(f"{name}/{rel.as_posix()}")
                    continue
                (target / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, target / rel)
    return skipped


def tool_env(home: Path) -> dict[str, str]:
    """A minimal environment: no metrics, no version check, caches in a throwaway HOME."""
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"), "XDG_CONFIG_HOME": str(home / ".config"),
        "SEMGREP_ENABLE_VERSION_CHECK": "0", "SEMGREP_SEND_METRICS": "off", "LANG": "C.UTF-8",
    }


def start(cmd: Sequence[str], cwd: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    try:
        return subprocess.Popen(  # noqa: S603 - fixed argv of our own pinned tools, no shell
            list(cmd), cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
        )
    except OSError as exc:
        raise InfrastructureError(f"cannot start {cmd[0]}: {exc}") from exc


def finish(proc: subprocess.Popen[bytes], tool: str, deadline: float, ok_codes: tuple[int, ...]) -> bytes:
    """Wait for ``proc`` until ``deadline``; a timeout or an unexpected exit is the engine's failure."""
    try:
        out, err = proc.communicate(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired as exc:
        kill(proc)
        raise InfrastructureError(f"{tool} did not finish within the security judge's time limit") from exc
    if proc.returncode not in ok_codes:
        tail = err.decode(errors="replace").strip()[-800:]
        raise InfrastructureError(f"{tool} exited with status {proc.returncode}: {tail}")
    return out


def kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill the whole process group (semgrep forks semgrep-core)."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def snippet_at(root: Path, rel: str, line: int) -> str:
    try:
        lines = (root / rel).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    return normalise(lines[line - 1], rel) if 0 < line <= len(lines) else ""


def split_tree(path: str) -> tuple[str, str]:
    """``submission/app/db.py`` → (``submission``, ``app/db.py``)."""
    tree, _, rel = path.replace("\\", "/").removeprefix("./").partition("/")
    return tree, rel


def parse_semgrep(raw: bytes, staged: Path, rules: Sequence[RuleInfo], result: ScanResult) -> None:
    try:
        doc = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InfrastructureError(f"semgrep printed no JSON: {raw[:200]!r}") from exc
    by_id = {r.id: r for r in rules}
    known = frozenset(by_id)
    result.versions["semgrep"] = str(doc.get("version", "unknown"))
    for err in doc.get("errors", []):
        # Rule errors are ours (and make semgrep exit non-zero); target errors (syntax errors,
        # timeouts on one file) are facts about the submission, reported but not scored.
        result.notes.append(f"semgrep: {err.get('type', 'error')}: {str(err.get('message', ''))[:200]}")
    for hit in doc.get("results", []):
        tree, rel = split_tree(hit["path"])
        rid = local_rule_id(hit["check_id"], known)
        info = by_id.get(rid)
        meta = hit.get("extra", {}).get("metadata", {})
        cwe = parse_cwe(meta.get("cwe"))
        fallback = meta.get("severity") or _TOOL_SEVERITY.get(hit.get("extra", {}).get("severity", ""), "medium")
        line = int(hit["start"]["line"])
        result.findings.setdefault(tree, []).append(
            ToolFinding(
                tool="semgrep", rule=f"semgrep:{rid}", cwe=cwe, severity=severity_for(cwe, fallback),
                file=rel, line=line, end_line=int(hit["end"]["line"]),
                message=info.message if info else str(hit.get("extra", {}).get("message", "")),
                snippet=snippet_at(staged / tree, rel, line),
            )
        )


def parse_bandit(raw: bytes, staged: Path, result: ScanResult) -> None:
    try:
        doc = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InfrastructureError(f"bandit printed no JSON: {raw[:200]!r}") from exc
    for err in doc.get("errors", []):
        result.notes.append(f"bandit: {err.get('filename', '?')}: {str(err.get('reason', ''))[:200]}")
    for hit in doc.get("results", []):
        tree, rel = split_tree(hit["filename"])
        test_id = str(hit.get("test_id", ""))
        cwe = BANDIT_CWE_OVERRIDES.get(test_id) or parse_cwe((hit.get("issue_cwe") or {}).get("id"))
        line = int(hit["line_number"])
        line_range = hit.get("line_range") or [line]
        result.findings.setdefault(tree, []).append(
            ToolFinding(
                tool="bandit", rule=f"bandit:{test_id}", cwe=cwe,
                severity=severity_for(cwe, _TOOL_SEVERITY.get(str(hit.get("issue_severity")), "medium")),
                file=rel, line=line, end_line=max(int(x) for x in line_range),
                message=f"{hit.get('test_name', test_id)}: {hit.get('issue_text', '')}",
                snippet=snippet_at(staged / tree, rel, line),
            )
        )


def trees_with(staged: Path, trees: Sequence[str], suffixes: frozenset[str]) -> list[str]:
    """The staged trees holding at least one file with one of ``suffixes``."""
    return [t for t in trees if any(p.suffix in suffixes and p.is_file() for p in (staged / t).rglob("*"))]


def read_eslint(raw: bytes, staged: Path, result: ScanResult) -> None:
    findings, notes = parse_eslint(raw, lambda tree, rel, line: snippet_at(staged / tree, rel, line))
    for tree, found in findings.items():
        result.findings.setdefault(tree, []).extend(found)
    result.notes.extend(notes)


def scan_secrets(staged: Path, trees: Sequence[str], result: ScanResult) -> None:
    """detect-secrets over every staged file, the allowlist pragma disabled (it would let a
    submission mark its own secret as allowed)."""
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import transient_settings

    config = {"plugins_used": [{"name": name} for name in DETECT_SECRETS_PLUGINS]}
    with _SECRETS_LOCK, transient_settings(config) as settings:
        settings.disable_filters("detect_secrets.filters.allowlist.is_line_allowlisted")
        for tree in trees:
            root = staged / tree
            collection = SecretsCollection(root=str(root))
            for path in sorted(p for p in root.rglob("*") if p.is_file()):
                collection.scan_file(path.relative_to(root).as_posix())
            for rel, secret in collection:
                if secret.type == "Secret Keyword" and Path(str(rel)).suffix in KEYWORD_RULE_SUFFIXES:
                    continue
                line = int(secret.line_number or 1)
                result.findings.setdefault(tree, []).append(
                    ToolFinding(
                        tool="detect-secrets", rule=f"detect-secrets:{secret.type}", cwe=798,
                        severity=severity_for(798, "high"), file=str(rel).replace(os.sep, "/"), line=line,
                        end_line=line, message=f"{secret.type} found in the source",
                        snippet=snippet_at(root, str(rel), line),
                    )
                )
