"""The language seam: one registry entry per challenge language, naming everything that differs by
language — source suffixes, test frameworks, how assertions are decided, what the runner replaces,
and the language's parts for each judge and tool. Judges and tools ask ``language_of(challenge)``
and carry no ``language ==`` branches; adding a language is its modules plus one registration here
(or in a plugin: ``LANGUAGES.register("go")`` from a ``bouts.plugins`` entry point).

Parts are named by dotted reference (``"module:attribute"``) and imported on first use, so a
registration costs nothing and the registry sits below every module it points at (no import cycle).

    from bouts.languages import language_of
    hits = language_of(challenge).part("quality.metrics")(changes)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from importlib import import_module
from typing import Any, Literal

from bouts.errors import InputError
from bouts.models.view import PYTHON_COMPILED
from bouts.registry import Registry

PARTS = {
    "quality.changes": "reads a file's functions: (raw, base) -> (SourceFile | None, notes)",
    "quality.metrics": "ChangeSet -> metric hits (complexity, length, nesting, duplication, dead code)",
    "quality.structure": "ChangeSet -> structure hits (layering, cycles, naming, error handling)",
    "quality.lint": "LintJudge -> (ChangeSet -> hits, () -> versions): the language's linter",
    "integrity.detectors": "bouts.judges.integrity._languages.Language: the static integrity detectors",
    "architecture": "FileTree -> sources for the strategy judge's architecture heuristics",
    "runner": "runs the challenge's suites in the sandbox: (challenge, code_dir, **options) -> DetailedRun",
    "adversarial": "bouts.adversarial.analysers.Generation: analyser, examples, generator, reference oracle?",
    "check.lint": "SuiteFiles -> (LintReport, problems): `bouts check`'s static lint of the test suites",
    "severities": "(source bytes, rel, *, shown) -> {test-id prefix: severity}: an adversarial test file's markers",
}
"""The roles a language may fill (``LanguageSupport.parts``); a missing role is a documented gap,
and the judge that needs it says "not scored" with the reason, never a made-up number."""


@dataclass(frozen=True)
class LanguageSupport:
    """Everything the engine does differently for one challenge language."""

    name: str
    suffixes: tuple[str, ...]
    """Files the judges read as the language's code (JavaScript's judges read TypeScript too)."""
    frameworks: tuple[str, ...]
    """Test frameworks a challenge may name (``[tests] framework``); the first is the default."""
    assertions: Literal["golden", "inline"]
    """``golden``: assertions are externalised and decided on the host against the reference's values
    (docs/sandbox.md, "Decided outside"); ``inline``: decided inside the sandbox (not externalised yet)."""
    test_extensions: tuple[str, ...] = ()
    """Extensions of test files (``py``; ``js mjs cjs ts mts cts``)."""
    test_stem_suffixes: tuple[str, ...] = ("_test",)
    """A test file's stem starts with ``test_`` or ends with one of these (pytest: ``_test``;
    node:test, vitest and jest: also ``.test``)."""
    same_session_fresh: bool = False
    """The runner can run the hidden suite's fresh-seed phase in the graded session (docs/sandbox.md)."""
    replaced_by_runner: tuple[str, ...] = ()
    """Folders the runner deletes and replaces before a test runs (nothing in them runs or is judged)."""
    bytecode: tuple[str, ...] = ()
    """Compiled files the language's runtime loads (flagged by the integrity judge)."""
    sources: tuple[str, ...] = ()
    """The language's own source files: a judged file with one of these shows the language is present
    (``SubmissionView.languages``). Default: ``suffixes``."""
    importable: tuple[str, ...] = ()
    """Source files a test of the language can import: what the adversarial generator analyses (its
    tests call what it finds). Default: ``sources``."""
    parts: Mapping[str, str] = field(default_factory=dict)
    """Role (``PARTS``) → ``"module:attribute"``."""

    def __post_init__(self) -> None:
        if not self.sources:
            object.__setattr__(self, "sources", self.suffixes)
        if not self.importable:
            object.__setattr__(self, "importable", self.sources)

    @property
    def default_framework(self) -> str:
        """The framework a challenge that names none runs (``[tests] framework``)."""
        return self.frameworks[0]

    def is_test_file(self, name: str) -> bool:
        """Is a file named ``name`` a test file of this language's frameworks?"""
        stem, dot, ext = name.rpartition(".")
        return (
            bool(dot)
            and ext in self.test_extensions
            and (stem.startswith("test_") or stem.endswith(self.test_stem_suffixes))
        )

    def has(self, role: str) -> bool:
        return role in self.parts

    def part(self, role: str) -> Any:
        """The language's implementation of ``role``; a role it lacks is an ``InputError`` naming both."""
        if role not in PARTS:
            raise ValueError(f"unknown language role '{role}'; known: {', '.join(PARTS)}")
        ref = self.parts.get(role)
        if ref is None:
            raise InputError(f"{self.name}: no {role} for this language yet")
        module, _, attribute = ref.partition(":")
        return getattr(import_module(module), attribute)


LANGUAGES: Registry[LanguageSupport] = Registry("language")
"""``challenge.toml``'s ``language`` → its support."""

_JS_PARTS = {
    "runner": "bouts.runner.js._run:run_js_detailed",
    "quality.changes": "bouts.judges.quality._changes:js_source_file",
    "quality.metrics": "bouts.judges.quality.metrics:js_metric_hits",
    "quality.structure": "bouts.judges.quality.structure:js_structure_hits",
    "quality.lint": "bouts.judges.quality._js_lint:lint_for",
    "integrity.detectors": "bouts.judges.integrity._languages:JAVASCRIPT",
    "adversarial": "bouts.adversarial.analysers:JAVASCRIPT",
    "check.lint": "bouts.calibration.js_lint:lint_js_suites",
    "severities": "bouts.loading.challenge:js_severities",
}


@LANGUAGES.register("python")
def python() -> LanguageSupport:
    """Python: pytest in the sandbox, assertions decided on the host, ast-based judges."""
    return LanguageSupport(
        name="python", suffixes=(".py",), frameworks=("pytest",), assertions="golden", test_extensions=("py",),
        bytecode=PYTHON_COMPILED, same_session_fresh=True, replaced_by_runner=("site-packages", "dist-packages"),
        parts={
            "runner": "bouts.runner._run:run_pytest",
            "quality.changes": "bouts.judges.quality._changes:py_source_file",
            "quality.metrics": "bouts.judges.quality.metrics:py_metric_hits",
            "quality.structure": "bouts.judges.quality.structure:py_structure_hits",
            "quality.lint": "bouts.judges.quality.lint:lint_for",
            "integrity.detectors": "bouts.judges.integrity._languages:PYTHON",
            "architecture": "bouts.judges.trajectory.architecture:read_sources",
            "adversarial": "bouts.adversarial.analysers:PYTHON",
            "check.lint": "bouts.calibration.lint:lint_suites",
            "severities": "bouts.loading.challenge:parse_severities",
        },
    )  # fmt: skip


@LANGUAGES.register("javascript")
def javascript() -> LanguageSupport:
    """JavaScript: node:test, vitest or jest in the sandbox, tree-sitter-based judges."""
    return LanguageSupport(
        name="javascript", suffixes=(".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"),
        sources=(".js", ".mjs", ".cjs", ".jsx"), importable=(".js", ".mjs", ".cjs"),
        frameworks=("node:test", "vitest", "jest"), assertions="golden",
        test_extensions=("js", "mjs", "cjs", "ts", "mts", "cts"), test_stem_suffixes=("_test", ".test"),
        replaced_by_runner=("node_modules",), bytecode=(".node",), parts=_JS_PARTS,
    )  # fmt: skip


@LANGUAGES.register("typescript")
def typescript() -> LanguageSupport:
    """TypeScript: JavaScript's entry and parts (the runner transpiles its files with tsx); only its own
    source files differ."""
    return replace(javascript(), name="typescript", sources=(".ts", ".mts", ".cts", ".tsx"),
                   importable=(".ts", ".mts", ".cts"))  # fmt: skip


def language(name: str) -> LanguageSupport:
    """The registered support for ``name`` (an unknown language is the user's error, listing the known)."""
    return LANGUAGES.create(name)


def language_of(challenge: Any) -> LanguageSupport:
    """The support for a ``Challenge`` (its ``spec.language``)."""
    return language(challenge.spec.language)


def framework_of(spec: Any) -> str:
    """The framework a ``ChallengeSpec``'s tests run under: ``[tests] framework``, else its language's
    default (the first it names)."""
    return spec.tests.framework or language(spec.language).default_framework


def source_suffixes() -> dict[str, tuple[str, ...]]:
    """Every registered language's own source suffixes (``LanguageSupport.sources``), by name: what the
    submission view reads the languages present from."""
    return {name: language(name).sources for name in LANGUAGES.names()}
