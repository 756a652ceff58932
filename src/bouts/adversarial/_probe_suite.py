"""The tests from the submitted code (``_probe``): which to write, their file, and the host's
decision on each. Pure. See docs/adversarial.md, "Tests from the submitted code"."""

from __future__ import annotations

import ast
import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from bouts._pyast import parse
from bouts.adversarial._domain import from_hint, to_source
from bouts.adversarial._examples import bind
from bouts.adversarial._generate import RUNTIME_SOURCE, Examples, GeneratedTest, _body, plain
from bouts.adversarial._model import Analysis, Entry, Target
from bouts.adversarial._oracle import ORACLE_RUNTIME, _plain_calls
from bouts.adversarial._probe import (
    BAD_ENDINGS,
    CONTRACT_FILE,
    MAX_OBSERVERS,
    MAX_PROBE_TESTS,
    PROBE_FILE,
    PROBE_VERSION,
    PROBED_KINDS,
    ProbeTest,
    boundary_pool,
    injected_calls,
    probe_values,
)  # fmt: skip
from bouts.adversarial._py_api import SETUP_VERB, Api, build_api
from bouts.models.results import Outcome, TestResult

BOUNDARY_CALLS = 8
MAX_CONTRACT_TESTS = 10
"""Contract tests (entries the reference does not have), at most: they count only when they fail."""
BOUNDARY_PER_TEST = 4
UNSTABLE_MODULES = frozenset({"uuid", "random", "secrets", "time", "datetime"})
"""A module importing one of these may return another value on each call (an id, a timestamp):
the contract tests' two runs are compared by how they end only."""


@dataclass(frozen=True)
class _Plan:
    entry: Entry
    key: str
    target: Target
    param: str | None
    calls: list[dict[str, object]]
    in_domain: list[bool]


def probe_suite(
    analysis: Analysis, sources: Mapping[str, str], reference: Mapping[str, str], examples: Examples, seed: int,
    *, rejected: bool, first_index: int = 0, opaque: Collection[str] = (),
) -> tuple[list[ProbeTest], list[tuple[Target, str]]]:  # fmt: skip
    """The probe and boundary tests of this submission, deterministic from its code and ``seed``;
    and the targets that got none, with why."""
    sub = build_api({r: t for r, t in sources.items() if r.endswith(".py")})
    ref = build_api({r: t for r, t in reference.items() if r.endswith(".py")}) if reference else Api()
    plans: list[_Plan] = []
    skipped: list[tuple[Target, str]] = []
    for probe in analysis.probes:
        t = probe.target
        if probe.http is not None or t.kind not in PROBED_KINDS or probe.param is None:
            continue
        key = f"{probe.entry.module}:{probe.entry.qualname}"
        if key not in sub.entries:
            continue
        plans.append(_target_plan(sub, probe.entry, key, t, probe.param, examples, seed))
    for key in sorted(sub.entries):
        plans += _boundary_plans(sub, sub.entries[key], key, examples, seed)
    tests: list[ProbeTest] = []
    judged = [p for p in plans if any(p.in_domain) or rejected]
    skipped += [(p.target, "no value of the type its examples show, and the challenge does not require invalid "
                           "input to be rejected: nothing to judge") for p in plans if p not in judged]  # fmt: skip
    # The reference's entries first: a submission cannot push them past the cap with entries of its
    # own (forty decoy functions named aaa_*), and its own entries' tests are capped apart.
    ordered = sorted(judged, key=lambda p: _differential(ref, p.key, p.calls) is None)
    contract = 0
    for plan in ordered:
        own = _differential(ref, plan.key, plan.calls) is None
        if len(tests) >= MAX_PROBE_TESTS or (own and contract >= MAX_CONTRACT_TESTS):
            cap = MAX_CONTRACT_TESTS if own and contract >= MAX_CONTRACT_TESTS else MAX_PROBE_TESTS
            skipped.append((plan.target, f"over the cap of {cap} tests from the submitted code"))
            continue
        contract += own
        tests.append(_test(first_index + len(tests), plan, sub, ref, examples, opaque))
    return tests, skipped


def _base(entry: Entry, examples: Examples) -> tuple[dict[str, object], set[str]]:
    """The first example call of ``entry`` (else plain values) and the parameters whose values are
    typed: by an example, or by a plain type hint."""
    bases = _plain_calls(entry, examples.get(entry.qualname.split(".")[-1], ()))
    if bases:
        return dict(bases[0]), set(bases[0])
    call: dict[str, object] = {}
    typed = set()
    for p in entry.params:
        hinted = from_hint(p.annotation)
        if hinted is not None:
            typed.add(p.name)
        if not p.has_default:
            call[p.name] = hinted if hinted is not None else plain(p)
    return call, typed


def _rng(seed: int, *parts: object) -> random.Random:
    return random.Random(f"{PROBE_VERSION}:{seed}:" + ":".join(repr(p) for p in parts))


def _target_plan(sub: Api, entry: Entry, key: str, t: Target, param: str, examples: Examples, seed: int) -> _Plan:
    call, typed = _base(entry, examples)
    p = next((x for x in entry.params if x.name == param), None)
    if param not in call:
        hinted = from_hint(p.annotation) if p else None
        call[param] = hinted if hinted is not None else plain(p) if p else "a"
        typed |= {param} if hinted is not None else set()
    base = call[param]
    pool = boundary_pool(sub, key)
    values = probe_values(t, base, pool, _rng(seed, key, param, t.kind, t.sink, t.literal, pool))
    calls = [{**call, param: v} for v in values]
    in_domain = [param in typed and type(v) is type(base) for v in values]
    return _Plan(entry, key, t, param, calls, in_domain)


def _boundary_plans(sub: Api, entry: Entry, key: str, examples: Examples, seed: int) -> list[_Plan]:
    """The boundary tests of one entry: its examples with the code's literals injected, a few calls
    to a test (a wrong answer on some costs part of the weight, as the oracle's tests do)."""
    bases = _plain_calls(entry, examples.get(entry.qualname.split(".")[-1], ()))
    if not bases:
        return []
    pool = boundary_pool(sub, key)
    calls = injected_calls(bases, pool, BOUNDARY_CALLS, _rng(seed, key, "boundary", pool))
    fn = sub.functions[key]
    shown = ", ".join(repr(v)[:20] for v in pool[:6]) + (", ..." if len(pool) > 6 else "")
    t = Target("boundary", fn.file, fn.node.lineno, key, "boundary",  # type: ignore[arg-type]
               f"example calls with a value replaced by a literal the code compares with, or its neighbour ({shown})")
    chunks = [calls[i : i + BOUNDARY_PER_TEST] for i in range(0, len(calls), BOUNDARY_PER_TEST)]
    return [_Plan(entry, key, t, None, chunk, [True] * len(chunk)) for chunk in chunks]


def _differential(ref: Api, key: str, calls: Sequence[dict[str, object]]) -> Entry | None:
    """The reference's entry for ``key`` if every call binds to its parameters."""
    entry = ref.entries.get(key)
    if entry is None:
        return None
    for call in calls:
        if bind(entry.params, [((), call)]) != call:
            return None
    return entry


def _observers(api: Api, entry: Entry) -> set[str]:
    """Public methods of the entry's class callable with no argument, other than the probed one
    and the warm-up ones: how the state a call leaves is read."""
    if not entry.is_method:
        return set()
    cls, own = entry.qualname.split(".", 1)
    out = set()
    for key, e in api.entries.items():
        c, _, name = e.qualname.partition(".")
        same = key.startswith(f"{entry.module}:") and c == cls and name != own
        if same and not SETUP_VERB.match(name) and all(p.has_default for p in e.params):
            out.add(name)
    return out


def _test(
    index: int, plan: _Plan, sub: Api, ref: Api, examples: Examples, opaque: Collection[str]
) -> ProbeTest:
    ref_entry = _differential(ref, plan.key, plan.calls)
    judge = "differential" if ref_entry is not None else "contract"
    entry = ref_entry or plan.entry
    observers: set[str] = set()
    if plan.key not in opaque:
        observers = _observers(sub, plan.entry) & (_observers(ref, ref_entry) if ref_entry else _observers(sub, entry))
    chosen = tuple(sorted(observers)[:MAX_OBSERVERS])
    name = f"test_gen_{index + 1:03d}"  # opaque: what it probes stays on the host, in its target
    file = PROBE_FILE if judge == "differential" else CONTRACT_FILE
    body = ",\n".join(f"        {to_source(c)}" for c in plan.calls)
    doc = repr(f"{len(plan.calls)} calls of {entry.qualname} from the submitted code's analysis")
    source = (f"def {name}(bouts_expect):\n    {doc}\n    probe(bouts_expect, {entry.module!r}, {entry.qualname!r}, "
              f"[\n{body},\n    ], {_setup_args(entry, examples)}, observers={chosen!r}, "
              f"twice={judge == 'contract'})\n")  # fmt: skip
    shown = tuple(f"{entry.qualname}({', '.join(f'{k}={to_source(v)[:80]}' for k, v in c.items())})"
                  for c in plan.calls)  # fmt: skip
    test = GeneratedTest(f"{file}::{name}", plan.target, plan.key, plan.param, judge, source)
    return ProbeTest(test, judge, shown, tuple(plan.in_domain), chosen)  # type: ignore[arg-type]


SETUP_CALLS = 3
"""Example calls of each warm-up method replayed before a probe, at most."""


def _setup_args(entry: Entry, examples: Examples) -> str:
    """The object's constructor arguments and its warm-up: up to ``SETUP_CALLS`` of each adder's
    example calls (``add_item`` for two SKUs, so that a ``ship`` of the second reaches its quantity
    check), else one call with plain values."""
    parts = entry.qualname.split(".")
    if len(parts) == 1:
        return "ctor={}, setup=[]"
    ctor = _plain_calls(Entry("", parts[0], entry.ctor or ()), examples.get(parts[0], ()))
    ctor_args = ctor[0] if ctor else {p.name: plain(p) for p in entry.ctor or () if not p.has_default}
    setup: list[tuple[str, dict[str, object]]] = []
    for name, params in entry.setup:
        if name == parts[-1]:
            continue
        calls = _plain_calls(Entry("", name, params), examples.get(name, ()))[:SETUP_CALLS]
        setup += [(name, c) for c in calls] or [(name, {p.name: plain(p) for p in params if not p.has_default})]
    return f"ctor={ctor_args!r}, setup={setup!r}"


def probe_file(tests: Sequence[ProbeTest], seed: int, path: str) -> str:
    """One generated file of probe tests (the core and oracle runtimes, then the tests)."""
    header = f'"""Tests generated by bouts from the submitted code (seed {seed}, {PROBE_VERSION})."""\n'
    text = header + _body(RUNTIME_SOURCE) + _body(ORACLE_RUNTIME) + "\n\n" + "\n\n".join(t.test.source for t in tests)
    compile(text, path, "exec")  # our own output: a syntax error here is an engine bug
    return text


def unstable(sources: Mapping[str, str], module: str) -> bool:
    """Whether ``module`` of the submission imports a source of values that change per call."""
    rel = next((r for r in sources if r[:-3].replace("/", ".").removesuffix(".__init__") == module), None)
    if rel is None:
        return True
    try:
        tree = parse(sources[rel])  # the submission's text: under the engine's lock and depth bound
    except (SyntaxError, ValueError):
        return True
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    return bool(names & UNSTABLE_MODULES)


# -- the host's decision ---------------------------------------------------------------------------


def _label(names: Mapping[str, str], digests: Sequence[str], i: int) -> str:
    return names.get(digests[i], "an unknown ending") if i < len(digests) else "?"


def counted_probe(t: ProbeTest, ref: Sequence[str], names: Mapping[str, str], *, rejected: bool) -> list[int]:
    """The calls of a differential test the reference's answers judge: it returned (on input of the
    example's type: the value must match; otherwise: the submission must not crash), or it
    rejected deliberately where the challenge requires invalid input to be rejected."""
    out = []
    for i in range(len(t.calls)):
        label = _label(names, ref, i * t.width)
        if label == "ok" or (rejected and label.startswith("raise ")):
            out.append(i)
    return out


def decide_probe(
    t: ProbeTest, ref: Sequence[str] | None, result: TestResult | None, observed: Sequence[str],
    names: Mapping[str, str], *, rejected: bool, opaque: Collection[str] = (), stable: bool = True,
) -> tuple[Outcome, str]:  # fmt: skip
    """The submission's verdict on ``t``: against the reference's digests ``ref`` (differential) or
    against the contract (``ref`` None); ``stable``: the two runs' values are comparable."""
    if result is None:
        return Outcome.MISSING, "never reported"
    if result.outcome is not Outcome.PASSED:
        return result.outcome, result.detail or result.outcome.value
    need = len(t.calls) * t.width * t.runs
    if len(observed) != need:
        return Outcome.FAILED, f"recorded {len(observed)} of {need} observations (the test did not finish)"
    fails = [why for i in range(len(t.calls))
             if (why := (_differential_call(t, i, ref, observed, names, rejected, t.test.entry in opaque)
                         if ref is not None else _contract_call(t, i, observed, names, rejected, stable)))]  # fmt: skip
    if not fails:
        return Outcome.PASSED, ""
    more = f" (and {len(fails) - 1} more of {len(t.calls)} calls)" if len(fails) > 1 else ""
    return Outcome.FAILED, fails[0] + more


def _ending(label: str) -> str:
    how, _, name = label.partition(" ")
    return {"ok": "returned", "timeout": "used more than its CPU budget", "raise": f"raised {name}",
            "crash": f"crashed with {name} (not a deliberate raise)",
            "unbuildable": f"could not be set up ({name})"}.get(how, label)  # fmt: skip


def _differential_call(t: ProbeTest, i: int, ref: Sequence[str], mine: Sequence[str], names: Mapping[str, str],
                       rejected: bool, open_value: bool) -> str | None:  # fmt: skip
    w = t.width
    theirs, own = _label(names, ref, i * w), _label(names, mine, i * w)
    call = t.calls[i]
    if theirs == "ok":
        if not t.in_domain[i]:
            bad = own.startswith(BAD_ENDINGS)
            return f"{call}: {_ending(own)} where the reference returns a value" if bad else None
        if own != "ok":
            return f"{call}: {_ending(own)} where the reference returns a value"
        if not open_value and mine[i * w + 1] != ref[i * w + 1]:
            return f"{call} returned a different value from the reference's"
    elif rejected and theirs.startswith("raise "):
        if own != theirs:
            return f"{call}: {_ending(own)} where the reference rejects it ({theirs})"
    else:
        return None
    for j, name in enumerate(t.observers):
        at = i * w + 2 + 2 * j
        if _label(names, ref, at) == "ok" and (_label(names, mine, at) != "ok" or mine[at + 1] != ref[at + 1]):
            return f"{call}: {name}() afterwards differs from the reference's (the state the call left)"
    return None


def _contract_call(t: ProbeTest, i: int, mine: Sequence[str], names: Mapping[str, str], rejected: bool,
                   stable: bool) -> str | None:  # fmt: skip
    w = t.width
    a, b = mine[2 * i * w : (2 * i + 1) * w], mine[(2 * i + 1) * w : (2 * i + 2) * w]
    first = _label(names, a, 0)
    if not t.in_domain[i]:
        bad = rejected and first.startswith(BAD_ENDINGS)
        return f"{t.calls[i]}: {_ending(first)} on a value the challenge requires rejected" if bad else None
    if first.startswith(BAD_ENDINGS):
        return f"{t.calls[i]}: {_ending(first)} on a value of the type its examples show"
    for k in range(0, w, 2):
        if a[k] != b[k] or (stable and a[k + 1] != b[k + 1]):
            what = "the call" if k == 0 else f"{t.observers[k // 2 - 1]}() afterwards"
            return f"{t.calls[i]}: {what} ended differently on two fresh objects (state shared between instances, " \
                   "or an answer that changes from run to run)"
    return None
