"""Findings of the security scanners: de-duplication across tools and the baseline against ``starter/``.

Pure: data in, data out. The scanners (``_scanners``) turn tool output into ``ToolFinding``s; this
module merges what several tools said about one weakness and decides which findings the submission
introduced. See docs/security.md for the rules written out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from bouts.judges.security._severity import SEVERITY_RANK, Severity, family

Tool = Literal["semgrep", "bandit", "eslint", "detect-secrets", "osv", "bouts"]
Status = Literal["introduced", "pre-existing", "test-code"]


@dataclass(frozen=True)
class ToolFinding:
    """What one tool reported at one place, already mapped to our severity."""

    tool: Tool
    rule: str
    """Tool-prefixed id: ``semgrep:bouts.python.sql-injection``, ``bandit:B608``,
    ``eslint:security/detect-child-process``, ``detect-secrets:AWS Access Key``,
    ``bouts:bouts.python.computed-name-call`` (the engine's own resolver, ``_dynamic``)."""
    cwe: int | None
    severity: Severity
    file: str
    """Relative to the scanned tree, forward slashes."""
    line: int
    end_line: int
    message: str
    snippet: str
    """The finding's first source line, normalised (see ``normalise``): the baseline key, not the line number."""


@dataclass(frozen=True)
class SecurityFinding:
    """One weakness after de-duplication: the most severe report of it, and every tool that saw it."""

    cwe: int | None
    severity: Severity
    file: str
    line: int
    end_line: int
    rule: str
    message: str
    snippet: str
    rules: tuple[str, ...]
    tools: tuple[Tool, ...]
    status: Status = "introduced"

    @property
    def family(self) -> int | None:
        return family(self.cwe)

    @property
    def counted(self) -> bool:
        return self.status == "introduced"


_COMMENT = re.compile(r"\s+#.*$")
_JS_COMMENT = re.compile(r"\s+(//.*|/\*(?:[^*]|\*(?!/))*\*/\s*)$")
JS_SUFFIXES = frozenset({".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts"})
"""JavaScript/TypeScript files: ESLint reads exactly these, and their comments are ``//`` / ``/* */``."""


def normalise(line: str, path: str = "") -> str:
    """A source line reduced to what identifies it across edits elsewhere: no indentation, no
    trailing comment (a ``# nosec`` or ``// eslint-disable-line`` must not make a pre-existing
    finding look new), single spaces. ``path`` picks the comment syntax: ``//`` and ``/* */`` for
    JavaScript/TypeScript (where ``#`` starts a private field), ``#`` otherwise."""
    pattern = _JS_COMMENT if path.endswith(tuple(JS_SUFFIXES)) else _COMMENT
    return " ".join(pattern.sub("", line).split())


def dedupe(findings: Iterable[ToolFinding]) -> list[SecurityFinding]:
    """Merge findings of one file and one CWE family whose line ranges overlap (same line reported
    by two tools, or one rule's multi-line match covering another's line). The merged finding keeps
    the highest severity, that report's rule and message, and lists every rule and tool."""
    groups: dict[tuple[str, object], list[ToolFinding]] = {}
    for f in findings:
        key = family(f.cwe) if f.cwe is not None else f.rule
        groups.setdefault((f.file, key), []).append(f)
    merged: list[SecurityFinding] = []
    for members in groups.values():
        members.sort(key=lambda f: (f.line, f.end_line))
        cluster: list[ToolFinding] = []
        for f in members:
            if cluster and f.line > max(c.end_line for c in cluster):
                merged.append(_merge(cluster))
                cluster = []
            cluster.append(f)
        merged.append(_merge(cluster))
    return sorted(merged, key=lambda s: (s.file, s.line, s.rule))


def _merge(cluster: Sequence[ToolFinding]) -> SecurityFinding:
    # Most severe first; semgrep before bandit and eslint on a tie, since our rules carry the clearer message.
    order: dict[str, int] = {"semgrep": 0, "bandit": 1, "eslint": 2, "detect-secrets": 3, "osv": 4, "bouts": 5}
    top = min(cluster, key=lambda f: (-SEVERITY_RANK[f.severity], order[f.tool], f.line))
    return SecurityFinding(
        cwe=top.cwe,
        severity=top.severity,
        file=top.file,
        line=min(f.line for f in cluster),
        end_line=max(f.end_line for f in cluster),
        rule=top.rule,
        message=top.message,
        snippet=top.snippet,
        rules=tuple(sorted({f.rule for f in cluster})),
        tools=tuple(sorted({f.tool for f in cluster}, key=order.__getitem__)),
    )


def baseline(submission: Sequence[SecurityFinding], starter: Sequence[SecurityFinding]) -> list[SecurityFinding]:
    """Mark each submission finding introduced or pre-existing.

    A finding is pre-existing when the starter has one of the same CWE family on the same
    normalised snippet: first in the same file, then (for code moved between files) in any file.
    Matching is a multiset: a starter flaw copied to a second place is still one new finding.
    Line numbers are never compared, so edits above a flaw do not make it look new.
    """
    exact = Counter((s.family, s.file, s.snippet) for s in starter)
    out: list[SecurityFinding | None] = []
    pending: list[int] = []
    for i, f in enumerate(submission):
        key = (f.family, f.file, f.snippet)
        if exact[key] > 0:
            exact[key] -= 1
            out.append(_with(f, "pre-existing"))
        else:
            out.append(None)
            pending.append(i)
    moved: Counter[tuple[int | None, str]] = Counter()
    for (fam, _file, snippet), n in exact.items():
        moved[(fam, snippet)] += n
    for i in pending:
        f = submission[i]
        key2 = (f.family, f.snippet)
        if moved[key2] > 0:
            moved[key2] -= 1
            out[i] = _with(f, "pre-existing")
        else:
            out[i] = _with(f, "test-code" if is_test_path(f.file) else "introduced")
    return [f for f in out if f is not None]


def _with(f: SecurityFinding, status: Status) -> SecurityFinding:
    return SecurityFinding(**{**f.__dict__, "status": status})


_TEST_FILE = re.compile(r"(^test_.*\.py$)|(.*_test\.py$)|(^conftest\.py$)|(.*\.(test|spec)\.[cm]?[jt]sx?$)")
_TEST_DIRS = frozenset({"test", "tests", "__tests__", "testing"})


def is_test_path(path: str) -> bool:
    """Test code is scanned and shown but not counted: fixture passwords and fake tokens in tests
    are not shipped weaknesses (see docs/security.md, "limits")."""
    parts = path.split("/")
    return bool(_TEST_DIRS.intersection(parts[:-1])) or bool(_TEST_FILE.match(parts[-1]))
