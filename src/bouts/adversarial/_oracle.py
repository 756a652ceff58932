"""The reference oracle: differential tests generated from the challenge, decided on the host. Pure.

A generated input only says something about a submission when we know the right answer to it,
and the challenge's reference solution is that answer. So (docs/adversarial.md, "The reference
oracle"):

1. :func:`oracle_suite` writes, for each public callable of the reference that the visible tests
   (or the starter's doctests and prose examples, ``_prose``; or plain type hints; or the types
   its docstring names in words) show how to call, tests whose calls are
   type-aware mutations of those examples (``_domain``) — and, where the challenge requires
   invalid input to be rejected (``[adversarial] invalid_input = "rejected"``), one test per
   parameter of out-of-contract values;
2. each test runs against the reference and against the submission, recording per call the
   digest of how it ended and of the value returned (``_runtime_oracle``);
3. :func:`decide` compares the two on the host, call by call: on valid input the submission must
   return what the reference returns (severity high); on invalid input the submission must
   reject what the reference rejects, with the same exception class (severity medium). Calls the
   reference itself does not answer (it crashes, rejects a "valid" mutation, runs out of time)
   are not compared: no oracle, no verdict.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import json
import random
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bouts._pyast import literal_value
from bouts._pyast import parse as parse_python
from bouts.adversarial._domain import from_hint, invalid_values, mutated_calls, to_source
from bouts.adversarial._examples import Call, bind
from bouts.adversarial._generate import GENERATED_DIR, RUNTIME_SOURCE, Examples, GeneratedTest, _body, _call_args
from bouts.adversarial._model import Entry, Target
from bouts.adversarial._prose import bare_word_calls, prose_calls, typed_calls
from bouts.adversarial._py_api import build_api, is_handle, params_of
from bouts.models.results import Outcome, TestResult

ORACLE_VERSION = "reference-oracle/1"
ORACLE_FILE = f"{GENERATED_DIR}/test_gen_oracle.py"
ORACLE_RUNTIME = Path(__file__).with_name("_runtime_oracle.py").read_text(encoding="utf-8")
VALID_CALLS = 15
"""Valid inputs per public callable: the examples themselves, then mutations of them."""
CALLS_PER_TEST = 5
"""Calls per test: a wrong answer on some inputs costs part of the generated half, not all of it."""
MAX_ORACLE_TESTS = 40
Mode = Literal["valid", "invalid"]


@dataclass(frozen=True)
class OracleTest:
    """One generated differential test: ``calls`` calls of one entry, valid or invalid input."""

    test: GeneratedTest
    mode: Mode
    calls: tuple[str, ...]
    """Each call as source, ``f(a=1, b='x')``: what a finding names."""


def starter_doctests(sources: Mapping[str, str]) -> dict[str, str]:
    """The calls written in the starter's docstrings, one pseudo-module per file (for
    ``example_calls``): ``>>> f(1, 2)`` doctests and the looser ``f("ab") => 3``, ``f(x) ==> y``,
    ``f(...) should return ...`` forms task texts use (only what parses as a call is kept), and
    the arguments a function's docstring shows in prose (``_prose``: ``Input: arr = [4,2,3]``,
    ``For num = "AB" the output should be 1``, ``a positive integer n``), written as calls of
    that function. When a function's docstring shows no call of the function itself, its calls of
    names the file neither defines nor imports (``grade_equation([4.0, 3]) ==> [...]`` in
    ``numerical_letter_grade``; builtins aside) are that function's, where they bind (``_as_own``)."""
    out: dict[str, str] = {}
    for rel, text in sorted(sources.items()):
        try:
            tree = parse_python(text)
        except (SyntaxError, ValueError):
            continue
        defined = _defined_names(tree)
        calls: list[str] = []
        for node in ast.walk(tree):
            if not isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            doc = _doc_text(node)
            written = _written_calls(doc)
            calls += written
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                prose = _prose_sources(node, doc)
                if not prose and all(_callee(c) != node.name for c in written):
                    calls += _as_own(node, [c for c in written if _callee(c) not in defined | _BUILTINS])
                calls += prose
        if calls:
            out[f"{rel}::docstrings"] = "\n".join(calls) + "\n"
    return out


_BUILTINS = frozenset(dir(builtins))


def _defined_names(tree: ast.AST) -> set[str]:
    """Names the file defines or imports (``def``, ``class``, ``import x``, ``from m import x``)."""
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(n.name)
        elif isinstance(n, ast.Import | ast.ImportFrom):
            out |= {(a.asname or a.name).split(".")[0] for a in n.names}
    return out


def _as_own(node: ast.FunctionDef | ast.AsyncFunctionDef, calls: list[str]) -> list[str]:
    """``calls`` renamed to ``node``'s own name, each only if its literal arguments bind to the
    function's parameters with the types of their plain hints."""
    params = params_of(node)
    out = []
    for call in calls:
        try:
            parsed = parse_python(call, mode="eval").body
            args = [literal_value(a) for a in parsed.args]
            kwargs = {str(k.arg): literal_value(k.value) for k in parsed.keywords}
        except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
            continue
        bound = bind(params, [(tuple(args), kwargs)])
        if bound and all(_fits(p.annotation, bound[p.name]) for p in params if p.name in bound):
            out.append(node.name + call[call.index("(") :])
    return out


def _fits(annotation: str | None, value: object) -> bool:
    """Whether ``value`` has the type of the plain hint ``annotation`` (any value fits no hint or
    one ``from_hint`` does not read; an ``int`` fits ``float``)."""
    example = from_hint(annotation)
    if example is None:
        return True
    kinds = {type(example)} | ({int} if type(example) is float else set())
    return type(value) in kinds


def _callee(call: str) -> str:
    return call[: call.index("(")]


def _doc_text(node: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
    """The docstring, or the string statements at the top of the body when something comes first
    (``import math`` above the text, as HumanEval/115 has it)."""
    doc = ast.get_docstring(node)
    if doc is not None:
        return doc
    texts = [s.value.value for s in node.body[:3] if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
             and isinstance(s.value.value, str)]  # fmt: skip
    return "\n".join(texts)


def _prose_sources(node: ast.FunctionDef | ast.AsyncFunctionDef, doc: str) -> list[str]:
    """``_prose``'s calls for ``node`` written as source, ``f(arr=[4, 2, 3])``; a call giving a
    parameter with a plain type hint a value of another type (words misread) is dropped."""
    params = params_of(node)
    out = []
    for args, kwargs in [*prose_calls(doc, params), *bare_word_calls(doc, node.name, params)]:
        given = {**dict(zip((p.name for p in params), args, strict=False)), **kwargs}
        if not all(_fits(p.annotation, given[p.name]) for p in params if p.name in given):
            continue
        try:
            parts = [to_source(a) for a in args] + [f"{k}={to_source(v)}" for k, v in kwargs.items()]
        except ValueError:
            continue
        out.append(f"{node.name}({', '.join(parts)})")
    return out


_CALL_START = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\(")


def _written_calls(doc: str) -> list[str]:
    """Each ``name(...)`` in ``doc`` whose parentheses balance and which parses as a call."""
    found = []
    for m in _CALL_START.finditer(doc):
        depth, end = 0, None
        for i in range(m.end() - 1, min(len(doc), m.end() + 2000)):
            depth += doc[i] in "([{"
            depth -= doc[i] in ")]}"
            if depth == 0:
                end = i + 1
                break
        if end is None:
            continue
        text = doc[m.start() : end]
        try:
            node = parse_python(text, mode="eval").body
        except (SyntaxError, ValueError):
            continue
        if isinstance(node, ast.Call) and "\n" not in text:
            found.append(text)
    return found


def merged_examples(*groups: Mapping[str, Sequence[Call]]) -> dict[str, list[Call]]:
    out: dict[str, list[Call]] = {}
    for group in groups:
        for name, calls in group.items():
            out.setdefault(name, []).extend(c for c in calls if c not in out.get(name, []))
    return out


def _plain_calls(entry: Entry, calls: Sequence[Call]) -> list[dict[str, object]]:
    """Every example call that binds to ``entry``'s parameters and is plain data, as kwargs."""
    out = []
    for call in calls:
        bound = bind(entry.params, [call])
        try:
            to_source(bound)
        except ValueError:
            continue
        if bound and bound not in out:
            out.append(bound)
    return out


def _from_hints(entry: Entry) -> dict[str, object] | None:
    call: dict[str, object] = {}
    for p in entry.params:
        if p.has_default:
            continue
        value = from_hint(p.annotation)
        if value is None or is_handle(p):
            return None
        call[p.name] = value
    return call or None


def oracle_suite(
    reference: Mapping[str, str], examples: Examples, seed: int, *, invalid: bool, first_index: int = 0
) -> tuple[list[OracleTest], list[str]]:
    """The differential tests for the reference's public API, deterministic from ``seed``, and a
    note per public callable that got none (and why)."""
    api = build_api({rel: text for rel, text in reference.items() if rel.endswith(".py")})
    tests: list[OracleTest] = []
    notes: list[str] = []
    rng = random.Random(f"{ORACLE_VERSION}:{seed}")
    for key in sorted(api.entries):
        entry = api.entries[key]
        own = entry.qualname.split(".")[-1]
        fn = api.functions[key]
        bases = _plain_calls(entry, examples.get(own, ()))
        hinted = _from_hints(entry) if not bases else None
        if not bases and hinted is None:
            bases = _plain_calls(entry, typed_calls(_doc_text(fn.node), entry.params))
        if not bases and hinted is None:
            notes.append(f"{key}: no visible example call, doctest, plain type hint or type named in its docstring "
                         "shows how to call it; not probed")  # fmt: skip
            continue
        for mode, calls, param in _inputs(bases or [hinted], rng, invalid=invalid, entry=entry):  # type: ignore[list-item]
            if len(tests) >= MAX_ORACLE_TESTS:
                notes.append(f"{key}: over the cap of {MAX_ORACLE_TESTS} oracle tests; not probed")
                break
            index = first_index + len(tests)
            tests.append(_test(index, entry, fn.file, fn.node.lineno, key, mode, calls, param, examples))
    return tests, notes


def _inputs(
    bases: list[dict[str, object]], rng: random.Random, *, invalid: bool, entry: Entry
) -> Iterable[tuple[Mode, list[dict[str, object]], str | None]]:
    floats = frozenset(p.name for p in entry.params if (p.annotation or "").replace(" ", "") in ("float", "float|None"))
    valid = mutated_calls(bases, VALID_CALLS, rng, floats)
    for i in range(0, len(valid), CALLS_PER_TEST):
        yield "valid", valid[i : i + CALLS_PER_TEST], None
    if not invalid:
        return
    for p in entry.params:
        if p.name in bases[0] and not is_handle(p):
            yield "invalid", [{**bases[0], p.name: v} for v in invalid_values(bases[0][p.name])], p.name


def _test(
    index: int,
    entry: Entry,
    file: str,
    line: int,
    key: str,
    mode: Mode,
    calls: list[dict[str, object]],
    param: str | None,
    examples: Examples,
) -> OracleTest:
    name = f"test_gen_{index + 1:03d}"  # opaque: what it probes (mode, param) stays on the host, in target
    what = (f"out-of-contract values of {param} the challenge requires to be rejected" if mode == "invalid"
            else "inputs mutated from the visible examples")  # fmt: skip
    sink = "invalid" if mode == "invalid" else "valid"
    target = Target("reference_mismatch", file, line, key, sink, f"compared with the reference on {what}",
                    param=param)  # type: ignore[arg-type]  # fmt: skip
    body = ",\n".join(f"        {to_source(c)}" for c in calls)
    doc = repr(f"{len(calls)} calls of {entry.qualname}, each compared with the reference's")
    source = (f"def {name}(bouts_expect):\n    {doc}\n    oracle(bouts_expect, {entry.module!r}, "
              f"{entry.qualname!r}, [\n{body},\n    ], {_call_args(entry, examples)})\n")  # fmt: skip
    shown = tuple(f"{entry.qualname}({', '.join(f'{k}={to_source(v)[:80]}' for k, v in c.items())})" for c in calls)
    test = GeneratedTest(f"{ORACLE_FILE}::{name}", target, f"{entry.module}:{entry.qualname}", param, "oracle", source)
    return OracleTest(test, mode, shown)


def oracle_file(tests: Sequence[OracleTest], seed: int) -> str:
    """The generated file: the core runtime and the oracle's (not hypothesis's: ``_runtime_fuzz``;
    importing it was most of the generated tests' session per sample), then the tests."""
    header = f'"""Reference-oracle tests generated by bouts (seed {seed}, {ORACLE_VERSION})."""\n'
    runtime = _body(RUNTIME_SOURCE) + _body(ORACLE_RUNTIME)  # no hypothesis: draws nothing
    text = header + runtime + "\n\n" + "\n\n".join(t.test.source for t in tests)
    compile(text, ORACLE_FILE, "exec")  # our own output: a syntax error here is an engine bug
    return text


def digest(label: object) -> str:
    """The digest ``bouts_expect`` records for a label (its canonical JSON, sha256)."""
    return hashlib.sha256(json.dumps(label).encode()).hexdigest()


def labels(class_names: Iterable[str]) -> dict[str, str]:
    """Digest → label for every ending the host can name: ``ok``, ``timeout`` and ``raise``/
    ``crash``/``unbuildable`` of the built-in exceptions and of ``class_names``."""
    names = {n for n in dir(builtins) if isinstance(getattr(builtins, n), type)
             and issubclass(getattr(builtins, n), BaseException)} | set(class_names)  # fmt: skip
    out = {digest("ok"): "ok", digest("timeout"): "timeout"}
    for n in names:
        for how in ("raise", "crash", "unbuildable"):
            out[digest(f"{how} {n}")] = f"{how} {n}"
    return out


def class_names(sources: Mapping[str, str]) -> set[str]:
    """Names of the classes the sources define (their own exception types among them)."""
    out: set[str] = set()
    for text in sources.values():
        try:
            out |= {n.name for n in ast.walk(parse_python(text)) if isinstance(n, ast.ClassDef)}
        except (SyntaxError, ValueError):
            continue
    return out


Verdict = tuple[Outcome, str]


def counted(t: OracleTest, ref: Sequence[str], names: Mapping[str, str]) -> list[int]:
    """The calls of ``t`` the reference answers, so that compare: on valid input those it returned
    from, on invalid input those it rejected with a deliberate error."""
    out = []
    for i in range(len(t.calls)):
        label = names.get(ref[2 * i], "?") if 2 * i + 1 < len(ref) else "?"
        if (t.mode == "valid" and label == "ok") or (t.mode == "invalid" and label.startswith("raise ")):
            out.append(i)
    return out


def decide(
    t: OracleTest, ref: Sequence[str], result: TestResult | None, observed: Sequence[str], names: Mapping[str, str],
    opaque: Collection[str] = (),
) -> Verdict:
    """The submission's verdict on ``t``, from the reference's digests ``ref`` and its own run.
    Only the calls :func:`counted` keeps are compared; the reference's values are never shown, and
    not compared at all for an entry in ``opaque`` (the challenge's ``opaque_returns``)."""
    if result is None:
        return Outcome.MISSING, "never reported"
    if result.outcome is not Outcome.PASSED:
        return result.outcome, result.detail or result.outcome.value
    if len(observed) != len(ref):
        return Outcome.FAILED, f"recorded {len(observed) // 2} of {len(ref) // 2} calls (the test did not finish)"
    fails = []
    open_value = bool(opaque) and t.test.entry in opaque
    for i in counted(t, ref, names):
        mine, theirs = names.get(observed[2 * i], "an unknown ending"), names.get(ref[2 * i], "?")
        if t.mode == "valid" and mine == "ok" and observed[2 * i + 1] != ref[2 * i + 1] and not open_value:
            fails.append(f"{t.calls[i]} returned a different value from the reference's")
        elif t.mode == "valid" and mine != "ok":
            fails.append(f"{t.calls[i]}: {_ending(mine)} where the reference returns a value")
        elif t.mode == "invalid" and mine != theirs:
            fails.append(f"{t.calls[i]}: {_ending(mine)} where the reference rejects it ({theirs})")
    if not fails:
        return Outcome.PASSED, ""
    more = f" (and {len(fails) - 1} more of {len(t.calls)} calls)" if len(fails) > 1 else ""
    return Outcome.FAILED, fails[0] + more


def _ending(label: str) -> str:
    how, _, name = label.partition(" ")
    return {
        "ok": "returned", "timeout": "used more than its CPU budget", "raise": f"raised {name}",
        "crash": f"crashed with {name} (not a deliberate raise)", "unbuildable": f"could not be set up ({name})",
    }.get(how, label)  # fmt: skip
