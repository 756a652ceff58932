"""Generated tests have their own time budget: bounded by example count, with a per-test timeout of
their own (``[adversarial] test_timeout_s``), so a challenge's small ``[limits] test_timeout_s``
cannot time them out while a hanging submission still times out."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bouts.adversarial import run_generated
from bouts.adversarial._run import GENERATED_SUITE_TESTS, generated_limits
from bouts.errors import ChallengeError
from bouts.loading import load_challenge
from bouts.models.challenge import AdversarialConfig, Challenge, ChallengeSpec, Limits
from bouts.models.results import Outcome
from bouts.sandbox import get_sandbox

LEAGUE = Path(__file__).resolve().parents[2] / "examples" / "league-table"


def make_challenge(test_timeout_s: float, generated_timeout_s: float) -> Challenge:
    spec = ChallengeSpec(id="budget", title="Budget", limits=Limits(test_timeout_s=test_timeout_s, suite_timeout_s=5),
                         adversarial=AdversarialConfig(test_timeout_s=generated_timeout_s))  # fmt: skip
    return Challenge(root=Path("/nonexistent"), spec=spec, content_hash="c" * 64, suite_hashes={}, test_files={})


def test_generated_tests_get_their_own_timeout_and_a_suite_budget_of_several() -> None:
    limits = generated_limits(make_challenge(0.05, 7)).spec.limits
    assert limits.test_timeout_s == 7
    assert limits.suite_timeout_s == GENERATED_SUITE_TESTS * 7  # never under a few generated timeouts
    assert generated_limits(make_challenge(2, 7)).spec.limits.memory_mb == Limits().memory_mb
    assert AdversarialConfig().test_timeout_s == 30


@pytest.mark.parametrize(
    ("setting", "field", "message"),
    [('invalid_input = "rejected"\ntest_timeout_s = 0', "adversarial.test_timeout_s", "greater than 0"),
     ('invalid_input = "strict"', "adversarial.invalid_input", "'out-of-scope' or 'rejected'")],
)  # fmt: skip
def test_a_bad_adversarial_setting_names_the_file_and_the_field(
    tmp_path: Path, setting: str, field: str, message: str
) -> None:
    root = tmp_path / "ch"
    shutil.copytree(LEAGUE, root)
    toml = root / "challenge.toml"
    toml.write_text(toml.read_text().replace('invalid_input = "rejected"', setting))
    with pytest.raises(ChallengeError) as err:
        load_challenge(root)
    assert err.value.field == field and err.value.file.endswith("challenge.toml")
    assert message in err.value.describe()


@pytest.mark.sandbox
def test_a_tiny_challenge_timeout_does_not_time_out_generated_tests_but_a_hang_still_times_out(
    tmp_path: Path,
) -> None:
    root = tmp_path / "challenge"
    reference = "def pick(items, i):\n    return items[i]\n\ndef spin(n):\n    return n + 1\n"
    for rel, text in (("reference/calc.py", reference), ("starter/calc.py", reference),
                      ("tests/visible/test_calc.py", "from calc import *\n\ndef test_calc():\n"
                                                      "    assert pick([1, 2, 3], 1) == 2\n    assert spin(1) == 2\n"),
                      ("tests/hidden/test_more.py", "from calc import *\n\ndef test_more():\n"
                                                    "    assert spin(2) == 3\n"),
                      ("code/calc.py", reference.replace("    return n + 1", "    while True:\n        n = n + 1"))):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "challenge.toml").write_text('id = "budget"\ntitle = "Budget"\n\n[limits]\ntest_timeout_s = 0.05\n'
                                         'suite_timeout_s = 5\n\n[adversarial]\ntest_timeout_s = 3\n')
    # 50 ms would time out any generated test; the generated tests' own 3 s applies instead.
    run = run_generated(load_challenge(root), root / "code", sandbox=get_sandbox("bubblewrap"), seed=5)
    outcomes = {(t.entry, r.outcome) for t, r in run.outcomes()}
    assert {o for e, o in outcomes if e == "calc:pick"} == {Outcome.PASSED}
    spins = [r for t, r in run.outcomes() if t.entry == "calc:spin"]
    assert spins and all(r.outcome is not Outcome.PASSED for r in spins)
    assert any("CPU budget" in r.detail or "3 s" in r.detail for r in spins), [r.detail for r in spins]
