"""ESLint with eslint-plugin-security and eslint-plugin-no-unsanitized: the JavaScript/TypeScript
scanner beside Semgrep's ``bouts.javascript.*`` rules.

``ESLINT_RULES`` is the one table of the ESLint rules the judge turns on and the CWE each is filed
under (its severity then comes from ``CWE_SEVERITY``, like every other tool's). ESLint and its
plugins are pinned in ``tools/eslint/package-lock.json`` and installed there by ``scripts/setup``;
the configuration (``tools/eslint/bouts-security.config.mjs``) and the output formatter
(``bouts-formatter.cjs``) sit next to them and belong to the engine, never to the submission.
Parsing the formatter's output is pure; finding and running the tool is the I/O edge
(``_scanners`` / ``_judge``). Design notes and the rule table written out: docs/security.md.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bouts.errors import InfrastructureError
from bouts.judges.security._findings import ToolFinding
from bouts.judges.security._severity import CWE_SEVERITY, Severity
from bouts.version import PACKAGE_DIR

SnippetReader = Callable[[str, str, int], str]
"""``(tree, rel, line)`` → the normalised source line at that place (the baseline key)."""


@dataclass(frozen=True)
class EslintRule:
    """One ESLint rule the judge turns on: what it finds and the CWE it is filed under."""

    cwe: int
    message: str
    """Shown on the verdict before ESLint's own text: what the weakness is and how to fix it."""

    @property
    def severity(self) -> Severity:
        return CWE_SEVERITY[self.cwe]


ESLINT_RULES: Mapping[str, EslintRule] = {
    "security/detect-child-process": EslintRule(
        78, "child_process.exec with a non-literal command runs it through a shell: use execFile/spawn with an "
        "argument array"),
    "security/detect-eval-with-expression": EslintRule(
        95, "eval of a non-literal value runs whatever that value holds as code"),
    "security/detect-non-literal-fs-filename": EslintRule(
        73, "a file-system call with a path that is not fixed: if any part comes from a request, it can reach any "
        "file (resolve it under a base directory and check the result stays there)"),
    "security/detect-non-literal-require": EslintRule(
        829, "require() of a computed name loads whatever module or file that name points to"),
    "security/detect-non-literal-regexp": EslintRule(
        1333, "new RegExp() of a non-literal pattern: a crafted pattern can backtrack for minutes (ReDoS); escape "
        "input or match it another way"),
    "security/detect-unsafe-regex": EslintRule(
        1333, "a regular expression with nested quantifiers can backtrack exponentially on crafted input (ReDoS)"),
    "security/detect-possible-timing-attacks": EslintRule(
        208, "a secret compared with ==/===: the comparison time leaks how much of it matched; use "
        "crypto.timingSafeEqual on equal-length buffers"),
    "security/detect-pseudoRandomBytes": EslintRule(
        338, "crypto.pseudoRandomBytes is not cryptographically strong: use crypto.randomBytes"),
    "security/detect-no-csrf-before-method-override": EslintRule(
        352, "csrf middleware registered before methodOverride: an overridden method bypasses the CSRF check"),
    "security/detect-disable-mustache-escape": EslintRule(
        79, "escapeMarkup = false turns off HTML escaping in the template engine"),
    "security/detect-bidi-characters": EslintRule(
        838, "Unicode bidirectional control characters make the code read differently from how it runs "
        "(Trojan Source)"),
    "security/detect-invisible-characters": EslintRule(
        838, "an invisible character (U+3164 / U+FFA0) in the code can hide an identifier from a reviewer"),
    "no-unsanitized/property": EslintRule(
        79, "a non-literal assigned to innerHTML/outerHTML: unescaped input becomes markup (XSS); use textContent "
        "or a sanitizer"),
    "no-unsanitized/method": EslintRule(
        79, "a non-literal passed to insertAdjacentHTML/document.write/createContextualFragment: unescaped input "
        "becomes markup (XSS)"),
}
"""Every rule turned on, with its CWE. A rule of the plugins missing here is off: see ``ESLINT_OFF``."""

ESLINT_OFF: Mapping[str, str] = {
    "security/detect-object-injection": "fires on every obj[key] with a variable key; almost all are false positives",
    "security/detect-new-buffer": "new Buffer(n) is zero-filled since Node 8 (the runner uses Node 20); only a "
    "deprecation, which the stability judge sees",
    "security/detect-buffer-noassert": "Node 10 removed the noAssert argument; it no longer skips bounds checks",
}
"""Rules of eslint-plugin-security deliberately left off, and why (docs/security.md repeats this)."""

CONFIG_FILE = "bouts-security.config.mjs"
FORMATTER_FILE = "bouts-formatter.cjs"
PACKAGES = ("eslint", "eslint-plugin-security", "eslint-plugin-no-unsanitized", "@typescript-eslint/parser",
            "typescript")
"""Reported in ``Verdict.versions`` (exact versions come from ``package-lock.json``)."""
ESLINT_ARGS: tuple[str, ...] = (
    "--no-config-lookup",  # with --config: no eslint.config.* of the submission is looked for
    "--no-inline-config",  # `/* eslint-disable */` in submitted code hides nothing
    "--no-ignore",  # nothing skipped (there is no ignore file to obey either)
    "--no-warn-ignored", "--no-error-on-unmatched-pattern",
)
NODE_ARGS: tuple[str, ...] = ("--max-old-space-size=2048",)
"""Bounds ESLint's heap; time is bounded by the judge's deadline, output by the formatter."""


@dataclass(frozen=True)
class EslintTool:
    """Where the engine's ESLint install and the node that runs it are."""

    package_dir: Path
    """``tools/eslint``: package.json, the lock, the config and formatter, and ``node_modules/``."""
    node: Path | None
    """The node executable; None when none was found."""
    config_file: str = CONFIG_FILE
    """The engine's flat config in ``package_dir`` (the quality lint judge has its own)."""
    purpose: str = "the security judge cannot scan JavaScript/TypeScript"
    """What is lost when ESLint is missing (the start of the ``InfrastructureError`` reasons)."""

    @property
    def entry(self) -> Path:
        return self.package_dir / "node_modules" / "eslint" / "bin" / "eslint.js"

    def check(self) -> None:
        """Raise ``InfrastructureError`` unless node and ESLint (with its config) are there."""
        if self.node is None or not self.node.is_file():
            raise InfrastructureError(
                f"node is not installed: {self.purpose} with ESLint "
                f"(looked for {self.node or 'node on PATH'}); install Node 20+ and run scripts/setup"
            )
        missing = [p for p in (self.entry, self.package_dir / self.config_file, self.package_dir / FORMATTER_FILE)
                   if not p.is_file()]
        if missing:
            raise InfrastructureError(
                f"ESLint is not installed: {self.purpose} (missing {', '.join(map(str, missing))}); run scripts/setup"
            )

    def command(self, targets: Sequence[str], rules: Mapping[str, object] | None = None) -> list[str]:
        """The pinned invocation: the engine's config and formatter, ``rules`` (default: the security
        judge's ``ESLINT_RULES``, all "error") on the command line; nothing of the submission's read."""
        chosen = dict.fromkeys(ESLINT_RULES, "error") if rules is None else dict(rules)
        return [
            str(self.node), *NODE_ARGS, str(self.entry), "--config", str(self.package_dir / self.config_file),
            *ESLINT_ARGS, "--format", str(self.package_dir / FORMATTER_FILE),
            "--rule", json.dumps(chosen, sort_keys=True), *targets,
        ]

    def run(self, cwd: Path, targets: Sequence[str], rules: Mapping[str, object], timeout_s: float) -> bytes:
        """Run ``command(targets, rules)`` in ``cwd`` with a minimal environment (none of the
        operator's ``NODE_OPTIONS``/``ESLINT_*``) and return the formatter's output. A missing tool,
        a timeout (the process group is killed) or an exit other than 0/1 is ``InfrastructureError``."""
        self.check()
        with tempfile.TemporaryDirectory(prefix="bouts-eslint-home-") as home:
            env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": home, "LANG": "C.UTF-8"}
            return self._run(cwd, targets, rules, timeout_s, env)

    def _run(self, cwd: Path, targets: Sequence[str], rules: Mapping[str, object], timeout_s: float,
             env: dict[str, str]) -> bytes:
        try:
            proc = subprocess.Popen(  # noqa: S603 - fixed argv of the engine's pinned ESLint, no shell
                self.command(targets, rules), cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            raise InfrastructureError(f"cannot start eslint: {exc}") from exc
        try:
            out, err = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired as exc:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise InfrastructureError(f"eslint did not finish within {timeout_s:g} s") from exc
        if proc.returncode not in (0, 1):
            tail = err.decode(errors="replace").strip()[-800:]
            raise InfrastructureError(f"eslint exited with status {proc.returncode}: {tail}")
        return out

    def versions(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for name in PACKAGES:
            try:
                meta = json.loads((self.package_dir / "node_modules" / name / "package.json").read_text())
                out[name] = str(meta.get("version", "unknown"))
            except (OSError, ValueError):
                out[name] = "unknown"
        return out

    def policy(self) -> str:
        """What, besides the versions, decides ESLint's findings: rules, CWEs, flags, config and formatter."""
        files = {}
        for name in (self.config_file, FORMATTER_FILE):
            try:
                files[name] = (self.package_dir / name).read_text(encoding="utf-8")
            except OSError:
                files[name] = ""
        rules = {rid: r.cwe for rid, r in ESLINT_RULES.items()}
        return json.dumps({"rules": rules, "args": ESLINT_ARGS, "node": NODE_ARGS, "files": files}, sort_keys=True)


def default_package_dir() -> Path:
    """``tools/eslint`` of the checkout this engine runs from (``scripts/setup`` installs it there)."""
    return PACKAGE_DIR.parents[1] / "tools" / "eslint"


def find_node() -> Path | None:
    found = shutil.which("node")
    return Path(found) if found else None


@dataclass(frozen=True)
class EslintMessage:
    """One message of the engine's formatter: a rule report, or a file ESLint could not parse."""

    path: str
    """Relative to ESLint's working directory, ``/``-separated."""
    rule: str | None
    line: int
    end_line: int
    fatal: bool
    message: str


def read_messages(raw: bytes) -> tuple[list[EslintMessage], int]:
    """The formatter's JSON (``bouts-formatter.cjs``) → its messages and how many it dropped."""
    try:
        doc = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InfrastructureError(f"eslint printed no JSON: {raw[:200]!r}") from exc
    if not isinstance(doc, dict) or doc.get("schema") != "bouts.eslint/1":
        raise InfrastructureError(f"eslint output is not the engine formatter's: {raw[:200]!r}")
    out = []
    for entry in doc.get("files", []):
        for m in entry.get("messages", []):
            line = max(1, int(m.get("line") or 1))
            rule = m.get("rule")
            out.append(EslintMessage(str(entry["path"]), str(rule) if rule else None, line,
                                     max(line, int(m.get("endLine") or line)), bool(m.get("fatal")),
                                     str(m.get("message", ""))))
    return out, int(doc.get("dropped") or 0)


def parse_eslint(raw: bytes, snippet: SnippetReader) -> tuple[dict[str, list[ToolFinding]], list[str]]:
    """The formatter's JSON → findings per tree (``submission`` / ``starter``) and scanner notes.

    ``snippet(tree, rel, line)`` reads the normalised source line (the baseline key).
    """
    messages, dropped = read_messages(raw)
    findings: dict[str, list[ToolFinding]] = {}
    notes: list[str] = []
    for m in messages:
        tree, _, rel = m.path.partition("/")
        if m.fatal:
            notes.append(f"eslint: {tree}/{rel}:{m.line}: {m.message} (file not analysed by ESLint)")
            continue
        rule = ESLINT_RULES.get(str(m.rule))
        if rule is None:
            continue
        findings.setdefault(tree, []).append(
            ToolFinding(
                tool="eslint", rule=f"eslint:{m.rule}", cwe=rule.cwe, severity=rule.severity, file=rel,
                line=m.line, end_line=m.end_line, message=f"{rule.message} (ESLint: {m.message})",
                snippet=snippet(tree, rel, m.line),
            )
        )
    if dropped:
        notes.append(f"eslint: {dropped} more messages not read (output limit of the engine's formatter)")
    return findings, notes
