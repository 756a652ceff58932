"""The tamper fingerprint's caches never hide a change: each is keyed by the objects themselves."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import types
from pathlib import Path

import pytest

TAMPER = Path(__file__).parents[2] / "src/bouts/runner/sandboxed/_bouts_driver/tamper.py"
_spec = importlib.util.spec_from_file_location("bouts_tamper_under_test", TAMPER)
tamper = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(tamper)  # type: ignore[union-attr]

PROBE = "bouts_tamper_probe"


def _probe() -> types.ModuleType:
    module = types.ModuleType(PROBE)
    exec(  # noqa: S102 - the probe's own fixed source
        "def target(x):\n    return x + 1\n\n"
        "def other(x):\n    return x - 1\n\n"
        "class Base:\n"
        "    @property\n    def passed(self):\n        return True\n"
        "    @classmethod\n    def build(cls):\n        return cls()\n\n"
        "class Report(Base):\n    pass\n\n"
        "def hooked(x):\n    return x\n\n"
        "hooked.opts = {'tryfirst': True}\n\n"
        "class Gen:\n    def seed(self, a=None):\n        return a\n\n"
        "seed = Gen().seed\n\n"
        "class Outcome:\n    def __call__(self, msg=''):\n        raise RuntimeError(msg)\n\n"
        "fail = Outcome()\n",
        module.__dict__,
    )
    return module


@pytest.fixture
def probe(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    module = _probe()
    monkeypatch.setitem(sys.modules, PROBE, module)
    paths = (f"{PROBE}:target", f"{PROBE}:Report", f"{PROBE}:Report.passed", f"{PROBE}:Report.build", f"{PROBE}:gone",
             f"{PROBE}:hooked", f"{PROBE}:seed", f"{PROBE}:fail")  # fmt: skip
    monkeypatch.setattr(tamper, "WATCHED", paths)
    return module


def _digest(prints: dict[str, str]) -> str:
    return hashlib.sha256(repr(sorted(prints.items())).encode()).hexdigest()


def test_a_test_case_assertion_added_replaced_or_removed_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    import unittest

    baseline = tamper.fingerprint()
    monkeypatch.setattr(unittest.TestCase, "assertRoughly", lambda self, a, b: None, raising=False)
    assert tamper.changed(baseline, tamper.fingerprint()) == ["unittest.case:TestCase.assertRoughly"]
    monkeypatch.undo()
    monkeypatch.setattr(unittest.TestCase, "assertEqual", lambda self, a, b, msg=None: None)
    assert tamper.changed(baseline, tamper.fingerprint()) == ["unittest.case:TestCase.assertEqual"]
    monkeypatch.undo()
    assert tamper.fingerprint() == baseline


def test_an_unchanged_process_fingerprints_the_same_and_digests_as_before(probe: types.ModuleType) -> None:
    first = tamper.fingerprint()
    again = tamper.fingerprint()
    assert again == first
    assert tamper.digest(again) == tamper.digest(first) == _digest(first)
    assert first[f"{PROBE}:gone"] == "absent"
    assert first[f"{PROBE}:Report.passed"] != "absent"


@pytest.mark.parametrize(
    "change",
    [
        lambda m: setattr(m.target, "__code__", m.other.__code__),  # code swapped in place
        lambda m: setattr(m, "target", m.other),  # name rebound
        lambda m: setattr(vars(m.Base)["passed"].fget, "__code__", m.other.__code__),  # a property's getter
        lambda m: setattr(vars(m.Base)["build"].__func__, "__code__", m.other.__code__),  # a classmethod's function
        lambda m: setattr(m.Report, "passed", property(lambda self: True)),  # shadowed lower in the MRO
        lambda m: setattr(m.target, "fget", m.other),  # a function given a getter of its own
        lambda m: setattr(m.target, "__func__", m.other),  # ... or a function of its own
        # new bases: the MRO read again, whose namespaces hold other attributes
        lambda m: setattr(m.Report, "__bases__", (type("Base", (), {"passed": property(lambda s: 1), "build": 1}),)),
        lambda m: setattr(m, "target", len),  # a built-in in a function's place
        lambda m: setattr(m, "gone", m.other),  # an absent name appears
        lambda m: setattr(m, "Report", None),  # an owner on the way gone: everything under it absent
        lambda m: setattr(m, "Report", type("Report", (m.Base,), {})),  # an owner replaced by a look-alike
        # a decoy namespace planted as the module's "__mro__", holding the original, then the swap
        lambda m: (setattr(m, "__mro__", (types.SimpleNamespace(target=m.target),)), setattr(m, "target", m.other)),
        # what the plan of a warm fingerprint reads again, each kind of check in turn:
        lambda m: delattr(m, "target"),  # a name gone from its namespace
        lambda m: setattr(vars(m.Base)["build"], "__code__", m.other.__code__),  # a classmethod given code
        lambda m: setattr(m.hooked, "__code__", m.other.__code__),  # a function with attributes: its code
        lambda m: setattr(m.hooked, "fget", m.other),  # ... or a getter among them
        lambda m: setattr(m.Gen.seed, "__code__", m.other.__code__),  # a bound method's function's code
        lambda m: setattr(m.Report, "__code__", m.other.__code__),  # a class given code
        lambda m: setattr(m.Outcome, "__code__", m.other.__code__),  # an instance's class, likewise
        lambda m: sys.modules.__setitem__(PROBE, _probe()),  # the module replaced by a look-alike
    ],
)
def test_every_change_after_a_warm_fingerprint_shows(probe: types.ModuleType, change) -> None:  # noqa: ANN001
    baseline = tamper.fingerprint()
    tamper.digest(baseline)  # caches warm, as in a test process forked from its worker
    change(probe)
    after = tamper.fingerprint()
    assert tamper.changed(baseline, after)
    assert tamper.digest(after) == _digest(after) != _digest(baseline)


def test_a_warm_fingerprint_is_vouched_for_by_its_plan_until_something_changes(probe: types.ModuleType) -> None:
    baseline = tamper.fingerprint()
    plan = tamper._HELD[0][0]
    assert plan.unchanged()  # nothing changed: the full walk is not taken again
    assert tamper.fingerprint() == baseline and tamper._HELD[0][0] is plan
    probe.hooked.opts = {"trylast": True}  # an attribute no description reads: the plan still holds
    assert plan.unchanged()
    probe.Report.__bases__ = (type("Base", (), {}),)
    assert not plan.unchanged()
    assert tamper.changed(baseline, tamper.fingerprint())
    assert tamper._HELD[0][0] is not plan  # taken in full, and planned again


def test_a_module_whose_class_changed_is_fingerprinted_in_full(probe: types.ModuleType) -> None:
    baseline = tamper.fingerprint()
    decoy = {**vars(probe), "target": probe.other}

    class Decoy(types.ModuleType):
        __dict__ = property(lambda self: decoy)  # type: ignore[assignment]  # where vars() now looks

    probe.__class__ = Decoy
    assert tamper.changed(baseline, tamper.fingerprint()) == [f"{PROBE}:target"]


def test_a_name_a_module_lends_through_its_getattr_is_fingerprinted_in_full(probe: types.ModuleType) -> None:
    baseline = tamper.fingerprint()

    class Lazy(types.ModuleType):
        def __getattr__(self, name: str) -> object:
            return probe.other if name == "gone" else None

    probe.__class__ = Lazy  # "gone" now resolves through the class's __getattr__
    assert tamper.changed(baseline, tamper.fingerprint()) == [f"{PROBE}:gone"]
