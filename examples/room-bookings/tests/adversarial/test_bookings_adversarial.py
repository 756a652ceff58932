"""Pre-built adversarial tests: requests a careless booking API gets wrong. Each names the
attack it stops and carries a severity (critical 5, high 3, medium 2, low 1)."""

import os
from typing import NamedTuple

import pytest
from fastapi.testclient import TestClient

from bookings import PostgresDatabase, SqliteDatabase, create_app, init_schema

# -- backends ----------------------------------------------------------------------------------
# Every test runs against a fresh database: SQLite through the runner's `bouts_db` (a new file per
# test) and, when the run was given PostgreSQL (its socket is mounted into the sandbox only then),
# PostgreSQL through `bouts_pg` (one transaction, rolled back after the test) in a schema of its
# own. The PostgreSQL variant is decided when the module is collected, so a run without
# PostgreSQL neither collects nor fails it.
PG_SOCKET = "/var/run/postgresql/.s.PGSQL.5432"
BACKENDS = ["sqlite"] + (["postgres"] if os.path.exists(PG_SOCKET) else [])


class Api(NamedTuple):
    client: TestClient
    db: object


@pytest.fixture(params=BACKENDS)
def api(request):
    if request.param == "sqlite":
        db = SqliteDatabase(request.getfixturevalue("bouts_db"))
    else:
        conn = request.getfixturevalue("bouts_pg")
        schema = f"t_{os.urandom(6).hex()}"
        conn.execute(f"CREATE SCHEMA {schema}")
        conn.execute(f"SET LOCAL search_path TO {schema}")
        db = PostgresDatabase(conn)
    init_schema(db)
    with TestClient(create_app(db), raise_server_exceptions=False) as client:
        yield Api(client, db)


def _room(api, name="Blue", capacity=2):
    response = api.client.post("/rooms", json={"name": name, "capacity": capacity})
    assert response.status_code == 201, response.text
    return response.json()["id"]


def _book(api, room_id, start, end, guest="Ada"):
    return api.client.post("/bookings", json={"room_id": room_id, "guest": guest, "start": start, "end": end})


@pytest.mark.severity("critical")
def test_enclosing_stay_cannot_double_book(api):
    room = _room(api)
    assert _book(api, room, "2025-06-10", "2025-06-12").status_code == 201
    assert _book(api, room, "2025-06-01", "2025-06-30", guest="Mallory").status_code == 409


@pytest.mark.severity("critical")
def test_sql_in_a_guest_name_is_stored_as_text(api):
    room = _room(api)
    evil = "x'); DELETE FROM bookings; --"
    assert _book(api, room, "2025-06-10", "2025-06-12", guest=evil).status_code == 201
    assert _book(api, room, "2025-06-12", "2025-06-13").status_code == 201
    assert [b["guest"] for b in api.client.get(f"/rooms/{room}/bookings").json()] == [evil, "Ada"]


@pytest.mark.severity("high")
def test_cancelling_one_guest_never_removes_another(api):
    rooms = [_room(api, f"Room {i}") for i in range(3)]
    mine = _book(api, rooms[2], "2025-06-10", "2025-06-12").json()["id"]
    others = [_book(api, r, "2025-06-10", "2025-06-12", guest="Bob").json()["id"] for r in rooms[:2]]
    api.client.delete(f"/bookings/{mine}")
    assert sorted(b["id"] for r in rooms for b in api.client.get(f"/rooms/{r}/bookings").json()) == sorted(others)


@pytest.mark.severity("high")
def test_zero_night_stay_is_rejected(api):
    room = _room(api)
    assert _book(api, room, "2025-06-10", "2025-06-10").status_code == 422


@pytest.mark.severity("high")
def test_unknown_room_is_not_a_server_error(api):
    assert _book(api, 99, "2025-06-10", "2025-06-12").status_code == 404


@pytest.mark.severity("medium")
def test_duplicate_room_name_is_a_conflict_not_a_crash(api):
    _room(api, "Blue")
    assert api.client.post("/rooms", json={"name": "Blue", "capacity": 9}).status_code == 409


@pytest.mark.severity("medium")
def test_negative_capacity_is_rejected(api):
    assert api.client.post("/rooms", json={"name": "Blue", "capacity": -1}).status_code == 422


@pytest.mark.severity("medium")
def test_blank_guest_is_rejected(api):
    room = _room(api)
    assert _book(api, room, "2025-06-10", "2025-06-12", guest="").status_code == 422


@pytest.mark.severity("low")
def test_boolean_capacity_is_rejected(api):
    assert api.client.post("/rooms", json={"name": "Blue", "capacity": True}).status_code == 422


@pytest.mark.severity("low")
def test_overlong_room_name_is_rejected(api):
    assert api.client.post("/rooms", json={"name": "B" * 500, "capacity": 2}).status_code == 422
