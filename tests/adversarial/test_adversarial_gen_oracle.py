"""The reference oracle (issue 15): generated inputs come from the challenge's domain, run against
the reference too, and a submission fails only where it behaves differently from the reference.
The attack it stops: a crash-only oracle that scored correct code 0 on inputs outside the task's
contract, and could not see a wrong answer at all."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bouts.adversarial import run_generated
from bouts.adversarial._domain import from_hint, mutated_calls, to_source
from bouts.adversarial._examples import example_calls
from bouts.adversarial._oracle import OracleTest, decide, digest, labels, oracle_file, oracle_suite, starter_doctests
from bouts.loading import load_challenge
from bouts.models.results import Outcome, TestResult
from bouts.sandbox import get_sandbox

LEAGUE = Path(__file__).resolve().parents[2] / "examples" / "league-table"

REFERENCE = '''
def median(l: list):
    """Median of the numbers in l."""
    s = sorted(l)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0


def triangle_area(a: float, h: float) -> float:
    """Area of a triangle, rounded to 2 decimals."""
    return round(a * h / 2.0, 2)


def count_up_to(n: int):
    """The primes less than n."""
    return [k for k in range(2, n) if all(k % d for d in range(2, k))]


def parse_age(text: str) -> int:
    """An age in years; ValueError unless it is 0..150."""
    if not isinstance(text, str) or not text.isdigit() or int(text) > 150:
        raise ValueError(f"not an age: {text!r}")
    return int(text)
'''
VISIBLE = '''from tasks import *


def test_examples():
    assert median([3, 1, 2, 4, 5]) == 3
    assert median([-10, 4, 6, 1000, 10, 20]) == 8.0
    assert triangle_area(5, 3) == 7.5
    assert count_up_to(11) == [2, 3, 5, 7]
    assert count_up_to(20) == [2, 3, 5, 7, 11, 13, 17, 19]
    assert parse_age("42") == 42
'''
# Correct, but written differently from the reference (other algorithms, other float paths).
RIGHT = '''
import statistics


def median(l):
    return statistics.median(l)


def triangle_area(a, h):
    return round(0.5 * h * a, 2)


def count_up_to(n):
    sieve = [True] * max(n, 2)
    out = []
    for k in range(2, n):
        if sieve[k]:
            out.append(k)
            for m in range(k * k, n, k):
                sieve[m] = False
    return out


class AgeError(ValueError):
    """Its own kind of ValueError: the contract names ValueError, and a subclass is one."""


def parse_age(text):
    if type(text) is not str or not text.isdigit():
        raise AgeError("age must be digits")
    if int(text) > 150:
        raise AgeError("too old")
    return int(text)
'''
# Each one deliberately wrong on valid input, in the ways solutions usually are.
WRONG = '''
def median(l):
    s = sorted(l)
    return s[len(s) // 2]                      # the even case is wrong


def triangle_area(a, h):
    return round(a * h / 2.0, 1)               # wrong rounding


def count_up_to(n):
    return [k for k in range(2, n + 1) if all(k % d for d in range(2, k))]   # off by one


def parse_age(text):
    return int(text)                            # no validation: crashes or accepts
'''


def make_challenge(root: Path, *, invalid_input: str = "rejected") -> Path:
    for rel, text in (("reference/tasks.py", REFERENCE), ("starter/tasks.py", "def median(l):\n    ...\n"),
                      ("tests/visible/test_tasks.py", VISIBLE), ("tests/hidden/test_hidden.py", VISIBLE)):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "challenge.toml").write_text(
        'id = "tasks"\ntitle = "Tasks"\nlanguage = "python"\n\n'
        f'[adversarial]\ninvalid_input = "{invalid_input}"\n'
    )
    return root


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = make_challenge(tmp_path_factory.mktemp("oracle") / "challenge")
    challenge = load_challenge(root)
    sandbox = get_sandbox("bubblewrap")
    out = {}
    for name, text in (("reference", None), ("right", RIGHT), ("wrong", WRONG)):
        code = root / "reference" if text is None else root.parent / name
        if text is not None:
            code.mkdir(exist_ok=True)
            (code / "tasks.py").write_text(text)
        out[name] = run_generated(challenge, code, sandbox=sandbox, seed=1234, cache_dir=root.parent / "cache")
    return out


def _by_entry(run) -> dict[str, list[tuple[str, Outcome | None, str]]]:  # noqa: ANN001
    out: dict[str, list[tuple[str, Outcome | None, str]]] = {}
    for t, r in run.outcomes():
        row = (t.target.sink, r.outcome if r else None, r.detail if r else "")
        out.setdefault(t.entry.split(":")[-1], []).append(row)
    return out


def test_the_oracle_file_needs_no_hypothesis() -> None:
    # It draws nothing (its calls are fixed from the seed on the host): importing hypothesis there
    # was most of every sample's generated-tests session. Its tests still run in the sandbox above.
    tests, _ = oracle_suite({"tasks.py": REFERENCE}, example_calls({"test_tasks.py": VISIBLE}), 1234, invalid=True)
    text = oracle_file(tests, 1234)
    assert tests and "hypothesis" not in text
    assert "def oracle(" in text and "def build(" in text and "def ungraceful(" in text
    compile(text, "test_gen_oracle.py", "exec")


@pytest.mark.sandbox
def test_the_reference_and_a_differently_written_correct_solution_pass_every_generated_test(runs) -> None:  # noqa: ANN001
    for name in ("reference", "right"):
        run = runs[name]
        assert run.verdict.score.value == 100, [(t.id, r.detail) for t, r in run.outcomes() if r.outcome != "passed"]
        # the reference-oracle tests, and the tests from the submitted code judged against the reference
        assert {t.strategy for t, _ in run.outcomes()} <= {"oracle", "differential"}
        assert {t.entry.split(":")[-1] for t, _ in run.outcomes() if t.strategy == "oracle"} == {
            "median", "triangle_area", "count_up_to", "parse_age"}  # fmt: skip


@pytest.mark.sandbox
@pytest.mark.parametrize("entry", ["median", "triangle_area", "count_up_to"])
def test_a_wrong_answer_on_valid_input_fails_a_high_test(runs, entry: str) -> None:  # noqa: ANN001
    valid = [(o, d) for sink, o, d in _by_entry(runs["wrong"])[entry] if sink == "valid"]
    failed = [d for o, d in valid if o is Outcome.FAILED]
    assert failed, valid
    assert "returned a different value from the reference's" in failed[0]
    assert not any("8.0" in d or d == "[2, 3, 5, 7]" for d in failed)  # the reference's values are never shown


@pytest.mark.sandbox
def test_accepting_or_crashing_on_input_the_challenge_requires_rejected_fails_a_medium_test(runs) -> None:  # noqa: ANN001
    invalid = [(o, d) for sink, o, d in _by_entry(runs["wrong"])["parse_age"] if sink == "invalid"]
    assert invalid and all(o is Outcome.FAILED for o, _ in invalid)
    assert "where the reference rejects it (raise ValueError)" in invalid[0][1]
    severities = {t.target.sink: t.severity for t, _ in runs["wrong"].outcomes() if t.strategy == "oracle"}
    assert severities == {"valid": "high", "invalid": "medium"}


@pytest.mark.sandbox
def test_without_the_rejection_setting_no_out_of_contract_value_is_generated(tmp_path: Path) -> None:
    root = make_challenge(tmp_path / "challenge", invalid_input="out-of-scope")
    run = run_generated(load_challenge(root), root / "reference", sandbox=get_sandbox("bubblewrap"), seed=1234)
    oracle = [t for t, _ in run.outcomes() if t.strategy == "oracle"]
    assert oracle and {t.target.sink for t in oracle} == {"valid"}


def test_mutations_keep_each_arguments_type_sign_and_alphabet() -> None:
    examples = [{"xs": [3, 1, 2], "word": "abba", "k": 2, "x": 0.5}, {"xs": [7], "word": "ba", "k": 5, "x": 1.25}]
    calls = mutated_calls(examples, 30, random.Random(7))
    assert calls[:2] == examples and len(calls) == 30
    assert len({to_source(c) for c in calls}) == 30
    for c in calls:
        assert type(c["xs"]) is list and c["xs"] and all(type(v) is int and v >= 0 for v in c["xs"])
        assert set(c["word"]) <= {"a", "b"} and c["word"]
        assert type(c["k"]) is int and 1 <= c["k"] <= 10 and type(c["x"]) is float and c["x"] >= 0
    assert mutated_calls(examples, 30, random.Random(7)) == calls  # deterministic from the seed


def test_literals_round_trip_and_hints_give_small_values() -> None:
    value = {"a": [1, 2.5, float("inf"), None, (1,), {3}], "b": b"x"}
    assert eval(to_source(value)) == value  # noqa: S307 (our own literal output)
    assert from_hint("list[int]") == [1, 1] and from_hint("Tuple[str, int]") == ("ab", 1)
    assert from_hint("dict[str, float]") == {"ab": 1.5} and from_hint("Widget") is None


def test_the_host_compares_call_by_call_and_skips_what_the_reference_does_not_answer() -> None:
    names = labels({"InvalidInput"})
    ok, v1, v2 = digest("ok"), digest(1), digest(2)
    ref = (ok, v1, digest("crash ZeroDivisionError"), digest(None), ok, v2)
    test = OracleTest(test=None, mode="valid", calls=("f(x=1)", "f(x=0)", "f(x=2)"))  # type: ignore[arg-type]
    passed = TestResult(id="t", suite="generated", outcome=Outcome.PASSED)
    # the second call crashed on the reference: not compared, whatever the submission did there
    assert decide(test, ref, passed, (ok, v1, ok, v1, ok, v2), names) == (Outcome.PASSED, "")
    outcome, detail = decide(test, ref, passed, (ok, v1, ok, v1, ok, v1), names)
    assert outcome is Outcome.FAILED and detail == "f(x=2) returned a different value from the reference's"
    outcome, detail = decide(test, ref, passed, (digest("crash KeyError"), digest(None), ok, v1, ok, v2), names)
    assert detail == "f(x=1): crashed with KeyError (not a deliberate raise) where the reference returns a value"
    rejecting = OracleTest(test=None, mode="invalid", calls=("g(x=None)",))  # type: ignore[arg-type]
    ref = (digest("raise InvalidInput"), digest(None))
    assert decide(rejecting, ref, passed, ref, names) == (Outcome.PASSED, "")
    outcome, detail = decide(rejecting, ref, passed, (digest("raise ValueError"), digest(None)), names)
    assert detail == "g(x=None): raised ValueError where the reference rejects it (raise InvalidInput)"


def test_calls_written_in_the_starters_docstrings_are_examples_too() -> None:
    starter = ('def digit_sum(s):\n    """Sum of the upper-case codes.\n\n    Examples:\n'
               '        digit_sum("abAB") => 131\n        >>> digit_sum("")\n        0\n'
               '        tri(3) = [1, 3, 2, 8] and see f(x) for more (\n    """\n')
    calls = example_calls(starter_doctests({"solution.py": starter}))
    assert calls == {"digit_sum": [(("abAB",), {}), (("",), {})], "tri": [((3,), {})]}


def _oracle_runtime() -> dict:
    """The oracle's runtime functions, loaded as plain Python (our own code: it only records)."""
    from bouts.adversarial._oracle import ORACLE_RUNTIME

    namespace: dict = {}
    exec(compile(ORACLE_RUNTIME, "_runtime_oracle.py", "exec"), namespace)  # noqa: S102
    return namespace


def test_values_without_public_state_are_recorded_by_value() -> None:
    """``plain`` read a Decimal, a date or a slotted object by its ``__dict__``: it has none, so every
    Decimal was recorded as equal to every other and a wrong valuation was never caught."""
    import datetime
    from decimal import Decimal
    from fractions import Fraction

    plain = _oracle_runtime()["plain"]

    class Slotted:
        __slots__ = ("qty", "_cache")

        def __init__(self, qty: int) -> None:
            self.qty, self._cache = qty, object()

    assert plain(Decimal("2.50")) == plain(Decimal("2.5")) != plain(Decimal("2.6"))
    assert plain(Fraction(1, 3)) != plain(Fraction(2, 3)) and plain(3 + 4j) != plain(3 + 5j)
    assert plain(datetime.date(2024, 1, 2)) != plain(datetime.date(2024, 1, 3))
    assert plain(datetime.timedelta(seconds=5)) != plain(datetime.timedelta(seconds=6))
    assert plain(Slotted(1)) == plain(Slotted(1)) != plain(Slotted(2))


def test_a_deliberate_error_is_recorded_by_its_nearest_builtin_class() -> None:
    builtin = _oracle_runtime()["_builtin"]

    class InvalidInput(ValueError):
        pass

    class Stricter(InvalidInput):
        pass

    class UnknownItem(KeyError):
        pass

    assert builtin(InvalidInput) == builtin(Stricter) == builtin(ValueError) == "ValueError"
    assert builtin(UnknownItem) == "KeyError"


def test_an_entry_whose_return_value_the_contract_leaves_open_is_compared_by_how_it_ends() -> None:
    """``reserve()`` returns "the reservation id": ``RSV-000001`` where the reference says ``R1`` is
    no wrong answer (three high-severity failures cost a correct solution 9 points)."""
    from bouts.adversarial._generate import GeneratedTest

    names = labels(())
    ok = digest("ok")
    gen = GeneratedTest("t::test_gen_001", None, "ledger.core:Ledger.reserve", None, "oracle", "")  # type: ignore[arg-type]
    test = OracleTest(test=gen, mode="valid", calls=("reserve(qty=1)",))
    passed = TestResult(id="t", suite="generated", outcome=Outcome.PASSED)
    mine, ref = (ok, digest("RSV-000001")), (ok, digest("R1"))
    assert decide(test, ref, passed, mine, names)[0] is Outcome.FAILED
    assert decide(test, ref, passed, mine, names, frozenset({"ledger.core:Ledger.reserve"})) == (Outcome.PASSED, "")
    raised = (digest("raise ValueError"), digest(None))
    assert decide(test, ref, passed, raised, names, frozenset({"ledger.core:Ledger.reserve"}))[0] is Outcome.FAILED


def test_an_opaque_entry_must_name_module_and_qualname() -> None:
    from pydantic import ValidationError

    from bouts.models.challenge import AdversarialConfig

    assert AdversarialConfig(opaque_returns=["ledger.core:Ledger.reserve"]).opaque_returns
    with pytest.raises(ValidationError, match="module:qualname"):
        AdversarialConfig(opaque_returns=["Ledger.reserve"])
