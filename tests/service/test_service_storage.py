"""Storage: the migrations and the models agree (SQLite and PostgreSQL), and the guarded state
machine holds: one claim completes, stale claims write nothing, a scorecard and its state change
land together or not at all, re-scores keep history."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from service_helpers import CHALLENGE, tiny_submission
from sqlalchemy import func, inspect, select

from bouts.calibration.review import ReviewError, decide, escalate, open_item
from bouts.calibration.store import ReviewConflictError
from bouts.models.scorecard import FlagModel
from bouts.pipeline import ScoreConfig
from bouts.service.fakes import instant_scorer
from bouts.service.jobs import run_job
from bouts.service.storage import Repository, open_repository
from bouts.service.storage.models import Base, ScorecardRow, SubmissionRow

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def _schema_diff(url: str) -> list[object]:
    repo = open_repository(url)
    try:
        with repo.engine.connect() as conn:
            return list(compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), Base.metadata))
    finally:
        repo.close()


def test_migrations_match_models_sqlite(tmp_path: Path) -> None:
    assert _schema_diff(f"sqlite:///{tmp_path / 'db.sqlite'}") == []


@pytest.mark.postgres
def test_migrations_match_models_postgres(pg_url: str) -> None:
    assert _schema_diff(pg_url) == []
    # migrating again (another process starting) is a no-op
    assert _schema_diff(pg_url) == []


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def repo(request: pytest.FixtureRequest, tmp_path: Path) -> Repository:
    url = f"sqlite:///{tmp_path / 'db.sqlite'}" if request.param == "sqlite" else request.getfixturevalue("pg_url")
    repository = open_repository(url)
    request.addfinalizer(repository.close)
    assert "submissions" in inspect(repository.engine).get_table_names()
    return repository


def _submission(repo: Repository, tmp_path: Path, agent: str = "a", iteration: int = 1) -> str:
    info, _ = repo.catalog.register_version(slug="inventory-ledger", title="t", family="default", profile="composite",
                                            content_hash="h1", path=str(CHALLENGE), source_path=str(CHALLENGE),
                                            registered_by="test")  # fmt: skip
    archive = tmp_path / f"{agent}-{iteration}.tar.gz"
    archive.write_bytes(tiny_submission(agent, iteration))
    sid = f"{agent:0<8}{iteration:0>24}"[:32].encode().hex()[:32]
    repo.submissions.create(submission_id=sid, challenge_version_id=info.version_id, agent=agent, iteration=iteration,
                            elapsed_s=1.0, content_hash="c", archive_path=str(archive), submitted_by=None)  # fmt: skip
    return sid


def _card(repo: Repository, sid: str):  # type: ignore[no-untyped-def]
    info = repo.submissions.get(sid)
    assert info is not None
    return instant_scorer(Path(info.challenge_path), Path(info.archive_path), ScoreConfig())


def test_only_the_latest_claim_completes(repo: Repository, tmp_path: Path) -> None:
    sid = _submission(repo, tmp_path)
    first = repo.submissions.claim(sid)
    second = repo.submissions.claim(sid)  # a redelivered task: the first worker is presumed dead
    assert first and second and second.attempt == first.attempt + 1
    card = _card(repo, sid)
    assert repo.submissions.complete(first, card) is False
    assert repo.submissions.complete(second, card) is True
    assert repo.submissions.complete(second, card) is False
    assert repo.submissions.claim(sid) is None  # scored: never claimed again
    with repo.engine.connect() as conn:
        assert conn.scalar(select(func.count()).select_from(ScorecardRow)) == 1
    assert repo.submissions.get(sid).state == "scored"  # type: ignore[union-attr]


def test_scorecard_and_state_change_are_one_transaction(repo: Repository, tmp_path: Path) -> None:
    """A failure while writing the scorecard leaves the submission running and no scorecard."""
    sid = _submission(repo, tmp_path)
    claim = repo.submissions.claim(sid)
    assert claim
    card = _card(repo, sid).model_copy(update={"components": {"x": None}})  # breaks while inserting components
    with pytest.raises(AttributeError):
        repo.submissions.complete(claim, card)
    assert repo.submissions.get(sid).state == "running"  # type: ignore[union-attr]
    with repo.engine.connect() as conn:
        assert conn.scalar(select(func.count()).select_from(ScorecardRow)) == 0
        assert conn.scalar(select(SubmissionRow.state)) == "running"


def test_infra_failures_are_retried_then_failed_never_scored(repo: Repository, tmp_path: Path) -> None:
    sid = _submission(repo, tmp_path)

    def broken(challenge: Path, submission: Path, config: ScoreConfig):  # type: ignore[no-untyped-def]
        return instant_scorer(challenge, submission, config).model_copy(update={"infra_error": "bwrap died"})

    kinds = [run_job(repo, sid, scorer=broken, config=ScoreConfig(), max_attempts=3).kind for _ in range(4)]
    assert kinds == ["retry", "retry", "failed_infra", "skipped"]
    info = repo.submissions.get(sid)
    assert info and info.state == "failed_infra" and info.last_error == "bwrap died" and info.final is None
    assert repo.submissions.scorecard(sid) is None


def test_rescore_keeps_history(repo: Repository, tmp_path: Path) -> None:
    sid = _submission(repo, tmp_path)
    assert run_job(repo, sid, scorer=instant_scorer, config=ScoreConfig(), max_attempts=1).kind == "scored"
    before = repo.submissions.scorecard(sid)
    assert before and before.version == 1
    new = _card(repo, sid).model_copy(update={"final": 12})
    assert repo.submissions.rescore(sid, new, reason="level-3 arbitration", by="ops@bouts") == 2
    assert [s.version for s in repo.submissions.scorecard_history(sid)] == [1, 2]
    current = repo.submissions.scorecard(sid)
    assert current and current.version == 2 and current.card["final"] == 12 and current.reason == "level-3 arbitration"
    assert repo.submissions.scorecard(sid, 1).card["final"] == before.card["final"]  # type: ignore[union-attr]
    assert repo.submissions.get(sid).final == 12  # type: ignore[union-attr]
    assert [a.final for a in repo.submissions.attempts("inventory-ledger")] == [12]


def test_sql_review_store_keeps_the_calibration_contract(repo: Repository, tmp_path: Path) -> None:
    """The same contract as bouts.calibration.store's stores: stale writes and rewritten history refused."""
    sid = _submission(repo, tmp_path)
    flagged = _card(repo, sid).model_copy(update={"flags": [FlagModel(code="judge_divergence", message="Δ 60")]})
    item = open_item(flagged, actor="bouts", at=T0)
    assert item is not None
    store = repo.reviews
    store.put(item, expected_version=None)
    with pytest.raises(ReviewConflictError):
        store.put(item, expected_version=None)
    a = escalate(item, actor="a", at=T0, reason="first")
    store.put(a, expected_version=item.version)
    b = decide(item, actor="b", at=T0, reason="raced", score=10)
    with pytest.raises(ReviewConflictError):
        store.put(b, expected_version=item.version)  # b read the item before a wrote
    forged = a.model_copy(update={"history": (a.history[0].model_copy(update={"reason": "edited"}), *a.history[1:])})
    with pytest.raises(ReviewError, match="append-only"):
        store.put(decide(forged, actor="c", at=T0, reason="r", score=1), expected_version=a.version)
    assert store.get(item.id) == a and store.list(status="open") == [a] and store.list(challenge="other") == []
    assert store.list(level=2) == [a] and store.list(level=1) == []
