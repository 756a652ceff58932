"""Visible tests: one per behaviour of the bookings API. More tests are held back."""

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


def test_created_room_is_listed(api):
    response = api.client.post("/rooms", json={"name": "Blue", "capacity": 2})
    assert response.status_code == 201
    assert response.json() == {"id": 1, "name": "Blue", "capacity": 2}
    assert api.client.get("/rooms").json() == [{"id": 1, "name": "Blue", "capacity": 2}]


def test_overlapping_booking_is_refused(api):
    room = _room(api)
    assert _book(api, room, "2025-06-10", "2025-06-14").status_code == 201
    assert _book(api, room, "2025-06-08", "2025-06-11", guest="Bob").status_code == 409


def test_back_to_back_bookings_are_allowed(api):
    room = _room(api)
    assert _book(api, room, "2025-06-10", "2025-06-14").status_code == 201
    assert _book(api, room, "2025-06-14", "2025-06-16", guest="Bob").status_code == 201


def test_cancel_removes_only_that_booking(api):
    first, second = _room(api, "Blue"), _room(api, "Green")
    in_second = _book(api, second, "2025-06-10", "2025-06-12").json()["id"]
    in_first = _book(api, first, "2025-06-10", "2025-06-12", guest="Bob").json()["id"]
    assert api.client.delete(f"/bookings/{in_second}").status_code == 204
    assert api.client.get(f"/rooms/{second}/bookings").json() == []
    assert [b["id"] for b in api.client.get(f"/rooms/{first}/bookings").json()] == [in_first]


def test_room_bookings_are_listed_by_start(api):
    room = _room(api)
    for start, end in [("2025-07-20", "2025-07-22"), ("2025-07-01", "2025-07-03"), ("2025-07-10", "2025-07-12")]:
        assert _book(api, room, start, end).status_code == 201
    listed = api.client.get(f"/rooms/{room}/bookings").json()
    assert [b["start"] for b in listed] == ["2025-07-01", "2025-07-10", "2025-07-20"]


def test_end_before_start_is_rejected(api):
    room = _room(api)
    assert _book(api, room, "2025-06-14", "2025-06-10").status_code == 422
    assert api.client.get(f"/rooms/{room}/bookings").json() == []


def test_booking_an_unknown_room_is_404(api):
    assert _book(api, 42, "2025-06-10", "2025-06-12").status_code == 404
