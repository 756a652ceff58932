"""Verdicts decided outside the sandbox: attacks from inside the test process, each named after the
attack it stops. Every hostile payload runs only inside the bubblewrap sandbox.

The challenge: ``add`` must add. Every forger below ships a *wrong* ``add`` (it subtracts) plus code
that targets the grader from inside the test process. Before externalised assertions, each of these
reached static 100 with no tampering flag; now none passes a single test.
"""

from __future__ import annotations

import pytest

from bouts.models.results import Outcome
from bouts.runner import grade, reference_run
from bouts.sandbox import Sandbox

pytestmark = pytest.mark.sandbox

TESTS = {
    "visible": {
        "test_v.py": "from calc import add\n"
        "def test_adds():\n    assert add(1, 2) == 3\n"
        "def test_more():\n    assert add(2, 2) == 4\n"
    },
    "hidden": {
        "test_h.py": "import pytest\nfrom calc import add\n"
        "def test_seeded(bouts_seed):\n    assert add(bouts_seed, 1) == bouts_seed + 1\n"
        "def test_many(bouts_seed):\n"
        "    expected = [i + bouts_seed for i in range(5)]\n"
        "    assert [add(i, bouts_seed) for i in range(5)] == expected\n"
        "def test_rejects_text():\n    with pytest.raises(TypeError):\n        add('a', 1)\n"
    },
}
RIGHT = "def add(a, b):\n    return a + b\n"
WRONG = "def add(a, b):\n    return a - b\n"


def _challenge(make_challenge, code: str):  # noqa: ANN001, ANN202
    challenge, code_dir = make_challenge(TESTS, {"calc.py": code})
    ref = challenge.root / "reference"
    ref.mkdir()
    (ref / "calc.py").write_text(RIGHT)
    return challenge, code_dir


def _passed(report) -> list[str]:  # noqa: ANN001
    return [r.id.split("::")[-1] for r in report.results if r.outcome is Outcome.PASSED]


def test_an_honest_solution_passes_every_externalised_test(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = _challenge(make_challenge, RIGHT)
    report = grade(challenge, code, sandbox=bwrap, fresh_seed=99)
    assert sorted(_passed(report)) == ["test_adds", "test_many", "test_more", "test_rejects_text", "test_seeded"]
    counts = {c.suite: (c.externalised, c.total) for c in report.assertions}
    assert counts == {"visible": (2, 2), "hidden": (3, 3)}


def test_a_wrong_solution_fails_on_the_host_with_details_only_for_visible_tests(make_challenge, bwrap) -> None:
    challenge, code = _challenge(make_challenge, WRONG)
    report = grade(challenge, code, sandbox=bwrap, fresh_seed=99)
    by = {r.id.split("::")[-1]: r for r in report.results}
    assert _passed(report) == ["test_rejects_text"]  # "a" - 1 raises TypeError too
    assert "line 3" in by["test_adds"].detail and "-1" in by["test_adds"].detail
    assert by["test_seeded"].detail == "an assertion did not hold"  # hidden: no value, no source


def test_forged_passed_record_written_on_the_report_pipe_then_sigkill_does_not_pass(make_challenge, bwrap) -> None:
    # Walk the stack to the driver's frame, write one "passed" record (with the baseline digest)
    # on the test's own report pipe, and die before the real report is written.
    forger = WRONG + (
        "import os, signal, sys\n"
        "_real = add\n"
        "def add(a, b):\n"
        "    f = sys._getframe(1)\n"
        "    while f is not None and 'res_w' not in f.f_locals:\n"
        "        f = f.f_back\n"
        "    if f is not None:\n"
        "        from _bouts_driver import proto, tamper\n"
        "        plugin, item = f.f_locals['self'], f.f_locals['item']\n"
        "        rec = proto.result(item.nodeid, 'passed', 0.01, '')\n"
        "        rec.update(digest=tamper.digest(plugin.baseline), changed=[], observations=[], warnings=[])\n"
        "        proto.send(f.f_locals['res_w'], rec)\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        "    return _real(a, b)\n"
    )
    challenge, code = _challenge(make_challenge, forger)
    assert _passed(grade(challenge, code, sandbox=bwrap, fresh_seed=99)) == []


def test_forged_record_that_also_forges_observations_does_not_pass(make_challenge, bwrap) -> None:
    # The forger reports "passed" with the observations it can compute: its own (wrong) values and
    # whatever constants the rewritten test carries. The expected values are not there to copy.
    forger = WRONG + (
        "import sys\n"
        "from _bouts_driver import observe, worker\n"
        "def verdict(reports, exception, memory_mb):\n"
        "    return 'passed', ''\n"
        "worker.verdict = verdict\n"
        "_obs = observe.obs\n"
        "def obs(site, *thunks):\n"
        "    consts = [c for c in sys._getframe(1).f_code.co_consts if type(c) is int]\n"
        "    value = str(max(consts) if consts else 0)\n"
        "    observe.occurrences.append([site, {str(i): value for i in range(len(thunks))}])\n"
        "observe.obs = obs\n"
    )
    challenge, code = _challenge(make_challenge, forger)
    report = grade(challenge, code, sandbox=bwrap, fresh_seed=99)
    assert set(_passed(report)) <= {"test_rejects_text"}


def test_background_thread_swapping_test_code_for_a_no_op_does_not_pass(make_challenge, bwrap) -> None:
    forger = WRONG + (
        "import gc, threading, time\n"
        "def _noop():\n    pass\n"
        "def _swap():\n"
        "    for _ in range(200):\n"
        "        for f in gc.get_objects():\n"
        "            if type(f) is type(_noop) and f.__name__.startswith('test_'):\n"
        "                try:\n                    f.__code__ = _noop.__code__\n"
        "                except Exception:\n                    pass\n"
        "        time.sleep(0.005)\n"
        "threading.Thread(target=_swap, daemon=True).start()\n"
    )
    challenge, code = _challenge(make_challenge, forger)
    assert set(_passed(grade(challenge, code, sandbox=bwrap, fresh_seed=99))) <= {"test_rejects_text"}


def test_patching_the_per_test_verdict_while_sparing_canary_shaped_names_does_not_pass(
    make_challenge, bwrap
) -> None:
    forger = WRONG + (
        "import re\n"
        "from _bouts_driver import worker\n"
        "_verdict = worker.verdict\n"
        "def verdict(reports, exception, memory_mb):\n"
        "    nodeid = reports[0].nodeid if reports else ''\n"
        "    if re.search(r'test_[0-9a-f]{10}$', nodeid):\n"
        "        return _verdict(reports, exception, memory_mb)\n"
        "    return 'passed', ''\n"
        "worker.verdict = verdict\n"
    )
    challenge, code = _challenge(make_challenge, forger)
    assert set(_passed(grade(challenge, code, sandbox=bwrap, fresh_seed=99))) <= {"test_rejects_text"}


def test_an_always_equal_int_subclass_cannot_pass_a_comparison(make_challenge, bwrap) -> None:
    forger = (
        "class Yes(int):\n"
        "    def __eq__(self, other):\n        return True\n"
        "    __hash__ = int.__hash__\n"
        "def add(a, b):\n    return Yes(0)\n"
    )
    challenge, code = _challenge(make_challenge, forger)
    assert _passed(grade(challenge, code, sandbox=bwrap, fresh_seed=99)) == []


def test_values_the_host_cannot_decode_fail_their_tests_and_the_run_goes_on(make_challenge, bwrap) -> None:
    """A value built so that decoding it on the host would raise (a Fraction with an infinite
    numerator, left unchecked by its constructor) fails the tests that observed it; the others are
    decided and the run ends with its report (it used to end with the host's OverflowError)."""
    forger = (
        "from fractions import Fraction\n"
        "def add(a, b):\n"
        "    if a != 1:\n"
        "        return a + b\n"
        "    f = object.__new__(Fraction)\n"
        "    f._numerator, f._denominator = float('inf'), 1\n"
        "    return f\n"
    )
    challenge, code = _challenge(make_challenge, forger)
    report = grade(challenge, code, sandbox=bwrap, fresh_seed=99)
    by = {r.id.split("::")[-1]: r for r in report.results}
    assert by["test_adds"].outcome is Outcome.FAILED and "line 3" in by["test_adds"].detail
    assert by["test_many"].outcome is Outcome.FAILED  # add(1, seed) among its five
    assert sorted(_passed(report)) == ["test_more", "test_rejects_text", "test_seeded"]


def test_reading_the_expected_value_from_the_callers_code_finds_nothing(make_challenge, bwrap) -> None:
    # The classic: return the largest integer constant of the calling test's code object.
    forger = (
        "import sys\n"
        "def add(a, b):\n"
        "    f = sys._getframe(1)\n"
        "    while f is not None and not f.f_code.co_name.startswith(('test_', '<lambda>')):\n"
        "        f = f.f_back\n"
        "    consts = [c for c in f.f_code.co_consts if type(c) is int] if f else []\n"
        "    return max(consts) if consts else 0\n"
    )
    challenge, code = _challenge(make_challenge, forger)
    assert set(_passed(grade(challenge, code, sandbox=bwrap, fresh_seed=99))) <= {"test_rejects_text"}


def test_os_exit_zero_after_the_first_assertion_does_not_pass(make_challenge, bwrap) -> None:
    forger = "import os\ndef add(a, b):\n    os._exit(0)\n"
    challenge, code = _challenge(make_challenge, forger)
    assert _passed(grade(challenge, code, sandbox=bwrap, fresh_seed=99)) == []


def test_a_test_functions_code_swapped_after_collection_is_tampering(make_challenge, bwrap) -> None:
    # The same swap, from a thread started when the first test runs (after collection): the
    # fingerprint now covers each collected test's code, so the run is voided and flagged.
    forger = RIGHT + (
        "import gc, threading\n"
        "_started = []\n"
        "def _noop():\n    pass\n"
        "def _swap():\n"
        "    for f in gc.get_objects():\n"
        "        if type(f) is type(_noop) and f.__code__.co_filename.startswith('/workspace/tests/'):\n"
        "            try:\n                f.__code__ = _noop.__code__\n"
        "            except ValueError:\n                pass\n"
        "_real = add\n"
        "def add(a, b):\n"
        "    if not _started:\n"
        "        _started.append(1)\n"
        "        t = threading.Thread(target=_swap)\n"
        "        t.start()\n"
        "        t.join()\n"
        "    return _real(a, b)\n"
    )
    challenge, code = _challenge(make_challenge, forger)
    report = grade(challenge, code, sandbox=bwrap, fresh_seed=99)
    assert any("changed after it was collected" in t for t in report.tampering), report.tampering


def test_patching_a_per_test_driver_function_is_caught_by_the_fingerprint(make_challenge, bwrap) -> None:
    forger = WRONG + (
        "from _bouts_driver import worker\n"
        "_run = worker.WorkerPlugin._run_in_child\n"
        "def _run_in_child(self, item):\n"
        "    rec = _run(self, item)\n"
        "    rec.update(outcome='passed', detail='')\n"
        "    return rec\n"
        "worker.WorkerPlugin._run_in_child = _run_in_child\n"
    )
    challenge, code = _challenge(make_challenge, forger)
    report = grade(challenge, code, sandbox=bwrap, fresh_seed=99)
    assert _passed(report) == [] and any("_run_in_child" in t for t in report.tampering), report.tampering


def test_a_challenge_declared_working_path_is_where_the_code_and_tests_run(make_challenge, bwrap) -> None:
    # Grader detection by path: the code sits where the challenge says, an ordinary project path.
    from bouts.models.challenge import TestsConfig

    challenge, code = make_challenge(
        {"visible": {"test_w.py": "import os, where\ndef test_w():\n    assert where.here() == os.getcwd()\n"}},
        {"where.py": "import os\ndef here():\n    return os.path.dirname(os.path.abspath(__file__))\n"},
    )
    spec = challenge.spec.model_copy(update={"tests": TestsConfig(workdir="/home/dev/ledger")})
    challenge = challenge.model_copy(update={"spec": spec})
    ref = challenge.root / "reference"
    ref.mkdir()
    (ref / "where.py").write_text((code / "where.py").read_text())
    report = grade(challenge, code, sandbox=bwrap)
    assert _passed(report) == ["test_w"], report.results
    golden = reference_run(challenge, bwrap, seed=challenge.spec.tests.seed).occurrences
    assert "/home/dev/ledger" in str(golden) and "/workspace" not in str(golden)


@pytest.mark.parametrize("bad", ["workspace", "/usr/app", "/tmp/x", "/home/dev", "/srv/../etc", "/srv//x", "/a b"])
def test_a_working_path_that_would_hide_the_system_is_refused(bad: str) -> None:
    from pydantic import ValidationError

    from bouts.models.challenge import TestsConfig

    with pytest.raises(ValidationError, match="workdir"):
        TestsConfig(workdir=bad)


RECORDS = """
from dataclasses import dataclass


@dataclass
class Rec:
    seq: int
    sku: str
    qty: int
    note: str
    ok: bool


def rec(i):
    return Rec(i, f"sku-{i:06d}", i * 2, "received into stock", True)
"""


def test_a_test_observing_35000_records_of_five_fields_is_decided(make_challenge, bwrap: Sandbox) -> None:
    """The observations' size cap (``observe.MAX_TOTAL``) leaves room for tens of thousands of
    observed plain calls returning a small record (a scale test's loop; 35,000 of these texts are
    about 6.5 MB): such a test is decided on its values, not failed as an overflow."""
    from bouts.models.challenge import Limits

    loop = "from recs import rec\n\ndef test_scale():\n    for i in range(35_000):\n        r = rec(i)\n" \
           "    assert r.seq == 34_999\n"  # fmt: skip
    limits = Limits(test_timeout_s=60, suite_timeout_s=120, memory_mb=1024)
    wrong = RECORDS.replace("return Rec(i,", "return Rec(i if i < 34_999 else 0,")
    outcomes = []
    for code in (RECORDS, wrong):
        challenge, code_dir = make_challenge({"hidden": {"test_h.py": loop}}, {"recs.py": code}, limits=limits)
        (challenge.root / "reference").mkdir(exist_ok=True)
        (challenge.root / "reference" / "recs.py").write_text(RECORDS)
        report = grade(challenge, code_dir, sandbox=bwrap, fresh_seed=99)
        outcomes.append([(r.outcome, r.detail) for r in report.results])
    assert outcomes[0] == [(Outcome.PASSED, "")]
    assert outcomes[1][0][0] is Outcome.FAILED and "overflow" not in outcomes[1][0][1].lower()
