"""Turn an analysis into pytest source files: pure and deterministic (same analysis and seed, same
bytes). Each file embeds ``_runtime.py`` so it is self-contained inside the sandbox, and
``_runtime_fuzz.py`` (hypothesis) where its tests draw values (fuzz, version pairs, HTTP).

Strategies per probe: a hypothesis fuzz of the carrying parameter (unvalidated input, missing null
check, weak type), a thread hammer (non-atomic update), or a metamorphic pair — two inputs that
mean the same must behave the same — (pattern mismatch). Why each: ``docs/adversarial.md``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bouts.adversarial._examples import Call, bind
from bouts.adversarial._model import Analysis, AppRecipe, Entry, HandleRecipe, Param, Probe, Target
from bouts.models.challenge import Severity

GENERATED_DIR = "tests/generated"
RUNTIME_SOURCE = Path(__file__).with_name("_runtime.py").read_text(encoding="utf-8")
FUZZ_RUNTIME_SOURCE = Path(__file__).with_name("_runtime_fuzz.py").read_text(encoding="utf-8")
HTTP_RUNTIME_SOURCE = Path(__file__).with_name("_runtime_http.py").read_text(encoding="utf-8")
HTTP_FILE = f"{GENERATED_DIR}/test_gen_http.py"
MAX_TESTS = 60
"""Upper bound on generated tests per submission (the suite must stay bounded in time)."""
MAX_EXAMPLES = 20


@dataclass(frozen=True)
class GeneratedTest:
    """One generated test and what it probes."""

    id: str
    """pytest node id, e.g. ``tests/generated/test_gen_unvalidated_input.py::test_gen_003_...``."""
    target: Target
    entry: str
    """``module:qualname`` of the public callable the test drives."""
    param: str | None
    strategy: str
    """fuzz, race, metamorphic or openapi."""
    source: str
    """The test function's source (the file adds the embedded runtime)."""

    @property
    def severity(self) -> Severity:
        return self.target.severity


@dataclass(frozen=True)
class GeneratedSuite:
    seed: int
    files: dict[str, str]
    """Path relative to the workspace → file content."""
    tests: tuple[GeneratedTest, ...]
    skipped: tuple[tuple[Target, str], ...] = ()


def plain(p: Param) -> object:
    """The simplest valid-looking value for a parameter, from its annotation, else its name."""
    ann = (p.annotation or "").replace(" ", "")
    options = [a for a in re.split(r"[|\[\],]", ann) if a and a not in ("None", "Optional")]
    for name, value in (("int", 1), ("Decimal", 1), ("float", 1.0), ("bool", True), ("str", "a"), ("bytes", b"a")):
        if name in options:
            return value
    for name, value in (("list", []), ("List", []), ("Sequence", []), ("dict", {}), ("Mapping", {}), ("set", set())):
        if name in options:
            return value
    n = p.name.lower()
    if re.search(r"qty|quantity|count|num|size|amount|index|idx|page|limit|offset|price|total|^n$|^i$|^k$", n):
        return 1
    return "a"


Examples = Mapping[str, Sequence[Call]]
"""The visible tests' literal calls, by callee name (``_examples.example_calls``)."""


def _kwargs(
    params: tuple[Param, ...], skip: tuple[str | None, ...] = (), name: str | None = None,
    examples: Examples | None = None,
) -> dict[str, object]:
    """Arguments for a call of ``name``: a visible test's own literal call when one fits (so a
    failure belongs to the probed parameter, not to a made-up filler), else the plainest values."""
    example = bind(params, examples.get(name, ())) if name and examples else {}
    if example:
        return {k: v for k, v in example.items() if k not in skip}
    return {p.name: plain(p) for p in params if not p.has_default and p.name not in skip}


def _call_args(entry: Entry, examples: Examples) -> str:
    parts = entry.qualname.split(".")
    ctor = _kwargs(entry.ctor or (), name=parts[0] if len(parts) > 1 else None, examples=examples)
    own = parts[-1]  # the probed method is not its own warm-up
    setup = [(name, _kwargs(params, name=name, examples=examples)) for name, params in entry.setup if name != own]
    return f"ctor={ctor!r}, setup={setup!r}"


def _own(entry: Entry) -> str:
    return entry.qualname.split(".")[-1]


def _slug(text: str) -> str:
    return re.sub(r"[^0-9A-Za-z]+", "_", text).strip("_")[:60]


def _fuzz(name: str, probe: Probe, seed: int, ex: Examples) -> str:
    e = probe.entry
    rest = repr(_kwargs(e.params, (probe.param,), _own(e), ex))[1:-1]
    kwargs = f"{{{rest + ', ' if rest else ''}{probe.param!r}: value}}"
    text_only = probe.target.sink.startswith("re.")
    return (f"@fuzz({seed}, {MAX_EXAMPLES}, text_only={text_only})\ndef {name}(value):\n    {_doc(probe)}\n"
            f"    probe({e.module!r}, {e.qualname!r}, {kwargs}, {_call_args(e, ex)})\n")  # fmt: skip


def _race(name: str, probe: Probe, ex: Examples) -> str:
    e = probe.entry
    args = _kwargs(e.params, name=_own(e), examples=ex)
    return (f"def {name}():\n    {_doc(probe)}\n    race({e.module!r}, {e.qualname!r}, {args!r}, "
            f"{probe.target.attrs!r}, {_call_args(e, ex)})\n")  # fmt: skip


def _metamorphic(name: str, probe: Probe, seed: int, ex: Examples) -> str | None:
    e, t, p = probe.entry, probe.target, probe.param
    base = _kwargs(e.params, (p, probe.other_param), _own(e), ex)
    call = f"{e.module!r}, {e.qualname!r}"
    if t.sink == "version" and probe.other_param:
        q = probe.other_param
        return (f"@version_pairs({seed}, {MAX_EXAMPLES})\ndef {name}(a, b):\n    {_doc(probe)}\n"
                f"    x, y = ranked(a, b)\n    same({call}, {{**{base!r}, {p!r}: dotted(a), {q!r}: dotted(b)}}, "
                f"{{**{base!r}, {p!r}: dotted(x), {q!r}: dotted(y)}}, 'the two pairs are ordered alike', "
                f"{_call_args(e, ex)})\n")  # fmt: skip
    if t.sink == "version" and t.literal:
        pairs = [(f"bumped({t.literal!r}, {i}, 10)", f"bumped({t.literal!r}, {i}, 1)") for i in range(3)]
        why = f"both versions are newer than {t.literal}"
    elif t.sink == "float" and t.literal:
        pairs = [(t.literal, f"near({t.literal})")]
        why = "the two floats differ only by rounding"
    elif t.sink == "case" and t.literal:
        pairs = [(repr(t.literal), repr(t.literal.upper())), (repr(t.literal), repr(t.literal.title()))]
        why = "they differ only in letter case"
    elif t.sink == "path-compare" and t.literal:
        lit = t.literal.rstrip("/") or "/"
        outside = f"{lit}/../outside"
        pairs = [(repr(outside), repr(os.path.normpath(outside))), (repr(lit), repr(lit + "/."))]
        why = "they name the same path"
    else:
        return None
    args = _call_args(e, ex)
    body = "".join(f"    same({call}, {{**{base!r}, {p!r}: {a}}}, {{**{base!r}, {p!r}: {b}}}, {why!r}, {args})\n"
                   for a, b in pairs)  # fmt: skip
    return f"def {name}():\n    {_doc(probe)}\n{body}"


def _recipe(app: AppRecipe) -> dict[str, object]:
    def value(v: object) -> object:
        if isinstance(v, HandleRecipe):
            return {"handle": [v.module, v.cls, dict(v.ctor), [list(i) for i in v.init]]}
        return v

    return {"module": app.module, "attr": app.attr, "call": app.call, "kwargs": {k: value(v) for k, v in app.kwargs}}


def _http(name: str, probe: Probe, seed: int) -> str:
    op = probe.http
    assert op is not None
    call = f"http_operation({_recipe(op.app)!r}, {op.method!r}, {op.path!r}, {seed}, {MAX_EXAMPLES})"
    return f"def {name}():\n    {_doc(probe)}\n    {call}\n"


def _doc(probe: Probe) -> str:
    t = probe.target
    text = f"{t.kind} ({t.severity}) at {t.where} in {t.function}: {t.detail}"
    return repr(text.replace("\n", " "))


def numbered(analysis: Analysis) -> tuple[list[tuple[int, Probe, str]], list[tuple[Target, str]]]:
    """The probes to write, each with its index and test name, at most ``MAX_TESTS``; and the
    skipped targets (the analysis's own, then those over the cap). Shared by every language."""
    chosen = []
    skipped = list(analysis.skipped)
    for i, probe in enumerate(analysis.probes):
        if len(chosen) >= MAX_TESTS:
            skipped.append((probe.target, f"over the cap of {MAX_TESTS} generated tests"))
            continue
        chosen.append((i, probe, f"test_gen_{i + 1:03d}_{_slug(probe.entry.qualname)}_{_slug(probe.param or 'state')}"))
    return chosen, skipped


def stream_seed(seed: int, index: int) -> int:
    """Each generated test its own random stream, all fixed by the scorecard's seed."""
    return seed * 1000 + index + 1


def generate(analysis: Analysis, seed: int, examples: Examples | None = None) -> GeneratedSuite:
    """Source files and their test list for ``analysis``, deterministic from ``seed`` and the
    visible tests' ``examples`` (``_examples.example_calls``)."""
    ex: Examples = examples or {}
    groups: dict[str, list[str]] = {}
    tests: list[GeneratedTest] = []
    probes, skipped = numbered(analysis)
    for i, probe, name in probes:
        t = probe.target
        test_seed = stream_seed(seed, i)
        if probe.http is not None:
            name = f"test_gen_{i + 1:03d}_http_{probe.http.method}_{_slug(probe.http.path) or 'root'}"
            source, strategy = _http(name, probe, test_seed), "openapi"
        elif t.kind == "non_atomic_update":
            source, strategy = _race(name, probe, ex), "race"
        elif t.kind == "pattern_mismatch":
            source, strategy = _metamorphic(name, probe, test_seed, ex), "metamorphic"
        else:
            source, strategy = _fuzz(name, probe, test_seed, ex), "fuzz"
        if source is None:
            skipped.append((t, "no pair of equivalent inputs is known for this comparison"))
            continue
        file = HTTP_FILE if probe.http else f"{GENERATED_DIR}/test_gen_{t.kind}.py"
        groups.setdefault(file, []).append(source)
        entry = f"{probe.entry.module}:{probe.entry.qualname}"
        if probe.http:
            entry = f"{probe.http.method} {probe.http.path}"
        tests.append(GeneratedTest(f"{file}::{name}", t, entry, probe.param, strategy, source))
    header = f'"""Adversarial tests generated by bouts for one submission (seed {seed})."""\n'
    runtime, fuzz_runtime, http_runtime = (_body(RUNTIME_SOURCE), _body(FUZZ_RUNTIME_SOURCE),
                                           _body(HTTP_RUNTIME_SOURCE))  # fmt: skip
    apps = sorted({p.http.app.module for p in analysis.probes if p.http})
    preload = f"\n\npreload{tuple(apps)!r}\n" if apps else ""
    files = {
        path: header + runtime + (fuzz_runtime if _draws(path, srcs) else "")
        + (http_runtime + preload if path == HTTP_FILE else "") + "\n\n" + "\n\n".join(srcs)
        for path, srcs in groups.items()
    }  # fmt: skip
    for path, text in files.items():
        compile(text, path, "exec")  # our own output: a syntax error here is an engine bug, fail loudly
    return GeneratedSuite(seed, files, tuple(tests), tuple(skipped))


def _body(runtime: str) -> str:
    """A runtime's source without its own module docstring."""
    return runtime.split('"""', 2)[2]


def _draws(path: str, sources: Sequence[str]) -> bool:
    """Whether a generated file's tests draw values with hypothesis (``_runtime_fuzz``): fuzz and
    version-pair tests and the HTTP file. A file of race tests or fixed metamorphic pairs imports
    none of it (collecting it is cheaper)."""
    return path == HTTP_FILE or any(s.startswith(("@fuzz(", "@version_pairs(")) for s in sources)
