"""The reference's fresh-seed run is skipped only when its tests never read the seed (issue 17).

A golden (reference) run watches, per test and per worker's collection, every way the phase's seed
can reach a test (``_bouts_driver.seedwatch``); ``grade`` asks the reference again under the fresh
seed only when a hidden test (or a collection) may have read it. Each reader below uses one channel;
the plain tests touch everything around the seed without reading it.
"""

from __future__ import annotations

import pytest

from bouts.models.results import Outcome
from bouts.runner import RunOptions, _grade, grade
from bouts.runner._grade import Reference, _decoded
from bouts.runner._run import run_detailed
from bouts.sandbox import Sandbox

READERS = """
import os, random, subprocess, sys

def test_environ_item():
    assert os.environ["BOUTS_SEED"]

def test_getenv():
    assert os.getenv("BOUTS_SEED")

def test_environ_get_default():
    assert os.environ.get("BOUTS_SEED", "1") != "x"

def test_contains():
    assert "BOUTS_SEED" in os.environ

def test_copy_of_the_environment():
    assert len(dict(os.environ)) > 1

def test_items():
    assert any(k == "BOUTS_SEED" for k, _ in os.environ.items())

def test_repr_of_the_environment():
    assert "PATH" in repr(os.environ)

def test_environb():
    assert os.environb[b"BOUTS_SEED"]

def test_fixture(bouts_seed):
    assert bouts_seed > 0

def test_global_random_draw():
    assert 0 <= random.random() < 1

def test_global_shuffle():
    xs = list(range(5))
    random.shuffle(xs)
    assert sorted(xs) == [0, 1, 2, 3, 4]

def test_child_process():
    subprocess.run([sys.executable, "-c", "pass"], check=True)

def test_proc_environ():
    try:  # the sandbox may refuse it (the driver's processes are not dumpable): the attempt counts
        with open("/proc/self/environ", "rb") as fh:
            fh.read()
    except OSError:
        pass

def test_proc_cmdline_by_fd():
    try:
        os.close(os.open("/proc/1/cmdline", os.O_RDONLY))
    except OSError:
        pass

def test_ctypes():
    import ctypes
    assert ctypes.CDLL(None).getpid() > 0

def test_gc_walk():
    import gc
    assert gc.get_objects()
"""

PLAIN = """
import collections, json, os, random

Point = collections.namedtuple("Point", "x y")

def test_arithmetic():
    assert sum(range(10)) == 45

def test_own_generator():
    assert 0 <= random.Random(5).random() < 1

def test_another_variable():
    assert os.environ.get("HOME")
    assert os.getenv("NOT_THERE") is None

def test_namedtuple_and_files(tmp_path):
    p = tmp_path / "x.json"
    p.write_text(json.dumps(Point(1, 2)._asdict()))
    assert json.loads(p.read_text()) == {"x": 1, "y": 2}
"""


def _readers(make_challenge, bwrap: Sandbox, hidden: dict[str, str]) -> frozenset[str] | None:
    challenge, code = make_challenge({"hidden": hidden})
    run = run_detailed(challenge, code, sandbox=bwrap, seed=1234, assertions="golden", options=RunOptions(workers=1))
    failed = [(r.id, r.detail) for r in run.report.results if r.outcome is not Outcome.PASSED]
    assert run.report.results and not failed, failed
    return run.seed_readers


def test_each_way_to_the_seed_is_seen_and_nothing_else(make_challenge, bwrap: Sandbox) -> None:
    readers = _readers(make_challenge, bwrap, {"test_r.py": READERS, "test_p.py": PLAIN})
    names = {i.split("::")[1] for i in readers or ()}
    expected = {line[4:].split("(")[0] for line in READERS.splitlines() if line.startswith("def test_")}
    assert len(expected) == 16
    assert names == expected  # no collection ("") and none of the plain tests


def test_a_collection_that_reads_the_seed_makes_every_test_depend_on_it(make_challenge, bwrap: Sandbox) -> None:
    at_import = "import os\nN = int(os.environ['BOUTS_SEED']) % 3 + 1\n\ndef test_n():\n    assert N >= 1\n"
    readers = _readers(make_challenge, bwrap, {"test_i.py": at_import, "test_p.py": PLAIN})
    assert readers is not None and "" in readers


def test_hypothesis_counts_as_reading_the_seed(make_challenge, bwrap: Sandbox) -> None:
    pytest.importorskip("hypothesis")
    source = "from hypothesis import given, strategies as st\n\n@given(st.integers())\n" \
             "def test_h(n):\n    assert n == n\n"  # fmt: skip
    readers = _readers(make_challenge, bwrap, {"test_h.py": source})
    assert readers is not None and "" in readers


def test_only_the_reference_runs_are_watched(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge({"hidden": {"test_p.py": PLAIN}})
    for mode in ("inline", "external"):
        run = run_detailed(challenge, code, sandbox=bwrap, seed=1234, assertions=mode, options=RunOptions(workers=1))
        assert run.seed_readers is None


DOUBLE = "from calc import double\n"
SEEDED = DOUBLE + "import os\n\ndef test_seeded():\n    n = int(os.environ['BOUTS_SEED'])\n" \
                  "    assert double(n) == 2 * n\n"  # fmt: skip
UNSEEDED = DOUBLE + "def test_plain():\n    assert double(21) == 42\n"
VISIBLE = DOUBLE + "def test_v():\n    assert double(2) == 4\n"


def _graded(make_challenge, bwrap: Sandbox, monkeypatch, hidden: str, calc: str) -> tuple[dict, list]:
    """``grade`` of a submission against a challenge whose reference doubles; the suites of the
    reference runs it asked for."""
    challenge, code = make_challenge({"visible": {"test_v.py": VISIBLE}, "hidden": {"test_h.py": hidden}},
                                     {"calc.py": calc})  # fmt: skip
    (challenge.root / "reference").mkdir(exist_ok=True)
    (challenge.root / "reference" / "calc.py").write_text("def double(x):\n    return 2 * x\n")
    asked: list[tuple[str, ...]] = []
    real = _grade.reference_run

    def counting(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        select = kwargs.get("select")
        asked.append((*kwargs.get("suites", ("visible", "hidden")), *(i.split("::")[1] for i in select or ())))
        return real(*args, **kwargs)

    monkeypatch.setattr(_grade, "reference_run", counting)
    monkeypatch.setattr(_grade, "_MEMORY", {})
    report = grade(challenge, code, sandbox=bwrap, fresh_seed=77, options=RunOptions(workers=1))
    return {r.id.split("::")[1]: r.outcome for r in report.results}, asked


def test_grade_asks_the_reference_again_only_when_a_hidden_test_reads_the_seed(
    make_challenge, bwrap: Sandbox, monkeypatch
) -> None:  # fmt: skip
    honest = "def double(x):\n    return x + x\n"
    outcomes, asked = _graded(make_challenge, bwrap, monkeypatch, UNSEEDED, honest)
    assert asked == [("visible", "hidden")]  # seed-free: the published run's values serve both phases
    assert set(outcomes.values()) == {Outcome.PASSED}

    outcomes, asked = _graded(make_challenge, bwrap, monkeypatch, SEEDED, honest)
    assert asked == [("visible", "hidden"), ("hidden", "test_seeded")]  # the values depend on the seed
    assert set(outcomes.values()) == {Outcome.PASSED}

    both = SEEDED + "\n" + UNSEEDED.replace(DOUBLE, "")
    outcomes, asked = _graded(make_challenge, bwrap, monkeypatch, both, honest)
    assert asked == [("visible", "hidden"), ("hidden", "test_seeded")]  # only the test that reads it
    assert set(outcomes.values()) == {Outcome.PASSED} and len(outcomes) == 3

    hard_coded = "def double(x):\n    return {1234: 2468, 2: 4, 21: 42}.get(x, 0)\n"  # the published answers only
    outcomes, asked = _graded(make_challenge, bwrap, monkeypatch, both, hard_coded)
    assert outcomes == {"test_v": Outcome.PASSED, "test_plain": Outcome.PASSED, "test_seeded": Outcome.FAILED}


def test_a_submission_that_depends_on_the_seed_where_the_reference_does_not_fails(
    make_challenge, bwrap: Sandbox, monkeypatch
) -> None:  # fmt: skip
    """The fresh phase is held to the published run's values when the reference never read the seed:
    an answer that changes with the seed cannot match them in both phases."""
    # Read from a copy of the environment: a read of BOUTS_SEED by name is test-environment detection
    # seen at run time (every test voided, docs/sandbox.md "Grader context"); the copy is not, and
    # the fresh phase is what catches it.
    tracks = "import os\n\ndef double(x):\n    return 2 * x if dict(os.environ)['BOUTS_SEED'] == '1234' else 0\n"
    outcomes, asked = _graded(make_challenge, bwrap, monkeypatch, UNSEEDED, tracks)
    assert asked == [("visible", "hidden")]
    assert outcomes["test_v"] is Outcome.PASSED  # visible: published seed only
    assert outcomes["test_plain"] is Outcome.FAILED  # hidden: the fresh phase's value is not the golden one


def test_the_cached_reference_keeps_what_it_saw() -> None:
    stored = {"ids": ["a::t"], "observations": {}, "occurrences": {"a::t": [1]}, "seed_readers": ["", "a::t"]}
    ref = _decoded(stored)
    assert ref == Reference(("a::t",), {}, {"a::t": (1,)}, frozenset({"", "a::t"}))
    assert not ref.seed_free(lambda i: True)
    assert _decoded({**stored, "seed_readers": None}).seed_readers is None  # type: ignore[union-attr]
    assert _decoded({k: v for k, v in stored.items() if k != "seed_readers"}) is None  # an older entry: a miss
    free = Reference(("a::t", "b::u"), {}, {}, frozenset({"b::u"}))
    assert free.seed_free(lambda i: i.startswith("a")) and not free.seed_free(lambda i: i.startswith("b"))
    assert not Reference((), {}, {}, None).seed_free(lambda i: True)
