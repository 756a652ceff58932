"""``SecurityJudge``: scan the submission and its starter, count only what the submission introduced.

The scan (``scan_trees``) is I/O; turning its report into a verdict (``verdict_from``) is pure, so
the scoring of findings is testable without any scanner. Design notes: docs/security.md.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from bouts.judges.base import JUDGES, Component, Finding, Judge, JudgeInput, Verdict
from bouts.judges.security import _scanners as sc
from bouts.judges.security._dynamic import RESOLVER_VERSION
from bouts.judges.security._eslint import ESLINT_RULES, EslintTool, default_package_dir, find_node
from bouts.judges.security._findings import SecurityFinding, baseline, dedupe
from bouts.judges.security._rules import load_rules, rules_dir
from bouts.judges.security.advisories import DependencyReport, check_trees, manifests
from bouts.loading.view import read_file_tree
from bouts.models.view import FileTree
from bouts.scoring.components import SECURITY_DEDUCTIONS, security
from bouts.scoring.explain import Explained, NotScored

JUDGE_NAME = "security-offline"
PRE_EXISTING = "pre-existing in starter/, not counted: "
TEST_CODE = "in test code, not counted: "
SEVERITIES = ("critical", "high", "medium", "low")
ESLINT_NOT_RUN = "not run (no JavaScript/TypeScript files)"
SCANNERS = ("semgrep", "bandit", "detect-secrets", "eslint", "bouts", "osv")
OSV_NOT_RUN = "not run (no advisory snapshot configured)"
ESLINT_PLUGINS = ("eslint-plugin-security", "eslint-plugin-no-unsanitized")


@dataclass(frozen=True)
class SecurityReport:
    """Everything the scan found, each finding already marked introduced / pre-existing / test-code."""

    findings: tuple[SecurityFinding, ...]
    versions: dict[str, str]
    notes: tuple[str, ...] = ()
    """Files not scanned, and per-file analyser errors (e.g. a syntax error in the submission)."""
    seconds: dict[str, float] = field(default_factory=dict)
    """Wall-clock time per step, for benchmarks; not part of the verdict (it is not reproducible)."""
    dependencies: DependencyReport | None = None
    """The dependency-advisory check (its findings are already in ``findings``); None: not asked for."""


@dataclass
class SecurityJudge:
    """Judge of the ``security`` component (SPEC §1): Semgrep with the shipped rules, Bandit,
    ESLint's security plugins (JavaScript/TypeScript) and detect-secrets, all offline;
    ``100 − 25·critical − 15·high − 5·medium − 1·low`` over the findings the submission introduced
    relative to ``starter/``."""

    name: str = JUDGE_NAME
    component: Component = "security"
    semgrep: Path | None = None
    """The semgrep executable; default: next to the running interpreter (the venv's)."""
    bandit: Path | None = None
    timeout_s: float = 180.0
    """Budget for the whole scan; past it the judge raises ``InfrastructureError``."""
    jobs: int = 4
    rules: Path | None = None
    """Semgrep rule directory; default: the rules shipped in ``bouts.rules``."""
    eslint_dir: Path | None = None
    """The engine's ESLint install (``tools/eslint``, set up by ``scripts/setup``); default: the one in
    the checkout this engine runs from."""
    node: Path | None = None
    """The node executable that runs ESLint; default: ``node`` on ``PATH``."""
    advisories: Path | None = None
    """The OSV advisory store (``bouts advisories import``); default: ``JudgeInput.advisories``, the
    ``advisories`` setting. None in both: dependencies are not checked, and the verdict says so."""

    def judge(self, inp: JudgeInput) -> Verdict:
        if not inp.view.code.present:
            return Verdict(self.name, self.component, NotScored("the submission has no code directory to scan"))
        # The view's judged files (protected paths and vendored code left out, as for every judge),
        # as read: the scanners are given these bytes, never a second read of the disk.
        trees = {"submission": inp.view.judged, "starter": inp.view.judged_starter}
        report = self.scan_view(trees, advisories=self.advisories or inp.advisories,
                                cache=sc.findings_cache(inp.cache_dir))
        return verdict_from(report, judge=self.name)

    def warm(self, trees: Mapping[str, FileTree], cache: sc.FindingsCache) -> None:
        """Scan many trees (a batch of submissions and their starters, any names) with one run of each
        scanner, for ``cache`` only: each file's findings depend on its path and bytes alone
        (``_scanners.file_key``), so the judge of every submission of the batch then reads its files'
        findings from the cache instead of starting the scanners for two small trees. A batch whose
        scan left a note (a file a scanner could not parse) caches nothing; its submissions are scanned
        by their own judges, as without the batch. Raises ``InfrastructureError`` like a scan."""
        scan_trees(
            trees, semgrep=self.semgrep or _next_to_python("semgrep"),
            bandit=self.bandit or _next_to_python("bandit"), rules=self.rules or rules_dir(),
            timeout_s=self.timeout_s, jobs=self.jobs,
            eslint=EslintTool(self.eslint_dir or default_package_dir(), self.node or find_node()), cache=cache,
        )  # fmt: skip

    def scan(self, code_dir: Path, starter: Path, advisories: Path | None = None,
             cache: sc.FindingsCache | None = sc.DEFAULT_CACHE) -> SecurityReport:
        """Scan both directories (each tool once over both) and baseline the submission on the starter."""
        return self.scan_view({"submission": read_file_tree(code_dir), "starter": read_file_tree(starter)},
                              advisories, cache)

    def scan_view(self, trees: Mapping[str, FileTree], advisories: Path | None = None,
                  cache: sc.FindingsCache | None = sc.DEFAULT_CACHE) -> SecurityReport:
        """``scan`` over trees read once (``submission`` and ``starter``)."""
        report = scan_trees(
            trees, semgrep=self.semgrep or _next_to_python("semgrep"),
            bandit=self.bandit or _next_to_python("bandit"), rules=self.rules or rules_dir(),
            timeout_s=self.timeout_s, jobs=self.jobs,
            eslint=EslintTool(self.eslint_dir or default_package_dir(), self.node or find_node()), cache=cache,
        )
        store = advisories if advisories is not None else self.advisories
        return with_dependencies(report, check_trees({name: manifests(tree) for name, tree in trees.items()}, store))


def with_dependencies(report: SecurityReport, deps: DependencyReport) -> SecurityReport:
    """``report`` with the dependency findings (the OSV snapshot's, docs/security.md), baselined on the
    starter's like the scanners' (their identities never meet a code finding's, so apart is the same)."""
    marked = baseline(list(deps.findings.get("submission", ())), list(deps.findings.get("starter", ())))
    versions = {**report.versions, "osv": deps.snapshot or OSV_NOT_RUN}
    return replace(report, findings=report.findings + tuple(marked), versions=versions, dependencies=deps)


def _next_to_python(tool: str) -> Path:
    return Path(sys.executable).parent / tool


def scan_trees(
    trees: Mapping[str, FileTree], *, semgrep: Path, bandit: Path, rules: Path, timeout_s: float = 180.0,
    jobs: int = 4, eslint: EslintTool | None = None, cache: sc.FindingsCache | None = sc.DEFAULT_CACHE,
) -> SecurityReport:
    """Run the scanners over ``trees`` (``submission`` and ``starter``, each read once):
    Semgrep, Bandit and detect-secrets always, ESLint when either tree holds JavaScript/TypeScript;
    each file's findings come from ``cache`` when it has seen the file (``_scanners.scan``; ``None``:
    scan all).

    Raises ``InfrastructureError`` when a scanner is missing (ESLint or node only matter when there
    is JavaScript/TypeScript to read), fails, or overruns ``timeout_s``: a broken analyser must never
    read as a clean (or a failing) submission.
    """
    tools = sc.Scanners(semgrep, bandit, rules, eslint or EslintTool(default_package_dir(), find_node()), jobs)
    files: list[sc.SourceFile] = []
    skipped: list[str] = []
    for name, tree in trees.items():
        found, left = sc.files_of(tree, name)
        files += found
        skipped += left
    result = sc.scan_files(files, skipped, tools, timeout_s=timeout_s, cache=cache)
    marked = baseline(dedupe(result.findings.get("submission", [])), dedupe(result.findings.get("starter", [])))
    versions = {
        "semgrep": result.versions["semgrep"],
        "bandit": _version("bandit"),
        "detect-secrets": _version("detect-secrets"),
        "bouts": RESOLVER_VERSION,
        **(tools.eslint.versions() if result.javascript else {"eslint": ESLINT_NOT_RUN}),
        "security-rules": f"sha256:{tools.ruleset()}",
        "security-rules-count": str(len(load_rules(rules))),
        "eslint-rules-count": str(len(ESLINT_RULES)),
    }
    return SecurityReport(tuple(marked), versions, tuple(result.notes), result.seconds)


def _version(dist: str) -> str:
    try:
        return version(dist)
    except PackageNotFoundError:
        return "unknown"


def verdict_from(report: SecurityReport, judge: str = JUDGE_NAME) -> Verdict:
    """The verdict of a scan: the SPEC formula over introduced findings; the others listed at 0 points."""
    counted = [f for f in report.findings if f.counted]
    counts = Counter(f.severity for f in counted)
    score = security({s: counts.get(s, 0) for s in SEVERITIES})
    pre = sum(1 for f in report.findings if f.status == "pre-existing")
    tests = sum(1 for f in report.findings if f.status == "test-code")
    tools = ", ".join(f"{k} {report.versions.get(k, 'unknown')}" for k in SCANNERS)
    plugins = [f"{k} {report.versions[k]}" for k in ESLINT_PLUGINS if k in report.versions]
    if plugins:
        tools += f" ({', '.join(plugins)})"
    math = [
        f"security scan of code/ against starter/: {tools}",
        "introduced findings: " + ", ".join(f"{s} {counts.get(s, 0)}" for s in SEVERITIES)
        + f" ({pre} pre-existing in starter/ and {tests} in test code not counted)",
        *score.math,
    ]
    if report.dependencies is not None:
        math.append(report.dependencies.summary)
    if report.notes:
        math.append(f"scanner notes: {len(report.notes)} (files skipped or not fully analysed; see findings)")
    findings = [_finding(f) for f in report.findings]
    findings += [Finding(rule="security.scan-note", message=note) for note in report.notes]
    if report.dependencies is not None:
        deps = report.dependencies
        findings += [Finding(rule="security.dependency-not-checked", message=note) for note in deps.notes]
        if not deps.checked:
            findings.append(Finding(rule="security.dependencies-not-checked", message=deps.summary))
    # Counted findings first, most severe first: what an agent builder should read first.
    findings.sort(key=lambda f: (f.points == 0, -f.points, f.file or "", f.line or 0))
    return Verdict(
        judge=judge, component="security", score=Explained(score.value, tuple(math)),
        findings=tuple(findings), versions=dict(report.versions),
    )


def _finding(f: SecurityFinding) -> Finding:
    cwe = f"CWE-{f.cwe}: " if f.cwe is not None else ""
    seen = f" [{', '.join(f.tools)}]" if len(f.tools) > 1 else ""
    prefix = {"introduced": "", "pre-existing": PRE_EXISTING, "test-code": TEST_CODE}[f.status]
    return Finding(
        rule=f.rule, message=f"{prefix}{cwe}{f.message}{seen}", file=f.file, line=f.line, severity=f.severity,
        points=float(SECURITY_DEDUCTIONS[f.severity]) if f.counted else 0.0,
    )


@JUDGES.register(JUDGE_NAME)
def make_security_judge() -> Judge:
    """Security (SPEC §1): Semgrep, Bandit, ESLint, detect-secrets, all offline; introduced findings only."""
    return SecurityJudge()
