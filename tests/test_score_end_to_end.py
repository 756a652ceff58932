"""`bouts score` end to end through the real bubblewrap sandbox."""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bouts.cli.main import app
from bouts.models.results import Outcome
from bouts.pipeline import score

pytestmark = pytest.mark.sandbox

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "inventory-ledger"


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


CHALLENGE_TOML = """
id = "tiny-calc"
title = "Tiny calculator"
profile = "engine"
[limits]
test_timeout_s = 2
suite_timeout_s = 60
memory_mb = 256
max_processes = 16
[adversarial]
# This fixture is about the runner (timeouts, memory, archives): generation is off so these tests
# measure the runner alone; the inventory-ledger tests below exercise generation.
generate = false
"""

TESTS = {
    "tests/visible/test_calc.py": "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    "tests/hidden/test_calc_hidden.py": (
        "from calc import add\n\n"
        "def test_add_swapped():\n    assert add(3, 2) == 5\n\n"
        "def test_add_negative():\n    assert add(-2, -3) == -5\n"
    ),
    "tests/adversarial/test_calc_adv.py": (
        "import pytest\nfrom calc import add\n\n"
        "@pytest.mark.severity('high')\ndef test_rejects_strings():\n"
        "    with pytest.raises(TypeError):\n        add('a', 1)\n"
    ),
}

GOOD = """\
def add(a, b):
    if not all(isinstance(x, int) for x in (a, b)):
        raise TypeError('ints')
    return a + b
"""


@pytest.fixture
def tiny_challenge(tmp_path: Path) -> Path:
    root = tmp_path / "challenge"
    write(
        root,
        {
            "challenge.toml": CHALLENGE_TOML,
            "starter/calc.py": "def add(a, b):\n    return 0\n",
            "reference/calc.py": GOOD,
            **TESTS,
        },
    )
    return root


def submission(tmp_path: Path, code: str, name: str = "sub") -> Path:
    return write(
        tmp_path / name,
        {
            "submission.toml": 'agent = "tester"\nchallenge = "tiny-calc"\niteration = 1\n',
            "code/calc.py": code,
        },
    )


def test_the_examples_reference_solution_passes_every_test(tmp_path: Path) -> None:
    ref = write(tmp_path / "ref", {"submission.toml": 'agent = "reference"\nchallenge = "inventory-ledger"\n'})
    shutil.copytree(EXAMPLE / "reference", ref / "code")
    card = score(EXAMPLE, ref)
    assert card.tests, "the run reported no tests"
    assert all(t.outcome is Outcome.PASSED for t in card.tests), [t for t in card.tests if t.outcome != "passed"]
    assert card.components["static_tests"].score == 100.0
    assert card.components["adversarial"].score == 100.0
    assert card.components["stability"].score == 100.0
    # Generation is on by default: the reference passes every test generated from its own code too.
    generated = card.generated_adversarial
    assert generated is not None and generated.tests, "no adversarial tests were generated"
    failed = [t for t in generated.tests if t.outcome is not Outcome.PASSED]
    assert not failed, failed
    assert card.components["adversarial"].math[-1] == "adversarial = 0.4×100 (pre-built) + 0.6×100 (generated) = 100"


def test_the_examples_low_anchor_scores_what_its_expected_file_says_and_below_the_high_anchor() -> None:
    import tomllib

    low = score(EXAMPLE, EXAMPLE / "anchors" / "low")
    high = score(EXAMPLE, EXAMPLE / "anchors" / "high")
    expected = tomllib.loads((EXAMPLE / "anchors" / "low" / "expected.toml").read_text())["expected"]
    assert low.components["static_tests"].score == pytest.approx(expected["static_tests"])
    # within the launch tolerance (bouts check, ±10): the tests generated from the anchor's own code
    # (docs/adversarial.md, "Tests from the submitted code") moved it from the expected 46.94
    assert low.components["adversarial"].score == pytest.approx(expected["adversarial"], abs=10)
    # 0.4 x the pre-built half + 0.6 x the generated half (reference oracle and the tests from the
    # submitted code), of which the low anchor passes 19/36 of the weight
    assert low.components["adversarial"].math[-1] == (
        "adversarial = 0.4×37.5 (pre-built) + 0.6×52.777778 (generated) = 46.666667")
    assert low.components["objective"].score == pytest.approx(expected["objective"], abs=10)  # it holds adversarial
    assert low.final == expected["final"]
    assert low.components["static_tests"].score < 100
    assert low.components["deliverables"].score == 0.0  # its ROOT_CAUSE.md is a TODO placeholder
    assert high.raw is not None and low.raw is not None and low.raw < high.raw


def test_an_infinite_loop_is_stopped_by_the_per_test_timeout_and_scored(tiny_challenge: Path, tmp_path: Path) -> None:
    code = (
        GOOD
        + """
_real = add
def add(a, b):
    if a == 3:
        while True:
            pass
    return _real(a, b)
"""
    )
    card = score(tiny_challenge, submission(tmp_path, code))
    outcomes = {t.id.rsplit("::", 1)[1]: t.outcome for t in card.tests}
    assert outcomes["test_add_swapped"] is Outcome.TIMEOUT
    assert outcomes["test_add"] is Outcome.PASSED
    assert card.components["static_tests"].score == pytest.approx(200 / 3, abs=1e-4)
    assert card.components["stability"].score == 0.0
    assert card.final is not None


def test_unbounded_allocation_is_stopped_by_the_memory_limit_and_scored(tiny_challenge: Path, tmp_path: Path) -> None:
    code = (
        GOOD
        + """
_real = add
def add(a, b):
    if a == -2:
        hog = []
        while True:
            hog.append(bytearray(50_000_000))
    return _real(a, b)
"""
    )
    card = score(tiny_challenge, submission(tmp_path, code))
    outcomes = {t.id.rsplit("::", 1)[1]: t.outcome for t in card.tests}
    assert outcomes["test_add_negative"] in (Outcome.CRASHED, Outcome.FAILED, Outcome.ERROR)
    assert outcomes["test_add"] is Outcome.PASSED and outcomes["test_add_swapped"] is Outcome.PASSED
    assert card.final is not None


def test_a_submission_archive_scores_like_its_directory(tiny_challenge: Path, tmp_path: Path) -> None:
    sub = submission(tmp_path, GOOD)
    archive = tmp_path / "sub.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(sub, arcname="sub")
    from_dir = score(tiny_challenge, sub)
    from_archive = score(tiny_challenge, archive)
    assert from_dir.components["static_tests"].score == from_archive.components["static_tests"].score == 100
    assert from_dir.final == from_archive.final == 100
    assert from_dir.reproducibility.submission_hash == from_archive.reproducibility.submission_hash


def test_cli_score_json_prints_the_scorecard(tiny_challenge: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["score", str(tiny_challenge), str(submission(tmp_path, GOOD)), "--json"])
    assert result.exit_code == 0, result.output
    card = json.loads(result.stdout)
    assert card["schema"] == "bouts.scorecard/1"
    assert card["components"]["static_tests"]["score"] == 100.0
    assert card["profile"] == "engine" and card["profiles"]["engine"] == card["final"]
    # No trajectory in this submission: the trajectory judges abstain, with the reason, never a 0.
    assert card["components"]["process"]["score"] is None
    assert "no trajectory" in card["components"]["process"]["reason"]
    assert card["components"]["code_quality"]["score"] is not None
    assert {"quality-lint", "security-offline"} <= set(card["reproducibility"]["judges"])


def test_cli_score_names_the_file_and_field_of_a_bad_submission(tiny_challenge: Path, tmp_path: Path) -> None:
    sub = write(
        tmp_path / "bad",
        {"submission.toml": 'agent = "x"\nchallenge = "tiny-calc"\niteration = "two"\n', "code/calc.py": GOOD},
    )
    result = CliRunner().invoke(app, ["score", str(tiny_challenge), str(sub)])
    assert result.exit_code == 2
    assert "submission.toml" in result.output and "iteration" in result.output
    assert "Traceback" not in result.output


ROOM_BOOKINGS = EXAMPLE.parent / "room-bookings"
PG_DSN = "host=/var/run/postgresql dbname=test user=postgres"


@pytest.mark.postgres
def test_a_challenge_using_postgres_runs_every_test_on_both_backends(tmp_path: Path) -> None:
    if not Path("/var/run/postgresql/.s.PGSQL.5432").exists():
        pytest.skip("no PostgreSQL socket at /var/run/postgresql")
    from bouts.pipeline import ScoreConfig

    ref = write(tmp_path / "ref", {"submission.toml": 'agent = "reference"\nchallenge = "room-bookings"\n'})
    shutil.copytree(ROOM_BOOKINGS / "reference", ref / "code")
    sqlite_only = score(ROOM_BOOKINGS, ref, config=ScoreConfig(judges=()))
    both = score(
        ROOM_BOOKINGS, ref,
        config=ScoreConfig(judges=(), postgres_dsn=PG_DSN, postgres_socket_dir=Path("/var/run/postgresql")),
    )  # fmt: skip
    assert all(t.outcome is Outcome.PASSED for t in both.tests)
    assert len(both.tests) == 2 * len(sqlite_only.tests)
    assert any(t.id.endswith("[postgres]") for t in both.tests)
    assert not any(t.id.endswith("[postgres]") for t in sqlite_only.tests)


@pytest.mark.parametrize(
    ("dsn", "needle"),
    [("host=localhost dbname=test user=postgres", "no network"), ("host=/var/run/postgresql dbname=test", "user")],
)
def test_a_postgres_dsn_the_sandbox_cannot_use_is_refused(tiny_challenge: Path, tmp_path: Path, dsn: str, needle: str):
    result = CliRunner().invoke(app, ["score", str(tiny_challenge), str(submission(tmp_path, GOOD)), "--postgres", dsn])
    assert result.exit_code == 2 and needle in result.output and "postgres" in result.output


@pytest.mark.parametrize("session", ["own", "graded"])
def test_a_sandbox_that_breaks_under_the_generated_tests_is_an_infrastructure_failure(
    tiny_challenge: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, session: str
) -> None:
    # The generated tests run in a session of their own beside the graded run (a thread; here: with a
    # seed of their own), or in the graded session's first phase: their sandbox failure must still
    # end as the scorecard's infra_error, never as an exception out of score() or a score for the agent.
    import bouts.pipeline
    from bouts.errors import SandboxError
    from bouts.pipeline import ScoreConfig

    def broken(*args: object, **kwargs: object) -> object:
        raise SandboxError("bwrap: the generated tests' sandbox died")

    real = bouts.pipeline.grade_with
    parts: list[object] = []

    def breaks_with_part(*args: object, part: object = None, **kwargs: object) -> object:
        parts.append(part)
        return broken() if part is not None else real(*args, **kwargs)

    monkeypatch.setattr("bouts.pipeline.run_generated", broken)
    monkeypatch.setattr("bouts.pipeline.grade_with", breaks_with_part)
    own_seed = {"adversarial_seed": 99} if session == "own" else {}
    card = score(tiny_challenge, submission(tmp_path, GOOD),
                 config=ScoreConfig(adversarial_generation=True, **own_seed))  # fmt: skip
    assert card.infra_error is not None and "generated tests' sandbox died" in card.infra_error
    assert card.final is None
    assert (parts[0] is not None) == (session == "graded")


def test_generated_tests_score_alike_in_the_graded_session_and_in_their_own(
    tiny_challenge: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Python, the published seed: the generated tests run in the graded session's first phase. A file
    # that imports hypothesis keeps them in a session of their own (forced here): the same scorecard.
    import bouts.pipeline
    from bouts.adversarial._run import Prepared
    from bouts.pipeline import ScoreConfig

    real = bouts.pipeline.grade_with
    parts: list[object] = []

    def recording(*args: object, part: object = None, **kwargs: object) -> object:
        parts.append(part)
        return real(*args, part=part, **kwargs)

    monkeypatch.setattr("bouts.pipeline.grade_with", recording)
    config = ScoreConfig(adversarial_generation=True, fresh_seed=777, cache_dir=tmp_path / "cache")
    shared = score(tiny_challenge, submission(tmp_path, GOOD, "a"), config=config)
    monkeypatch.setattr(Prepared, "draws", lambda self: True)
    alone = score(tiny_challenge, submission(tmp_path, GOOD, "b"), config=config)
    assert parts[0] is not None and parts[1] is None
    assert shared.generated_adversarial is not None and alone.generated_adversarial is not None
    assert shared.generated_adversarial == alone.generated_adversarial
    assert shared.final == alone.final and shared.components == alone.components
