"""The lint judge ("quality-lint"): ruff findings in changed code, by rule family and density
(JavaScript/TypeScript: ESLint's core rules, ``_js_lint``).

Ruff runs as a subprocess (the venv's ``ruff``, next to ``sys.executable``) over *copies* of the
changed files in a temporary directory, with ``--isolated`` (no configuration file of the
submission, or above it, can steer the rules), ``--ignore-noqa`` (a ``# noqa`` cannot hide a
finding) and the pinned rule selection below. Only findings on judged lines count. The rule table
is documented in docs/quality-judges.md; keep the two in step.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from bouts.errors import InfrastructureError
from bouts.judges.base import JUDGES, Judge, JudgeInput, Verdict
from bouts.judges.quality._changes import ChangeSet
from bouts.judges.quality._scoring import Dimension, Hit, judge_changed_code, per_line
from bouts.languages import language_of
from bouts.scoring.explain import NotScored

NAME = "quality-lint"
SELECT = (
    "E", "W", "F", "N", "D100", "D101", "D102", "D103", "D104", "D106", "B", "BLE", "C4", "C90", "PIE", "SIM",
    "UP", "RET", "ERA", "PL", "ARG", "PERF", "RUF", "S110", "S112", "TRY002", "TRY201", "TRY203",
)
# Non-ASCII prose (×, −, é) is legitimate in strings and comments; imports inside a function are
# how heavy SDKs stay optional (STYLE §3).
# Seed 000: no penalty for a choice between equally valid styles. These rules each prefer one side of
# such a choice: functional or imperative (C417 map/filter with a lambda, PERF401/PERF402 a loop that
# builds a list, SIM110 a loop instead of any()/all()), verbose or concise (RET504 a named
# result, RET505-RET508 an else after return, SIM108 an if/else instead of a conditional expression).
STYLE_CHOICES = ("C417", "PERF401", "PERF402", "SIM110", "RET504", "RET505", "RET506", "RET507",
                 "RET508", "SIM108")
IGNORE = ("RUF001", "RUF002", "RUF003", "PLC0415", *STYLE_CHOICES)
SETTINGS = (
    "lint.mccabe.max-complexity = 10",
    # Magic strings count too (a price compared as "19.99" is as magic as 1999); see _MAGIC_TAG.
    "lint.pylint.allow-magic-value-types = []",
    # Ruff skips build/, dist/, venv/, node_modules/... by default and obeys .gitignore: the files it is
    # given are the submission view's judged files, wherever they sit (docs/judges.md).
    "exclude = []",
    "respect-gitignore = false",
)
LINE_LENGTH = 120
TIMEOUT_S = 60

# Rule code prefix → (dimension, weight: points per finding per 100 judged lines). Longest prefix wins.
RULES: dict[str, tuple[Dimension, float]] = {
    # readability: can a reader follow it?
    "E501": ("readability", 2), "E7": ("readability", 4), "E741": ("readability", 6), "W": ("readability", 2),
    "N": ("readability", 5), "D1": ("readability", 5), "PLR2004": ("readability", 8), "ERA": ("readability", 5),
    "RET": ("readability", 3), "F841": ("readability", 6),
    # architecture: shape and coupling of the code
    "C90": ("architecture", 12), "PLR09": ("architecture", 10), "F401": ("architecture", 5),
    "F403": ("architecture", 8), "F405": ("architecture", 8), "ARG": ("architecture", 5),
    "PLW0602": ("architecture", 10), "PLW0603": ("architecture", 10),
    # robustness: will it break, or hide breakage?
    "F": ("robustness", 12), "E9": ("robustness", 20), "E722": ("robustness", 15), "BLE": ("robustness", 15),
    "S110": ("robustness", 15), "S112": ("robustness", 15), "B": ("robustness", 8), "PLE": ("robustness", 15),
    "PLW": ("robustness", 8), "W605": ("robustness", 8), "TRY": ("robustness", 6), "RUF006": ("robustness", 10),
    "RUF012": ("robustness", 8), "RUF013": ("robustness", 5),
    # idiomaticity: does it use the language the way its community does?
    "UP": ("idiomaticity", 3), "SIM": ("idiomaticity", 4), "C4": ("idiomaticity", 3), "PIE": ("idiomaticity", 3),
    "PERF": ("idiomaticity", 4), "RUF": ("idiomaticity", 3), "PLR": ("idiomaticity", 4), "PLC": ("idiomaticity", 3),
    "E711": ("idiomaticity", 4), "E712": ("idiomaticity", 4), "E713": ("idiomaticity", 4),
    "E714": ("idiomaticity", 4), "E721": ("idiomaticity", 4), "E731": ("idiomaticity", 4),
}
FALLBACK: tuple[Dimension, float] = ("idiomaticity", 3)
# PLR2004 on a string: "19.99" or "admin@x.io" is a data value hidden in a comparison; "open" or
# "fulfilled" is a symbolic tag, the idiom of ``Literal[...]`` status fields, and is not counted.
_MODULE_RULES = frozenset({"D100", "D104"})
_MAGIC_TAG = re.compile(r'Magic value used in comparison, consider replacing `"[A-Za-z_][A-Za-z0-9_]*"`')


def classify(code: str) -> tuple[Dimension, float]:
    """The dimension and weight of a ruff rule code (longest matching prefix of ``RULES``)."""
    for end in range(len(code), 0, -1):
        if code[:end] in RULES:
            return RULES[code[:end]]
    return FALLBACK


def ruff_binary() -> Path:
    """The ruff installed beside the running interpreter (the pinned one), not one on PATH."""
    path = Path(sys.executable).parent / ("ruff.exe" if os.name == "nt" else "ruff")
    if not path.is_file():
        raise InfrastructureError(f"ruff is not installed next to {sys.executable}")
    return path


@functools.cache
def ruff_version() -> str:
    out = subprocess.run([str(ruff_binary()), "--version"], capture_output=True, text=True, timeout=TIMEOUT_S)
    return out.stdout.strip().removeprefix("ruff ") or "unknown"


def ruff_command(target: str) -> list[str]:
    """The exact, pinned invocation (no configuration file is read)."""
    cmd = [str(ruff_binary()), "check", "--isolated", "--no-cache", "--ignore-noqa", "--exit-zero",
           "--output-format", "json", "--target-version", "py311", "--line-length", str(LINE_LENGTH),
           "--select", ",".join(SELECT), "--ignore", ",".join(IGNORE)]
    for setting in SETTINGS:
        cmd += ["--config", setting]
    return cmd + [target]


def run_ruff(changes: ChangeSet) -> list[dict[str, object]]:
    """Ruff's JSON diagnostics for the changed, parseable files, with paths relative to ``code/``."""
    files = [f for f in changes.changed if f.tree is not None]
    if not files:
        return []
    # Ruff's own RUFF_* settings from the operator's environment must not change a score either.
    env = {k: v for k, v in os.environ.items() if not k.startswith("RUFF_")}
    with tempfile.TemporaryDirectory(prefix="bouts-lint-") as tmp:
        for f in files:
            dest = Path(tmp, f.rel)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(f.text, encoding="utf-8")
        try:
            proc = subprocess.run(ruff_command("."), cwd=tmp, capture_output=True, text=True,
                                  timeout=TIMEOUT_S, env=env)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise InfrastructureError(f"ruff could not run: {exc}") from exc
        if proc.returncode != 0:
            raise InfrastructureError(f"ruff failed (exit {proc.returncode}): {proc.stderr.strip()[:500]}")
        try:
            diagnostics = json.loads(proc.stdout or "[]")
        except json.JSONDecodeError as exc:
            raise InfrastructureError(f"ruff printed no JSON: {exc}") from exc
        root = Path(tmp).resolve()
        for d in diagnostics:
            d["filename"] = Path(str(d["filename"])).resolve().relative_to(root).as_posix()
    return diagnostics


def lint_hits(changes: ChangeSet, diagnostics: list[dict[str, object]]) -> list[Hit]:
    """Judged-line diagnostics as density hits."""
    hits = []
    new_files = {f.rel for f in changes.files if f.new}
    for d in diagnostics:
        code = d.get("code")
        location = d.get("location")
        line = location.get("row") if isinstance(location, dict) else None
        file = str(d["filename"])
        if not isinstance(code, str) or not changes.is_judged(file, line):
            continue  # a syntax error (no code) is already a file note; unchanged code is not judged
        message = str(d.get("message", code))
        if code == "PLR2004" and _MAGIC_TAG.match(message):
            continue
        if code in _MODULE_RULES and file not in new_files:
            continue  # reported at line 1, which may be a changed function's line; the module is not new

        dimension, weight = classify(code)
        share = changes.share(file, line)
        if share < 1:
            message += " (on a line inherited from starter/: partial weight)"
        hits.append(Hit(f"ruff:{code}", dimension, message, per_line(weight, changes, file, line), file, line))
    return hits


@dataclass(frozen=True)
class LintJudge:
    """Ruff rule families (Python) or ESLint core rules (JavaScript/TypeScript) mapped to the four
    dimensions; density per 100 changed lines."""

    eslint_dir: Path | None = None
    """The engine's ESLint install; default: ``tools/eslint`` of this checkout (as the security judge)."""
    node: Path | None = None
    """The node executable that runs ESLint; default: ``node`` on ``PATH``."""

    name = NAME
    component = "code_quality"

    def judge(self, inp: JudgeInput) -> Verdict:
        language = language_of(inp.challenge)
        if not language.has("quality.lint"):
            return Verdict(self.name, "code_quality", NotScored(f"no linter for {language.name} yet"))
        hits, versions = language.part("quality.lint")(self)
        return judge_changed_code(self.name, inp, hits, versions)


def lint_for(judge: LintJudge) -> tuple[Callable[[ChangeSet], list[Hit]], Callable[[], Mapping[str, str]]]:
    """Python (the language seam's ``quality.lint``): Ruff, pinned rules, no configuration file read."""
    return (lambda changes: lint_hits(changes, run_ruff(changes)),
            lambda: {"ruff": ruff_version(), "quality-lint rules": "2026.2"})


@JUDGES.register(NAME)
def make_lint_judge() -> Judge:
    """Offline code-quality judge: ruff rule families in changed code, mapped to four dimensions."""
    return LintJudge()
