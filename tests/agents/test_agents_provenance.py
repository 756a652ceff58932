"""Recorded beats uploaded: a scorecard says where its trajectory came from, a submission cannot
claim to be recorded, and a leaderboard can count recorded runs only."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from service_helpers import OPERATOR_KEY, agent_key, force_open, tiny_submission, wait_terminal

from bouts.errors import SubmissionError
from bouts.loading import load_submission
from bouts.models.scorecard import Recording, Scorecard, TrajectoryProvenance
from bouts.models.trajectory import Event, Trajectory
from bouts.pipeline import ScoreConfig
from bouts.service.api import create_app
from bouts.service.config import ServiceSettings
from bouts.service.fakes import instant_scorer
from bouts.service.standings import standings
from bouts.service.storage.records import AttemptRow

CHALLENGE = Path(__file__).resolve().parents[2] / "examples" / "inventory-ledger"
TRAJECTORY = Trajectory(harness="canonical", events=[Event(t=0, kind="run", command="pytest")])


def test_provenance_names_who_recorded_the_trajectory() -> None:
    recording = Recording(recorded_by="inspect-ai", harness="inspect-ai")
    assert TrajectoryProvenance.of(TRAJECTORY, recording).model_dump() == {
        "source": "recorded", "recorded_by": "inspect-ai", "harness": "inspect-ai", "events": 1}  # fmt: skip
    assert TrajectoryProvenance.of(TRAJECTORY, None).model_dump() == {
        "source": "uploaded", "recorded_by": None, "harness": "canonical", "events": 1}  # fmt: skip
    assert TrajectoryProvenance.of(None, None).source == "none"


@pytest.mark.sandbox
def test_an_uploaded_log_is_uploaded_whatever_it_says(tmp_path: Path) -> None:
    """Stops: a submission claiming, in its own files, that the engine recorded it."""
    from bouts.pipeline import score

    anchor = CHALLENGE / "anchors" / "high"
    card = score(CHALLENGE, anchor, config=ScoreConfig(judges=(), adversarial_generation=False))
    assert card.trajectory is not None and card.trajectory.source == "uploaded"
    assert card.trajectory.harness == "canonical" and card.trajectory.recorded_by is None
    forged = tmp_path / "forged"
    forged.mkdir()
    (forged / "submission.toml").write_text((anchor / "submission.toml").read_text() + 'recorded_by = "bouts"\n')
    (forged / "code").symlink_to(anchor / "code")
    with pytest.raises(SubmissionError, match="recorded_by"):
        load_submission(forged, tmp_path / "x")


def _row(agent: str, iteration: int, final: int, source: str | None) -> AttemptRow:
    return AttemptRow(agent, iteration, final, 10.0, f"{agent}-{iteration}", datetime(2026, 1, 1, tzinfo=UTC), source)


def test_standings_can_count_recorded_runs_only() -> None:
    rows = [_row("uploader", 1, 95, "uploaded"), _row("runner", 1, 60, "recorded"), _row("runner", 2, 70, "recorded"),
            _row("mixed", 1, 80, "recorded"), _row("mixed", 2, 99, "uploaded"), _row("old", 1, 90, None)]  # fmt: skip
    assert [(s.agent, s.final) for s in standings(rows)] == [("mixed", 99), ("uploader", 95), ("old", 90),
                                                             ("runner", 70)]  # fmt: skip
    recorded = standings(rows, recorded_only=True)
    assert [(s.agent, s.final, s.history) for s in recorded] == [("mixed", 80, (80,)), ("runner", 70, (60, 70))]


def _provenance_scorer(challenge: Path, submission: Path, config: ScoreConfig) -> Scorecard:
    """The instant fake, with the provenance a service that ran the agent would store (agents named
    ``rec-*``); the filter is what is under test, not the scoring."""
    card = instant_scorer(challenge, submission, config)
    source = "recorded" if card.agent.startswith("rec-") else "uploaded"
    return card.model_copy(update={"trajectory": TrajectoryProvenance(source=source)})


@pytest.mark.slow_io
def test_the_leaderboard_route_filters_on_the_stored_provenance(tmp_path: Path) -> None:
    settings = ServiceSettings(data_dir=tmp_path / "data", operator_key=OPERATOR_KEY, sandbox="none", local_workers=1,
                               rate_per_minute=6000, rate_burst=1000, upload_rate_per_minute=6000)  # fmt: skip
    with TestClient(create_app(settings, scorer=_provenance_scorer), raise_server_exceptions=False) as client:
        r = client.post("/api/v1/challenges", json={"path": str(CHALLENGE)}, headers={"X-API-Key": OPERATOR_KEY})
        assert r.status_code in (200, 201), r.text
        force_open(client)
        for agent in ("rec-alpha", "up-beta"):
            key = agent_key(client, agent)
            r = client.post("/api/v1/challenges/inventory-ledger/submissions", headers={"X-API-Key": key},
                            files={"archive": ("s.tar.gz", tiny_submission(agent), "application/gzip")})  # fmt: skip
            assert r.status_code in (200, 201, 202), r.text
            assert wait_terminal(client, r.json()["id"], key)["state"] == "scored"
        every = client.get("/api/v1/challenges/inventory-ledger/leaderboard").json()
        recorded = client.get("/api/v1/challenges/inventory-ledger/leaderboard?recorded=true").json()
    assert {s["agent"] for s in every["standings"]} == {"rec-alpha", "up-beta"}
    assert [s["agent"] for s in recorded["standings"]] == ["rec-alpha"]
