"""quality-lint for JavaScript/TypeScript: ESLint's core rules in changed code, by dimension and density.

The engine's ESLint (``tools/eslint``, pinned by its ``package-lock.json``; the security judge runs
the same install) reads *copies* of the changed files in a temporary directory with the engine's
own flat config (``bouts-quality.config.mjs``: parsers and globals, no rules, no plugin),
``--no-config-lookup --no-inline-config --no-ignore``: no ``eslint.config.*`` of the submission and
no ``eslint-disable`` comment can steer a finding. The rules come from ``RULES`` on the command line.
Only findings on judged lines count, inherited lines at partial weight (``ChangeSet.share``), exactly
as ruff's for Python. Node or ESLint missing is an ``InfrastructureError`` (the verdict is *not
scored*, never 100). The table is written out in docs/quality-judges.md; keep the two in step.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bouts.jsast import dialect_for
from bouts.judges.quality._changes import ChangeSet
from bouts.judges.quality._scoring import Dimension, Hit, per_line
from bouts.judges.security import EslintTool, find_node
from bouts.judges.security import eslint_package_dir as default_package_dir
from bouts.judges.security import read_eslint_messages as read_messages

CONFIG_FILE = "bouts-quality.config.mjs"
TIMEOUT_S = 120.0
PACKAGES = ("eslint", "@typescript-eslint/parser", "typescript")


@dataclass(frozen=True)
class Rule:
    """One ESLint core rule: its dimension, its weight (points per finding per 100 judged lines),
    its options, and whether it also runs on TypeScript."""

    dimension: Dimension
    weight: float
    options: tuple[object, ...] = ()
    typescript: bool = True
    """False for core rules that misread TypeScript (types, overloads, enums, declarations):
    typescript-eslint replaces them with its own versions, which the engine does not install."""


RULES: Mapping[str, Rule] = {
    # readability: can a reader follow it?
    "no-unused-vars": Rule("readability", 6, ({"args": "after-used", "caughtErrors": "none",
                                               "ignoreRestSiblings": True, "argsIgnorePattern": "^_",
                                               "varsIgnorePattern": "^_"},), typescript=False),
    "no-shadow": Rule("readability", 5, typescript=False),
    "no-param-reassign": Rule("readability", 4),
    "no-nested-ternary": Rule("readability", 4),
    "no-return-assign": Rule("readability", 4),
    "no-sequences": Rule("readability", 4),
    "no-multi-assign": Rule("readability", 3),
    "no-else-return": Rule("readability", 3),
    # architecture: shape and coupling of the code
    "no-extend-native": Rule("architecture", 10),
    "no-global-assign": Rule("architecture", 10),
    "no-new": Rule("architecture", 5),
    "no-use-before-define": Rule("architecture", 4, ({"functions": False, "classes": True, "variables": True},),
                                 typescript=False),
    "no-unused-private-class-members": Rule("architecture", 5),
    # robustness: will it break, or hide breakage?
    "no-undef": Rule("robustness", 12, typescript=False),
    "no-redeclare": Rule("robustness", 12, typescript=False),
    "no-dupe-class-members": Rule("robustness", 12, typescript=False),
    "no-dupe-keys": Rule("robustness", 12),
    "no-duplicate-case": Rule("robustness", 12),
    "no-dupe-else-if": Rule("robustness", 12),
    "no-self-compare": Rule("robustness", 12),
    "no-constant-binary-expression": Rule("robustness", 12),
    "use-isnan": Rule("robustness", 12),
    "valid-typeof": Rule("robustness", 12),
    "no-unsafe-finally": Rule("robustness", 12),
    "no-unsafe-negation": Rule("robustness", 12),
    "no-unsafe-optional-chaining": Rule("robustness", 12),
    "no-const-assign": Rule("robustness", 12),
    "no-import-assign": Rule("robustness", 12),
    "getter-return": Rule("robustness", 12),
    "no-fallthrough": Rule("robustness", 12),
    "no-empty": Rule("robustness", 15),
    "no-async-promise-executor": Rule("robustness", 10),
    "eqeqeq": Rule("robustness", 8, ("always", {"null": "ignore"})),
    "no-throw-literal": Rule("robustness", 8),
    "prefer-promise-reject-errors": Rule("robustness", 8),
    "no-loop-func": Rule("robustness", 8),
    "no-cond-assign": Rule("robustness", 8),
    "no-self-assign": Rule("robustness", 8),
    "no-constant-condition": Rule("robustness", 8),
    "array-callback-return": Rule("robustness", 8),
    "no-unused-expressions": Rule("robustness", 8, ({"allowShortCircuit": True, "allowTernary": True},)),
    "no-new-wrappers": Rule("robustness", 8),
    "require-atomic-updates": Rule("robustness", 6, ({"allowProperties": True},)),
    "no-promise-executor-return": Rule("robustness", 6),
    "consistent-return": Rule("robustness", 6),
    "no-prototype-builtins": Rule("robustness", 6),
    "no-case-declarations": Rule("robustness", 6),
    "default-case": Rule("robustness", 4),
    # TypeScript's `any` switches the type checker off for everything it touches (issue 39): a core
    # rule on the TypeScript parser's `TSAnyKeyword` node, no plugin needed; it never fires on JavaScript.
    # `unknown`, generics or a real type say what the value is; `any` in a test double or a type
    # guard's parameter costs the same as elsewhere (one finding, 4 points per 100 judged lines).
    "no-restricted-syntax": Rule("robustness", 4, ({
        "selector": "TSAnyKeyword",
        "message": "`any` turns type checking off for this value and everything it reaches: use `unknown` "
                   "(narrowed before use), a generic or the real type",
    },)),  # fmt: skip
    # idiomaticity: does it use the language the way its community does?
    "no-var": Rule("idiomaticity", 4),
    "prefer-const": Rule("idiomaticity", 3, ({"destructuring": "all"},)),
    "object-shorthand": Rule("idiomaticity", 3),
    "prefer-template": Rule("idiomaticity", 3),
    "prefer-rest-params": Rule("idiomaticity", 3),
    "prefer-spread": Rule("idiomaticity", 3),
    "prefer-object-has-own": Rule("idiomaticity", 3),
    "prefer-exponentiation-operator": Rule("idiomaticity", 3),
    "no-implicit-coercion": Rule("idiomaticity", 3, ({"boolean": False},)),
    "no-lonely-if": Rule("idiomaticity", 3),
    "no-unneeded-ternary": Rule("idiomaticity", 3),
    "no-extra-boolean-cast": Rule("idiomaticity", 3),
    "no-array-constructor": Rule("idiomaticity", 3),
    "no-object-constructor": Rule("idiomaticity", 3),
    "no-useless-catch": Rule("idiomaticity", 3),
    "no-useless-computed-key": Rule("idiomaticity", 3),
    "no-useless-concat": Rule("idiomaticity", 3),
    "no-useless-constructor": Rule("idiomaticity", 3),
    "no-useless-escape": Rule("idiomaticity", 3),
    "no-useless-rename": Rule("idiomaticity", 3),
    "no-useless-return": Rule("idiomaticity", 3),
}
"""Every ESLint rule quality-lint turns on. Left out on purpose: ``complexity``, ``max-depth``,
``max-params``, ``max-lines-per-function`` and ``no-unreachable`` (quality-metrics measures them; the
panel's judges use different signals so that their agreement means something), ``camelcase``
(quality-structure's naming), ``no-magic-numbers`` (fires on every option literal; structure's
``special-case`` catches the hard-coded answer), formatting rules (deprecated in ESLint)."""

TS_SUFFIXES = frozenset({".ts", ".mts", ".cts", ".tsx"})


def rule_options(typescript: bool) -> dict[str, object]:
    """The ``--rule`` object for JavaScript (every rule) or TypeScript files (``Rule.typescript``)."""
    return {name: ["error", *r.options] for name, r in RULES.items() if r.typescript or not typescript}


def quality_tool(package_dir: Path | None = None, node: Path | None = None) -> EslintTool:
    return EslintTool(package_dir or default_package_dir(), node or find_node(), CONFIG_FILE,
                      "the quality-lint judge cannot lint JavaScript/TypeScript")


def lint_for(judge: Any) -> tuple[Callable[[ChangeSet], list[Hit]], Callable[[], Mapping[str, str]]]:
    """JavaScript/TypeScript (the language seam's ``quality.lint``): the engine's ESLint, the judge's
    ``eslint_dir`` and ``node`` when set."""
    tool = quality_tool(judge.eslint_dir, judge.node)
    return (lambda changes: eslint_hits(changes, tool),
            lambda: {**eslint_versions(tool), "quality-lint rules": "2026.1-js"})


def eslint_versions(tool: EslintTool) -> dict[str, str]:
    found = tool.versions()
    return {name: found.get(name, "unknown") for name in PACKAGES}


def eslint_hits(changes: ChangeSet, tool: EslintTool) -> list[Hit]:
    """ESLint's findings on the judged lines of the changed, parseable files, as density hits."""
    files = [f for f in changes.changed if f.js is not None]
    if not files:
        return []
    tool.check()
    hits: list[Hit] = []
    with tempfile.TemporaryDirectory(prefix="bouts-lint-js-") as tmp:
        root = Path(tmp, "code")
        for f in files:
            dest = root / f.rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(f.text, encoding="utf-8")
        # "./" first: a file named "-x.js" must stay a path, not become an option
        groups = {False: [f"./{f.rel}" for f in files if Path(f.rel).suffix.lower() not in TS_SUFFIXES],
                  True: [f"./{f.rel}" for f in files if Path(f.rel).suffix.lower() in TS_SUFFIXES]}
        for typescript, rels in groups.items():
            if not rels:
                continue
            messages, dropped = read_messages(tool.run(root, rels, rule_options(typescript), TIMEOUT_S))
            for m in messages:
                hits.extend(_hit(changes, m.path, m.rule, m.line, m.message, m.fatal))
            if dropped:
                hits.append(Hit("eslint.output-limit", "readability",
                                f"{dropped} more ESLint messages not read (output limit of the engine's formatter)",
                                0.0))
    return hits


def _hit(changes: ChangeSet, file: str, rule: str | None, line: int, message: str, fatal: bool) -> list[Hit]:
    if fatal:
        # tree-sitter parsed the file (or it would be a file.syntax-error note) but ESLint's parser did not
        dialect = dialect_for(file) or "javascript"
        return [Hit("eslint.not-parsed", "readability",
                    f"{file}: ESLint's {dialect} parser could not read it ({message}); not linted", 0.0, file, line)]
    spec = RULES.get(rule or "")
    if spec is None or not changes.is_judged(file, line):
        return []  # unchanged code is not judged
    if changes.share(file, line) < 1:
        message += " (on a line inherited from starter/: partial weight)"
    return [Hit(f"eslint:{rule}", spec.dimension, message, per_line(spec.weight, changes, file, line), file, line)]
