"""Analysers of submitted code, one per language, and each language's part in adversarial generation.

An analyser is pure: it takes the submission's source files as text (path → ``str``) and returns
an :class:`Analysis`: the targets with their code locations and the probes (target × public
entry) the generator turns into tests. A language's whole part is a :class:`Generation` (its
analyser, how its visible tests' literal calls are read, its generator, and whether the reference
oracle judges its tests), named by the language's entry in ``bouts.languages`` (role
``adversarial``); ``run_generated`` asks that entry and carries no branch on the language's name —
see ``docs/adversarial.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from bouts.adversarial._examples import Call, example_calls
from bouts.adversarial._generate import GeneratedSuite, generate
from bouts.adversarial._js_examples import js_example_calls
from bouts.adversarial._js_generate import generate_js
from bouts.adversarial._model import Analysis, Probe, Target
from bouts.adversarial._py_api import Api, build_api, is_handle, reach
from bouts.adversarial._py_http import http_probes
from bouts.adversarial._py_targets import FunctionScan, rmw_attrs
from bouts.languages import language

PYTHON_ANALYSER = "python-ast/3"
MAX_ENTRIES_PER_TARGET = 2
"""A helper reached from ten public methods is probed through the two nearest: one weakness
should not weigh ten times."""


@runtime_checkable
class Analyser(Protocol):
    """Reads a submission's sources and names what to probe. Must not raise on bad code: a file
    that does not parse is a note on the analysis."""

    language: str
    version: str

    def analyse(self, sources: Mapping[str, str]) -> Analysis: ...


Examples = Mapping[str, Sequence[Call]]
"""Literal calls by callee, read from test sources (``_examples``): arguments a generated test reuses."""


@dataclass(frozen=True)
class Generation:
    """One language's part in adversarial generation (``bouts.languages`` role ``adversarial``)."""

    analyser: Callable[[str], Analyser]
    """The language's name → its analyser (one analyser may serve a family, e.g. JavaScript and
    TypeScript, reading each file in its own grammar)."""
    examples: Callable[[Mapping[str, str]], dict[str, list[Call]]]
    """Test sources (path → text) → the literal calls they make."""
    generate: Callable[[Analysis, int, Examples], GeneratedSuite]
    """(analysis, seed, examples) → the generated suite (pure, seeded)."""
    reference_oracle: bool = False
    """The reference solution's answers judge the generated inputs (``_oracle``: its tests are
    pytest, so Python's only). Without it, only a challenge that requires invalid input to be
    rejected has anything a generated test can judge (the crash oracle)."""


class PythonAnalyser:
    """Python, through ``ast``: the five targets, reached from the package's public API."""

    language = "python"
    version = PYTHON_ANALYSER

    def analyse(self, sources: Mapping[str, str]) -> Analysis:
        py = {rel: text for rel, text in sources.items() if rel.endswith(".py") and not _is_test(rel)}
        api = build_api(py)
        targets: list[Target] = []
        for fn in api.functions.values():
            qual = f"{fn.module}:{fn.cls}.{fn.node.name}" if fn.cls else f"{fn.module}:{fn.node.name}"
            targets += FunctionScan(fn.node, fn.file, qual, frozenset(api.optional_returns)).scan()
            if fn.cls and f"{fn.module}:{fn.cls}" in api.concurrent_classes and not fn.node.name.startswith("__"):
                attrs = rmw_attrs(fn.node)
                if attrs:
                    names = tuple(sorted({a for a, _ in attrs}))
                    targets.append(Target(
                        "non_atomic_update", fn.file, attrs[0][1], qual, "rmw",
                        f"read-modify-write of self.{', self.'.join(names)} without a lock", attrs=names,
                    ))  # fmt: skip
        probes, skipped = _probes(api, targets)
        http, http_skipped = http_probes(api)
        targets += [p.target for p in http] + [t for t, _ in http_skipped]
        return Analysis("python", PYTHON_ANALYSER, tuple(targets), tuple(probes + http),
                        tuple(skipped + http_skipped), tuple(api.notes))  # fmt: skip


def _is_test(rel: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return rel.startswith("tests/") or name.startswith("test_") or name in ("conftest.py", "setup.py")


def _probes(api: Api, targets: list[Target]) -> tuple[list[Probe], list[tuple[Target, str]]]:
    """Each target through its nearest public entries; fuzz probes deduplicated per entry argument."""
    by_function: dict[str, list[Target]] = {}
    for t in targets:
        by_function.setdefault(t.function, []).append(t)
    candidates: dict[Target, list[tuple[int, Probe]]] = {t: [] for t in targets}
    for key, entry in api.entries.items():
        handles = {p.name for p in entry.params if is_handle(p)}
        for fn_key, mapping, depth in reach(api, key):
            for t in by_function.get(fn_key, []):
                if t.kind == "non_atomic_update":
                    candidates[t].append((depth, Probe(t, entry, None)))
                elif t.param is not None and t.param in mapping and mapping[t.param] not in handles:
                    other = mapping.get(t.other_param) if t.other_param else None
                    if t.other_param and other is None:
                        continue
                    candidates[t].append((depth, Probe(t, entry, mapping[t.param], other)))
    probes: list[Probe] = []
    skipped: list[tuple[Target, str]] = []
    seen: dict[tuple[str, str, str | None, str], int] = {}
    rank = {"critical": 0, "high": 1, "medium": 2, "low": 3}
    for t in sorted(targets, key=lambda t: (rank[t.severity], t.file, t.line)):
        found = sorted(candidates[t], key=lambda c: (c[0], c[1].entry.module, c[1].entry.qualname))
        if not found:
            skipped.append((t, _why_unreachable(t, api)))
            continue
        for _, probe in found[:MAX_ENTRIES_PER_TARGET]:
            family = {"non_atomic_update": "race", "pattern_mismatch": f"pattern:{t.sink}"}.get(t.kind, "fuzz")
            k = (probe.entry.module, probe.entry.qualname, probe.param, family)
            if k not in seen:  # the same call with the same inputs is one test, under its worst target
                seen[k] = len(probes)
                probes.append(probe)
    return probes, skipped


def _why_unreachable(t: Target, api: Api) -> str:
    if t.param is None and t.kind != "non_atomic_update":
        return "not driven by a parameter: no input of the public API controls it"
    fn = api.functions.get(t.function)
    param = next((p for p in fn.params if p.name == t.param), None) if fn else None
    if param is not None and is_handle(param):
        return (f"driven by {param.name}, an infrastructure handle (database, connection, session, client): "
                "a test cannot build a real one, and a plain value would only fail on plumbing")  # fmt: skip
    return "no public entry reaches it with a value a test can choose (or its class needs more than plain arguments)"


def make_python(name: str = "python") -> Analyser:
    """Python submissions, static analysis with ``ast``."""
    return PythonAnalyser()


def make_javascript(name: str = "javascript") -> Analyser:
    """JavaScript and TypeScript submissions, static analysis with tree-sitter (``_js_analyse``);
    ``name`` is the challenge's language, which the analysis reports."""
    from bouts.adversarial._js_analyse import JavaScriptAnalyser

    return JavaScriptAnalyser(name)


PYTHON = Generation(make_python, example_calls, generate, reference_oracle=True)
JAVASCRIPT = Generation(make_javascript, js_example_calls, generate_js)
"""JavaScript's part, which TypeScript shares (``bouts.languages``)."""


def analyser_for(name: str) -> Analyser:
    """The adversarial analyser of the language ``name`` (an ``InputError`` when it has none)."""
    return language(name).part("adversarial").analyser(name)  # type: ignore[no-any-return]
