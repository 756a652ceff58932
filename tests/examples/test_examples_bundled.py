"""The bundled challenges league-table, room-bookings and rate-limiter-js, scored end to end through
the sandbox: the reference passes every test, the anchors order low < mid < high on the final score
with the adversarial component their expected.toml states (generated tests included), the false
summit's low anchor (a lookup table) passes every visible test and fails the hidden ones, and the
JavaScript challenge's generated half is not scored while its pre-built half stands alone.
Each score takes a few seconds, so there are few tests here."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from bouts.loading import load_challenge
from bouts.models.results import Outcome
from bouts.pipeline import ScoreConfig, score
from bouts.runner import RunOptions, grade, run_suites
from bouts.sandbox import get_sandbox

pytestmark = pytest.mark.sandbox

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PG_SOCKET_DIR = Path("/var/run/postgresql")
CONFIG = ScoreConfig(sandbox="bubblewrap")


def _reference_submission(challenge: str, tmp_path: Path) -> Path:
    sub = tmp_path / "reference"
    shutil.copytree(EXAMPLES / challenge / "reference", sub / "code")
    (sub / "submission.toml").write_text(f'agent = "reference"\nchallenge = "{challenge}"\n')
    return sub


@pytest.mark.parametrize("challenge", ["league-table", "room-bookings"])
def test_reference_passes_everything_and_anchors_are_ordered(challenge: str, tmp_path: Path) -> None:
    root = EXAMPLES / challenge
    ref = score(root, _reference_submission(challenge, tmp_path), config=CONFIG)
    assert ref.tests and all(t.outcome is Outcome.PASSED for t in ref.tests)
    finals = {}
    for level in ("low", "mid", "high"):
        card = score(root, root / "anchors" / level, config=CONFIG)
        expected = _expected(challenge, level)
        # 0.4 x the pre-built half + 0.6 x the generated half (or the pre-built half alone), within
        # bouts check's ±10: the tests generated from each anchor's own code (docs/adversarial.md,
        # "Tests from the submitted code") moved league-table's from its expected.toml, not past it
        adversarial = card.components["adversarial"]
        assert adversarial.score == pytest.approx(expected["adversarial"], abs=10), (level, adversarial.math)
        finals[level] = card.final
    assert finals["low"] < finals["mid"] < finals["high"], finals


def _expected(challenge: str, level: str) -> dict[str, float]:
    return tomllib.loads((EXAMPLES / challenge / "anchors" / level / "expected.toml").read_text())["expected"]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_javascript_anchors_get_generated_tests_where_the_exported_api_reaches_a_target() -> None:
    root = EXAMPLES / "rate-limiter-js"
    finals, cards = {}, {}
    for level in ("low", "mid", "high"):
        card = cards[level] = score(root, root / "anchors" / level, config=CONFIG)
        adversarial = card.components["adversarial"]
        assert adversarial.score == pytest.approx(_expected("rate-limiter-js", level)["adversarial"])
        assert card.generated_adversarial is not None and card.generated_adversarial.analyser.startswith("js-")
        finals[level] = card.final
    # The low anchor's plain-object map crashes on hit("__proto__") from inside an operation.
    low = cards["low"].generated_adversarial
    assert low is not None and any(t.outcome == "failed" and t.param == "key" for t in low.tests), low.tests
    assert "(generated)" in cards["low"].components["adversarial"].math[-1]
    for level in ("mid", "high"):  # nothing the exported API reaches: the pre-built half stands alone
        assert cards[level].components["adversarial"].math[-1].endswith(
            "(adversarial-gen: the analysis found nothing the generator could probe): pre-built only"
        )
    assert finals["low"] < finals["mid"] < finals["high"], finals


def test_false_summit_low_anchor_is_the_hard_coded_solution() -> None:
    challenge = load_challenge(EXAMPLES / "league-table")
    report = grade(challenge, challenge.anchors["low"] / "code", sandbox=get_sandbox("bubblewrap"))
    by_suite: dict[str, list[Outcome]] = {}
    for result in report.results:
        by_suite.setdefault(result.suite, []).append(result.outcome)
    assert set(by_suite["visible"]) == {Outcome.PASSED}
    hidden = by_suite["hidden"]
    assert hidden.count(Outcome.PASSED) <= 1 and len(hidden) >= 2 * len(by_suite["visible"])


@pytest.mark.postgres
@pytest.mark.skipif(not (PG_SOCKET_DIR / ".s.PGSQL.5432").exists(), reason="no local PostgreSQL socket")
def test_room_bookings_reference_passes_on_postgresql_too() -> None:
    challenge = load_challenge(EXAMPLES / "room-bookings")
    options = RunOptions(
        postgres="host=/var/run/postgresql dbname=test user=postgres", postgres_socket_dir=PG_SOCKET_DIR
    )
    # run_suites, not grade: grade's in-memory reference cache is keyed by challenge and seed only,
    # so a reference run without PostgreSQL earlier in this process would hide the [postgres] ids.
    report = run_suites(challenge, challenge.reference, sandbox=get_sandbox("bubblewrap"), options=options)
    ids = [r.id for r in report.results]
    assert any("[postgres]" in i for i in ids) and any("[sqlite]" in i for i in ids)
    assert all(r.outcome is Outcome.PASSED for r in report.results), [
        (r.id, r.outcome, r.detail) for r in report.results if r.outcome is not Outcome.PASSED
    ]
