"""Running the scanners (Semgrep, Bandit, ESLint, detect-secrets) offline over a staged copy of the trees.

I/O edge of the security judge. Why a staged copy: the scanners obey configuration found in the tree
they scan (``.semgrepignore``, ``.gitignore``, ``.bandit``), so a submission could hide its own
code; the copy leaves those files out, has no symlinks, and sits outside any git repository (Semgrep
would otherwise scan only git-tracked files). Semgrep, Bandit and (for JavaScript/TypeScript) ESLint
run once each, over every tree of the call, concurrently; detect-secrets runs in-process meanwhile.
ESLint gets the engine's own config (``--config``), so an ``eslint.config.*`` in the submission is
never read.

Findings are cached per file (``FindingsCache``): every scanner here reads one file at a time, so
what it says about a file is a function of the file's path, its bytes, the rules and the scanners'
versions and settings. ``starter/`` is scanned once per challenge version, a submission's files
that it left unchanged never, and a re-scored submission not at all. Semgrep runs as its OCaml CLI
(``--experimental``, 0.2 core-seconds where the Python CLI takes 2.8, docs/benchmarks.md) over the
rules compiled to one alias-free JSON file (``_rules.compiled_rules``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from bouts.cache import Store
from bouts.errors import InfrastructureError
from bouts.judges.security._dynamic import RESOLVER_VERSION, computed_findings
from bouts.judges.security._eslint import EslintTool, parse_eslint
from bouts.judges.security._findings import JS_SUFFIXES, ToolFinding, normalise
from bouts.judges.security._placeholders import drop_placeholders
from bouts.judges.security._rules import RuleInfo, compiled_rules, load_rules, local_rule_id, ruleset_hash
from bouts.judges.security._severity import BANDIT_CWE_OVERRIDES, Severity, parse_cwe, severity_for
from bouts.loading.view import read_file_tree
from bouts.models.view import FileTree

TOOL_CONFIG_FILES = frozenset({".semgrepignore", ".gitignore", ".bandit", ".secrets.baseline"})
"""Never copied: each can tell a scanner to skip code."""
SKIP_DIRS: frozenset[str] = frozenset()
"""No folder is skipped by name: the trees scanned are the submission view's judged files, where what
is left out (vendored code, bytecode, what the runner replaces) is decided once for every judge."""
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
BANDIT_ARGS: tuple[str, ...] = (
    "--severity-level", "medium", "--confidence-level", "medium", "--ignore-nosec",
    # Bandit's default --exclude skips .git, .tox, .eggs, *.egg...: an -x of a path that never exists
    # replaces it, so every staged file is read.
    "-x", "/nonexistent/bouts-excludes-nothing",
)
SEMGREP_ARGS: tuple[str, ...] = (
    "--metrics=off", "--disable-version-check", "--json", "--quiet",
    "--disable-nosem",  # a `# nosemgrep` comment must not hide an introduced finding
    "--no-git-ignore", "--x-ignore-semgrepignore-files",
    "--max-target-bytes=0", "--timeout=10",
)
OSEMGREP_ARGS: tuple[str, ...] = ("--experimental",)
"""Semgrep's OCaml CLI: the same engine and JSON output without 2.5 s of Python start-up; it needs
the rules as one alias-free file (``_rules.compiled_rules``)."""
PARALLEL_FROM_FILES = 64
"""Semgrep gets ``--jobs`` > 1 only from this many files on: below it, parallel start-up costs more
CPU than it saves (measured: 0.27 vs 0.22 core-seconds on the example's two trees)."""
SCANNER_POLICY = json.dumps(
    {
        "detect_secrets": DETECT_SECRETS_PLUGINS, "keyword_rule_suffixes": sorted(KEYWORD_RULE_SUFFIXES),
        "bandit": BANDIT_ARGS, "semgrep": (*OSEMGREP_ARGS, *SEMGREP_ARGS), "max_file_bytes": MAX_FILE_BYTES,
        "resolver": RESOLVER_VERSION,
    }
)
_TOOL_SEVERITY: dict[str, Severity] = {
    "ERROR": "high", "WARNING": "medium", "INFO": "low", "HIGH": "high", "MEDIUM": "medium", "LOW": "low",
}
_SECRETS_LOCK = threading.Lock()  # detect-secrets keeps its settings in a module-level global


@dataclass
class ScanResult:
    """Raw findings per tree name (``submission`` / ``starter``, or any names a batch gives) plus what
    could not be scanned."""

    findings: dict[str, list[ToolFinding]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    javascript: bool = False
    """Whether any tree holds JavaScript/TypeScript (ESLint's findings are part of the scan)."""
    cached: int = 0
    """Files whose findings came from the cache (not scanned in this call)."""


@dataclass(frozen=True)
class SourceFile:
    """One file of one tree, read once: what is staged is exactly what was hashed."""

    tree: str
    rel: str
    data: bytes

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def read_trees(trees: Mapping[str, Path]) -> tuple[list[SourceFile], list[str]]:
    """Every scannable file of each tree, and the ``tree/rel`` paths left out for their size (each
    tree read by the submission view's walker: regular files, links never followed)."""
    files: list[SourceFile] = []
    skipped: list[str] = []
    for name, root in trees.items():
        found, left = files_of(read_file_tree(root), name)
        files += found
        skipped += left
    return files, skipped


def files_of(tree: FileTree, name: str) -> tuple[list[SourceFile], list[str]]:
    """The scannable files of a tree read once (``bouts.models.view``), as tree ``name``: no tool
    configuration (it could tell a scanner to skip code), nothing over ``MAX_FILE_BYTES`` (listed)."""
    files: list[SourceFile] = []
    skipped: list[str] = []
    for f in tree:
        if f.rel.rsplit("/", 1)[-1] in TOOL_CONFIG_FILES or f.data is None:
            continue
        if f.truncated or f.size > MAX_FILE_BYTES:
            skipped.append(f"{name}/{f.rel}")
        else:
            files.append(SourceFile(name, f.rel, f.data))
    return files, skipped


def stage(trees: dict[str, Path], dest: Path) -> list[str]:
    """Copy each tree's scannable files to ``dest/<name>/``; return the ``tree/rel`` paths left out
    for their size. (The uncached path; ``scan`` stages only what the cache does not know.)"""
    files, skipped = read_trees(trees)
    for name in trees:
        (dest / name).mkdir(parents=True)
    stage_files(files, dest)
    return skipped


def stage_files(files: Sequence[SourceFile], dest: Path) -> list[str]:
    """Write ``files`` to ``dest/<tree>/<rel>``; return the trees that got at least one file."""
    trees: list[str] = []
    for f in files:
        target = dest / f.tree / f.rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(f.data)
        if f.tree not in trees:
            trees.append(f.tree)
    return trees


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


def _drop_engine_placeholders(files: Sequence[SourceFile], result: ScanResult) -> None:
    """Secrets that are the engine's own placeholders (``_placeholders``) are not findings. Applied to
    cached and fresh findings alike, over each file's raw lines (a comment can hold a real key)."""
    data = {(f.tree, f.rel): f.data for f in files}
    for tree, found in result.findings.items():
        by_file: dict[str, list[ToolFinding]] = {}
        for finding in found:
            by_file.setdefault(finding.file, []).append(finding)
        kept: list[ToolFinding] = []
        for rel, group in by_file.items():
            raw = data.get((tree, rel))
            lines = raw.decode("utf-8", errors="replace").splitlines() if raw is not None else []
            kept += drop_placeholders(group, lines)
        result.findings[tree] = kept


def scan_computed(files: Sequence[SourceFile], result: ScanResult) -> None:
    """The engine's own resolver (``_dynamic``): dangerous calls reached by computed names, which
    the scanners, reading names, do not see. In-process, over the bytes read once."""
    for f in files:
        found = computed_findings(f.rel, f.data)
        if found:
            result.findings.setdefault(f.tree, []).extend(found)


# --- one cached scan over many trees ------------------------------------------------------------

CACHE_NAMESPACE = "security-findings"


class FindingsCache:
    """Each file's findings by (its path, its bytes, the scan policy): in memory (bounded, LRU) and,
    when ``directory`` is given, in the engine's on-disk cache (``bouts.cache.Store``, namespace
    ``security-findings``) so that every process of the engine shares them. A directory that cannot
    be used (not this user's, writable by others) leaves the memory alone: a slower scan, never a
    different one."""

    def __init__(self, directory: Path | None = None, max_entries: int = 20_000) -> None:
        self.directory = directory
        self.max_entries = max_entries
        self._memory: OrderedDict[str, tuple[ToolFinding, ...]] = OrderedDict()
        self._lock = threading.Lock()
        self._store: Store | None = None
        self._opened = False

    def get(self, key: str) -> tuple[ToolFinding, ...] | None:
        with self._lock:
            if key in self._memory:
                self._memory.move_to_end(key)
                return self._memory[key]
        store = self._disk()
        found = _findings(store.get({"file": key})) if store is not None else None
        if found is not None:
            self._remember(key, found)
        return found

    def put(self, key: str, findings: Sequence[ToolFinding]) -> None:
        self._remember(key, tuple(findings))
        store = self._disk()
        if store is not None:
            store.put({"file": key}, [asdict(f) for f in findings])

    def _remember(self, key: str, findings: tuple[ToolFinding, ...]) -> None:
        with self._lock:
            self._memory[key] = findings
            self._memory.move_to_end(key)
            while len(self._memory) > self.max_entries:
                self._memory.popitem(last=False)

    def _disk(self) -> Store | None:
        with self._lock:
            if not self._opened and self.directory is not None:
                self._opened = True
                with contextlib.suppress(InfrastructureError):
                    self._store = Store.open(self.directory, CACHE_NAMESPACE)
            return self._store


def _findings(payload: object) -> tuple[ToolFinding, ...] | None:
    """A stored entry back into findings; ``None`` (scan again) for anything not a list of them."""
    if not isinstance(payload, list):
        return None
    try:
        return tuple(ToolFinding(**item) for item in payload)
    except TypeError:
        return None


DEFAULT_CACHE = FindingsCache()
"""The process-wide cache in memory, for a run given no cache directory."""
_ON_DISK: dict[Path, FindingsCache] = {}
_ON_DISK_LOCK = threading.Lock()


def findings_cache(directory: Path | None) -> FindingsCache:
    """The process-wide cache for the engine's cache ``directory`` (``ScoreConfig.cache_dir``: entries
    HMAC-checked, the directory this user's alone, since whoever can write an entry decides a file's
    findings); in memory only when None."""
    if directory is None:
        return DEFAULT_CACHE
    with _ON_DISK_LOCK:
        return _ON_DISK.setdefault(directory, FindingsCache(directory))


@dataclass(frozen=True)
class Scanners:
    """The tools of one scan and what decides their findings."""

    semgrep: Path
    bandit: Path
    rules: Path
    """The shipped Semgrep rule directory (``_rules.rules_dir``)."""
    eslint: EslintTool
    jobs: int = 4

    def check(self) -> None:
        for tool, path in (("semgrep", self.semgrep), ("bandit", self.bandit)):
            if not path.is_file():
                raise InfrastructureError(f"{tool} is not installed (looked for {path})")

    def ruleset(self) -> str:
        """The ``security-rules`` hash on the scorecard: rules, severity policy, scanner settings."""
        return ruleset_hash(self.rules, SCANNER_POLICY + self.eslint.policy())

    def policy(self) -> str:
        """A digest of everything besides a file's path and bytes that decides its findings."""
        parts = {
            "ruleset": self.ruleset(),
            "tools": [str(self.semgrep.resolve()), str(self.bandit.resolve()), str(self.eslint.package_dir)],
            "versions": {d: package_version(d) for d in ("semgrep", "bandit", "detect-secrets")},
            "eslint": self.eslint.versions(),
        }
        return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def package_version(dist: str) -> str:
    try:
        return version(dist)
    except PackageNotFoundError:
        return "unknown"


def file_key(policy: str, f: SourceFile) -> str:
    """Path and bytes, not the tree: an unchanged starter file in a submission is the same entry."""
    return hashlib.sha256(f"{policy}\0{f.rel}\0{f.digest}".encode()).hexdigest()


def scan(
    trees: Mapping[str, Path], tools: Scanners, *, timeout_s: float = 180.0, cache: FindingsCache | None = None
) -> ScanResult:
    """Findings per tree name for every tree in ``trees``, each scanner started at most once for
    all of them (a batch of submissions and their starter in one call), only over the files
    ``cache`` does not already know.

    Raises ``InfrastructureError`` when a scanner is missing, fails or overruns ``timeout_s``. A run
    that left any note (a file a scanner could not parse, a timeout on one file, dropped output)
    caches nothing: a transient must not become a file's permanent answer.
    """
    files, skipped = read_trees(trees)
    return scan_files(files, skipped, tools, timeout_s=timeout_s, cache=cache)


def scan_files(
    files: Sequence[SourceFile], skipped: Sequence[str], tools: Scanners, *, timeout_s: float = 180.0,
    cache: FindingsCache | None = None,
) -> ScanResult:
    """``scan`` over files already read (``skipped``: the ``tree/rel`` paths left out for their size):
    the security judge passes the submission view's, so nothing is read twice."""
    tools.check()
    t0 = time.monotonic()
    result = ScanResult()
    result.notes.extend(f"not scanned (over {MAX_FILE_BYTES} bytes): {p}" for p in skipped)
    result.javascript = any(Path(f.rel).suffix in JS_SUFFIXES for f in files)
    policy = tools.policy()
    keys = [file_key(policy, f) for f in files]
    todo: list[int] = []
    for i, f in enumerate(files):
        hit = cache.get(keys[i]) if cache is not None else None
        if hit is None:
            todo.append(i)
        else:
            result.findings.setdefault(f.tree, []).extend(hit)
    result.cached = len(files) - len(todo)
    result.seconds["read"] = time.monotonic() - t0
    if todo:
        fresh = ScanResult()
        _run_scanners([files[i] for i in todo], tools, t0 + timeout_s, fresh)
        for tree, found in fresh.findings.items():
            result.findings.setdefault(tree, []).extend(found)
        result.notes.extend(fresh.notes)
        result.versions.update(fresh.versions)
        result.seconds.update(fresh.seconds)
        if cache is not None and not fresh.notes:
            by_file: dict[tuple[str, str], list[ToolFinding]] = {}
            for tree, found in fresh.findings.items():
                for finding in found:
                    by_file.setdefault((tree, finding.file), []).append(finding)
            for i in todo:
                cache.put(keys[i], by_file.get((files[i].tree, files[i].rel), []))
    result.versions.setdefault("semgrep", package_version("semgrep"))
    _drop_engine_placeholders(files, result)
    for found in result.findings.values():  # one order whichever findings came from the cache
        found.sort(key=lambda x: (x.file, x.line, x.end_line, x.tool, x.rule, x.message))
    result.seconds["total"] = time.monotonic() - t0
    return result


def _run_scanners(files: Sequence[SourceFile], tools: Scanners, deadline: float, result: ScanResult) -> None:
    """Stage ``files`` and run every scanner over them once (Semgrep, Bandit, ESLint concurrently;
    detect-secrets in this process meanwhile)."""
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bouts-security-") as tmp:
        staged, home = Path(tmp) / "trees", Path(tmp) / "home"
        home.mkdir()
        targets = stage_files(files, staged)  # only trees with something to scan: no empty targets
        rules_file = Path(tmp) / "rules.json"
        rules_file.write_text(compiled_rules(tools.rules), encoding="utf-8")
        env = tool_env(home)
        js_targets = trees_with(staged, targets, JS_SUFFIXES)
        if js_targets:
            tools.eslint.check()  # before anything starts: nothing to clean up
        jobs = tools.jobs if len(files) >= PARALLEL_FROM_FILES else 1
        procs: dict[str, subprocess.Popen[bytes]] = {}
        try:
            semgrep = [str(tools.semgrep), "scan", "--config", str(rules_file), *OSEMGREP_ARGS, *SEMGREP_ARGS]
            procs["semgrep"] = start([*semgrep, f"--jobs={jobs}", *targets], staged, env)
            procs["bandit"] = start([str(tools.bandit), "-r", "-f", "json", "-q", *BANDIT_ARGS, *targets], staged, env)
            if js_targets:
                procs["eslint"] = start(tools.eslint.command(js_targets), staged, env)
            t = time.monotonic()
            scan_secrets(staged, targets, result)
            result.seconds["detect-secrets"] = time.monotonic() - t
            t = time.monotonic()
            scan_computed(files, result)
            result.seconds["resolver"] = time.monotonic() - t
            parse_bandit(finish(procs["bandit"], "bandit", deadline, (0, 1)), staged, result)
            result.seconds["bandit"] = time.monotonic() - t0
            if "eslint" in procs:
                read_eslint(finish(procs["eslint"], "eslint", deadline, (0, 1)), staged, result)
                result.seconds["eslint"] = time.monotonic() - t0
            raw = finish(procs["semgrep"], "semgrep", deadline, (0, 1))
            parse_semgrep(raw, staged, load_rules(tools.rules), result)
            result.seconds["semgrep"] = time.monotonic() - t0
        finally:
            for proc in procs.values():
                kill(proc)
