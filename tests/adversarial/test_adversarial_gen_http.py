"""HTTP operations probed with requests generated from the app's OpenAPI schema, in the sandbox
through the ordinary runner (ASGI in-process, no network): the room-bookings reference passes them
all, the low anchor's 500s fail them, and the same seed gives the same verdicts."""

from __future__ import annotations

from pathlib import Path

import pytest

from bouts.adversarial import run_generated
from bouts.loading import load_challenge
from bouts.models.results import Outcome
from bouts.sandbox import get_sandbox

pytestmark = pytest.mark.sandbox
ROOMS = Path(__file__).resolve().parents[2] / "examples" / "room-bookings"


@pytest.fixture(scope="module")
def runs():  # noqa: ANN201
    challenge, sandbox = load_challenge(ROOMS), get_sandbox("bubblewrap")
    return {
        which: run_generated(challenge, ROOMS / path, sandbox=sandbox, seed=1234)
        for which, path in (("reference", "reference"), ("low", "anchors/low/code"), ("low again", "anchors/low/code"))
    }


def test_the_reference_passes_every_operation(runs) -> None:  # noqa: ANN001
    outcomes = runs["reference"].outcomes()
    assert [t.entry for t, _ in outcomes] == [
        "POST /rooms", "GET /rooms", "POST /bookings", "GET /rooms/{room_id}/bookings", "DELETE /bookings/{booking_id}",
    ]  # fmt: skip
    assert all(t.strategy == "openapi" and t.target.kind == "unvalidated_input" for t, _ in outcomes)
    assert all(r is not None and r.outcome is Outcome.PASSED for _, r in outcomes), [r for _, r in outcomes]


def test_a_server_error_fails_the_operation_with_the_request_that_caused_it(runs) -> None:  # noqa: ANN001
    low = {t.entry: r for t, r in runs["low"].outcomes()}
    assert low["GET /rooms"].outcome is Outcome.PASSED
    unknown_room = low["POST /bookings"]  # the low anchor lets the foreign key turn an unknown room into a 500
    assert unknown_room.outcome is Outcome.FAILED and "server error" in unknown_room.detail
    assert "FOREIGN KEY" in unknown_room.detail and "POST /bookings" in unknown_room.detail
    assert "9223372036854775808" in low["DELETE /bookings/{booking_id}"].detail  # past SQLite's 64-bit ids


def test_the_same_seed_gives_the_same_verdicts(runs) -> None:  # noqa: ANN001
    first = [(t.id, r.outcome, r.detail) for t, r in runs["low"].outcomes()]
    again = [(t.id, r.outcome, r.detail) for t, r in runs["low again"].outcomes()]
    assert first == again
