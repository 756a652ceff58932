"""Generated tests from the submitted code (issue 39, item 1). The regression they stop: every
submission of a challenge got byte-identical generated suites built from the reference alone (the
low, mid and high anchors of inventory-ledger: the same 25 tests), and the targets the analyser
found in the submitted code (29 on inventory-ledger's anchors, pattern mismatches among them)
produced no test. Now each target, and each entry's own boundary literals, gives a test: judged
against the reference where the entry exists there, by contract where it does not."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bouts.adversarial import run_generated
from bouts.adversarial._examples import example_calls
from bouts.adversarial._generate import GeneratedTest
from bouts.adversarial._model import Target
from bouts.adversarial._oracle import digest, labels, merged_examples, starter_doctests
from bouts.adversarial._probe import CONTRACT_FILE, PROBE_FILE, ProbeTest, boundary_pool, probe_values
from bouts.adversarial._probe_suite import decide_probe, probe_suite
from bouts.adversarial._py_api import build_api
from bouts.adversarial._run import read_sources, visible_examples
from bouts.adversarial.analysers import PythonAnalyser
from bouts.loading import load_challenge
from bouts.models.results import Outcome, TestResult
from bouts.sandbox import get_sandbox

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ANCHORS = ("low", "mid", "high")


def _suite(example: str, anchor: str) -> list[ProbeTest]:
    challenge = load_challenge(EXAMPLES / example)
    starter = read_sources(challenge.root / "starter", (".py",))
    examples = merged_examples(visible_examples(challenge), example_calls(starter_doctests(starter)))
    code = challenge.root / "reference" if anchor == "reference" else challenge.root / "anchors" / anchor / "code"
    sources = read_sources(code, (".py",))
    reference = read_sources(challenge.root / "reference", (".py",))
    tests, _ = probe_suite(PythonAnalyser().analyse(sources), sources, reference, examples, 1234, rejected=True,
                           opaque=frozenset(challenge.spec.adversarial.opaque_returns))  # fmt: skip
    return tests


def _signature(tests: list[ProbeTest]) -> list[tuple[str, str | None, tuple[str, ...]]]:
    return [(t.test.entry, t.test.param, t.calls) for t in tests]


@pytest.mark.parametrize("example", ["inventory-ledger", "league-table"])
def test_each_anchor_gets_its_own_generated_tests(example: str) -> None:
    """The attack: a wrong solution scored on the same suite as the right one, whatever its code."""
    suites = {anchor: _signature(_suite(example, anchor)) for anchor in ANCHORS}
    assert all(suites.values()), suites
    assert suites["low"] != suites["mid"] != suites["high"] != suites["low"]
    assert _signature(_suite(example, "low")) == suites["low"]  # deterministic per (submission, seed)


def test_the_analysers_targets_in_the_submitted_code_each_get_a_test() -> None:
    challenge = EXAMPLES / "inventory-ledger"
    for anchor in ANCHORS:
        sources = read_sources(challenge / "anchors" / anchor / "code", (".py",))
        analysis = PythonAnalyser().analyse(sources)
        probed = {(p.entry.qualname, p.param) for p in analysis.probes if p.http is None}
        tested = {(t.test.entry.split(":")[1], t.test.param) for t in _suite("inventory-ledger", anchor)}
        assert probed and probed <= tested, probed - tested
    low = {(t.test.target.kind, t.test.param) for t in _suite("inventory-ledger", "low")}
    assert ("weak_type", "unit_price") in low  # float(price) in low's to_cents: only low has it


def test_the_submissions_own_boundary_literals_become_inputs() -> None:
    """``price == "19.99"`` (the low anchor's special case) and ``qty <= 0`` are the code's own
    boundaries: their values and neighbours are what the boundary tests feed."""
    low = build_api(read_sources(EXAMPLES / "inventory-ledger/anchors/low/code", (".py",)))
    assert "19.99" in boundary_pool(low, "ledger.core:Ledger.add_item")
    mid = build_api(read_sources(EXAMPLES / "inventory-ledger/anchors/mid/code", (".py",)))
    assert 0 in boundary_pool(mid, "ledger.core:Ledger.receive")
    target = Target("pattern_mismatch", "a.py", 1, "m:f", "case", "`role == 'admin'`", param="role", literal="admin")
    values = probe_values(target, "admin", (), random.Random(1))
    assert values[:3] == ["admin", "ADMIN", "Admin"]  # a pattern mismatch produces its pair again


def test_pattern_mismatch_targets_produce_tests_again() -> None:
    code = {"roles.py": 'def is_admin(user: str) -> bool:\n    return user == "admin"\n'}
    analysis = PythonAnalyser().analyse(code)
    assert any(t.kind == "pattern_mismatch" for t in analysis.targets)
    tests, _ = probe_suite(analysis, code, {}, {}, 7, rejected=False)
    (test,) = [t for t in tests if t.test.target.kind == "pattern_mismatch"]
    assert test.judge == "contract" and test.test.id.startswith(CONTRACT_FILE)  # no reference: by contract
    assert "is_admin(user='ADMIN')" in test.calls


def _made(judge: str, calls: tuple[str, ...], in_domain: tuple[bool, ...], observers: tuple[str, ...]) -> ProbeTest:
    test = GeneratedTest("t::test_gen_001", None, "m:f", None, judge, "")  # type: ignore[arg-type]
    return ProbeTest(test, judge, calls, in_domain, observers)  # type: ignore[arg-type]


def _result() -> TestResult:
    return TestResult(id="t", suite="generated", outcome=Outcome.PASSED)


def test_the_host_decides_differential_calls_only_where_the_reference_answers() -> None:
    names = labels({"InvalidInput"})
    ok, none = digest("ok"), digest(None)
    t = _made("differential", ("f(x=1)", "f(x=0)", "f(x=None)"), (True, True, False), ())
    ref = (ok, digest(2), digest("raise ValueError"), none, digest("crash TypeError"), none)
    same = decide_probe(t, ref, _result(), ref, names, rejected=True)
    assert same == (Outcome.PASSED, "")
    # the reference crashes on x=None: whatever the submission does there is not counted
    crashing = (ok, digest(2), digest("raise ValueError"), none, digest("crash KeyError"), none)
    assert decide_probe(t, ref, _result(), crashing, names, rejected=True)[0] is Outcome.PASSED
    accepting = (ok, digest(2), ok, digest(0), ok, none)
    outcome, detail = decide_probe(t, ref, _result(), accepting, names, rejected=True)
    assert outcome is Outcome.FAILED and detail == "f(x=0): returned where the reference rejects it (raise ValueError)"
    # where the challenge does not require rejection, the reference's rejection judges nothing
    assert decide_probe(t, ref, _result(), accepting, names, rejected=False)[0] is Outcome.PASSED
    wrong = (ok, digest(3), digest("raise ValueError"), none, ok, none)
    assert decide_probe(t, ref, _result(), wrong, names, rejected=False)[1] == (
        "f(x=1) returned a different value from the reference's")


def test_the_state_a_call_leaves_is_compared_through_the_query_methods() -> None:
    names = labels(())
    ok = digest("ok")
    t = _made("differential", ("add(x=1)",), (True,), ("report",))
    ref = (ok, digest(None), ok, digest({"total": 1}))
    assert decide_probe(t, ref, _result(), ref, names, rejected=True)[0] is Outcome.PASSED
    outcome, detail = decide_probe(t, ref, _result(), (ok, digest(None), ok, digest({"total": 0})), names,
                                   rejected=True)  # fmt: skip
    assert outcome is Outcome.FAILED and "report() afterwards differs from the reference's" in detail


def test_a_contract_test_fails_a_crash_or_two_fresh_objects_that_disagree() -> None:
    names = labels(())
    ok = digest("ok")
    t = _made("contract", ("f(x=1)", "f(x=None)"), (True, False), ())
    fine = (ok, digest(1), ok, digest(1), digest("crash TypeError"), digest(None), ok, digest(None))
    assert decide_probe(t, None, _result(), fine, names, rejected=False)[0] is Outcome.PASSED
    # out of contract, where the challenge requires rejection: a crash fails
    assert decide_probe(t, None, _result(), fine, names, rejected=True)[0] is Outcome.FAILED
    leaking = (ok, digest(1), ok, digest(2), ok, digest(None), ok, digest(None))
    outcome, detail = decide_probe(t, None, _result(), leaking, names, rejected=False)
    assert outcome is Outcome.FAILED and "two fresh objects" in detail
    # a module that hands out ids or timestamps: the two runs are compared by how they end only
    assert decide_probe(t, None, _result(), leaking, names, rejected=False, stable=False)[0] is Outcome.PASSED
    crashing = (digest("crash KeyError"), digest(None), digest("crash KeyError"), digest(None)) + fine[4:]
    assert "crashed with KeyError" in decide_probe(t, None, _result(), crashing, names, rejected=False)[1]


@pytest.mark.sandbox
@pytest.mark.parametrize("example", ["inventory-ledger", "league-table"])
def test_a_wrong_anchor_fails_a_test_from_its_own_code_that_the_reference_passes(example: str, tmp_path: Path) -> None:
    challenge = load_challenge(EXAMPLES / example)
    sandbox = get_sandbox("bubblewrap")
    runs = {name: run_generated(challenge, code, sandbox=sandbox, seed=1234, cache_dir=tmp_path)
            for name, code in (("reference", challenge.root / "reference"),
                               ("low", challenge.root / "anchors" / "low" / "code"))}  # fmt: skip
    ref = {t.id: r.outcome for t, r in runs["reference"].outcomes() if t.id.startswith(PROBE_FILE) and r}
    assert ref and set(ref.values()) == {Outcome.PASSED}
    failed = [(t, r) for t, r in runs["low"].outcomes() if t.id.startswith(PROBE_FILE) and r
              and r.outcome is Outcome.FAILED]  # fmt: skip
    assert failed, [(t.id, r) for t, r in runs["low"].outcomes()]
    assert all("reference" in r.detail for _, r in failed)


@pytest.mark.sandbox
def test_an_entry_the_reference_lacks_is_held_to_its_contract(tmp_path: Path) -> None:
    """A public class the reference does not have: judged by contract. One that keeps its items in
    a class attribute shares them between instances: the second fresh object's ``add`` answers
    with the first's items counted in."""
    root = tmp_path / "challenge"
    for rel, text in (("reference/shop.py", "def total(prices: list[int]) -> int:\n    return sum(prices)\n"),
                      ("starter/shop.py", "def total(prices):\n    ...\n"),
                      ("tests/visible/test_shop.py", "from shop import *\n\n\ndef test_total():\n"
                                                     "    assert total([1, 2]) == 3\n"
                                                     "    Cart().add(\"pen\", 2)\n    Cart().count(\"pen\")\n"),
                      ("tests/hidden/test_hidden.py", "def test_x():\n    pass\n")):  # fmt: skip
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "challenge.toml").write_text('id = "shop"\ntitle = "Shop"\nlanguage = "python"\n')
    leaky = tmp_path / "leaky"
    leaky.mkdir()
    (leaky / "shop.py").write_text(
        "def total(prices: list[int]) -> int:\n    return sum(prices)\n\n\n"
        "class Cart:\n    items: dict = {}\n\n    def add(self, name: str, qty: int) -> int:\n"
        "        self.items[name] = self.items.get(name, 0) + qty\n        return self.items[name]\n\n"
        "    def count(self, name: str) -> int:\n        return self.items.get(name, 0)\n"
    )  # fmt: skip
    run = run_generated(load_challenge(root), leaky, sandbox=get_sandbox("bubblewrap"), seed=1234, cache_dir=tmp_path)
    contract = [(t, r) for t, r in run.outcomes() if t.id.startswith(CONTRACT_FILE)]
    assert contract, run.notes
    assert any(r and r.outcome is Outcome.FAILED and "two fresh objects" in r.detail for _, r in contract), [
        (t.calls if hasattr(t, "calls") else t.id, r.detail if r else None) for t, r in contract]


def test_room_bookings_http_tests_come_from_each_anchors_own_routes() -> None:
    """room-bookings' only entry, ``create_app(db)``, needs a database handle, so no probe test
    calls it: its generated tests are the HTTP tests of the routes found in each submission's own
    source (requests drawn from that app's own OpenAPI schema in the sandbox)."""
    from bouts.adversarial._generate import generate
    from bouts.adversarial._run import without_crash_oracle

    files = {}
    for anchor in ANCHORS:
        code = EXAMPLES / "room-bookings" / "anchors" / anchor / "code"
        sources = read_sources(code, (".py",))
        analysis = PythonAnalyser().analyse(sources)
        suite = generate(without_crash_oracle(analysis), 1234)
        assert suite.tests and all(t.strategy == "openapi" for t in suite.tests)
        for t in suite.tests:  # each test points at the handler in this anchor's own file
            line = sources[t.target.file].splitlines()[t.target.line - 1]
            assert line.lstrip().startswith(("@app.", "def ", "async def ")), line
        assert not _suite("room-bookings", anchor)
        files[anchor] = suite.files
    assert files["low"] != files["mid"] != files["high"] != files["low"]


DECOYS = "".join(
    f"\n\ndef aaa_adjust_{i}(qty: int, step: int) -> int:\n"
    "    if type(qty) is not int or type(step) is not int or qty < 0 or step < 0:\n"
    '        raise ValueError("qty and step must be non-negative integers")\n'
    f"    return qty + step * {i + 1}\n"
    for i in range(40)
)


def test_decoy_entries_neither_push_the_references_entries_out_nor_pad_the_score() -> None:
    """The attack (red team, decoy functions): forty checked public functions the task never asks
    for, in a file sorted first, each a target that passes every probe. Their contract tests come
    after the reference's entries' tests and are capped; a passing one is not scored."""
    challenge = load_challenge(EXAMPLES / "inventory-ledger")
    code = challenge.root / "anchors" / "mid" / "code"
    sources = {**read_sources(code, (".py",)), "aaa.py": DECOYS}
    reference = read_sources(challenge.root / "reference", (".py",))
    examples = merged_examples(visible_examples(challenge))
    honest, _ = probe_suite(PythonAnalyser().analyse(read_sources(code, (".py",))), read_sources(code, (".py",)),
                            reference, examples, 1234, rejected=True)  # fmt: skip
    padded, skipped = probe_suite(PythonAnalyser().analyse(sources), sources, reference, examples, 1234,
                                  rejected=True)  # fmt: skip
    differential = [_signature([t]) for t in padded if t.judge == "differential"]
    assert differential == [_signature([t]) for t in honest]
    assert 0 < sum(t.judge == "contract" for t in padded) <= 10
    assert any("over the cap" in why for _, why in skipped)


def test_a_passing_contract_test_is_not_scored() -> None:
    from bouts.adversarial._run import _penalty_only
    from bouts.models.results import RunReport

    made = [GeneratedTest(f"f::test_gen_00{i}", None, "m:f", None, s, "")  # type: ignore[arg-type]
            for i, s in enumerate(("differential", "contract", "contract"))]  # fmt: skip
    results = [TestResult(id=made[0].id, suite="generated", outcome=Outcome.PASSED),
               TestResult(id=made[1].id, suite="generated", outcome=Outcome.PASSED),
               TestResult(id=made[2].id, suite="generated", outcome=Outcome.FAILED)]  # fmt: skip
    report = RunReport.model_construct(results=results, tampering=[])
    kept, notes = _penalty_only(tuple(made), report, ())
    assert [t.id for t in kept] == [made[0].id, made[2].id] and "not counted" in notes[-1]
