"""The HTTP API: rooms, and bookings of a room for a range of nights (``end`` is the checkout day)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from fastapi import FastAPI, HTTPException, Path, Response
from pydantic import AfterValidator, BaseModel, Field, model_validator

from bookings.db import Database, IntegrityViolation


def _stripped(value: str) -> str:
    value = value.strip()
    if not value:
        raise ValueError("must not be blank")
    return value


Name = Annotated[str, Field(max_length=60), AfterValidator(_stripped)]
# Ids are 64-bit integers on both backends: a larger one is invalid input (422), not a server error.
RowId = Annotated[int, Path(ge=-(2**63), le=2**63 - 1)]


class RoomIn(BaseModel):
    name: Name
    capacity: int = Field(ge=1, le=500, strict=True)


class BookingIn(BaseModel):
    room_id: int = Field(strict=True, ge=-(2**63), le=2**63 - 1)
    guest: Name
    start: dt.date
    end: dt.date

    @model_validator(mode="after")
    def _ordered(self) -> BookingIn:
        if self.end <= self.start:
            raise ValueError("end must be after start")
        return self


def create_app(db: Database) -> FastAPI:
    """The API over ``db`` (whose schema ``init_schema`` created)."""
    app = FastAPI(title="bookings")

    def room_or_404(room_id: int) -> tuple:
        rows = db.execute("SELECT id, name, capacity FROM rooms WHERE id = ?", (room_id,))
        if not rows:
            raise HTTPException(404, "no such room")
        return rows[0]

    @app.post("/rooms", status_code=201)
    def add_room(room: RoomIn) -> dict:
        try:
            with db.transaction():
                (room_id,) = db.execute(
                    "INSERT INTO rooms (name, capacity) VALUES (?, ?) RETURNING id", (room.name, room.capacity))[0]
        except IntegrityViolation:
            raise HTTPException(409, "a room with that name exists") from None
        return {"id": room_id, "name": room.name, "capacity": room.capacity}

    @app.get("/rooms")
    def list_rooms() -> list[dict]:
        rows = db.execute("SELECT id, name, capacity FROM rooms ORDER BY name, id")
        return [{"id": i, "name": n, "capacity": c} for i, n, c in rows]

    @app.post("/bookings", status_code=201)
    def book(booking: BookingIn) -> dict:
        start, end = booking.start.isoformat(), booking.end.isoformat()
        with db.transaction():
            room_or_404(booking.room_id)
            # Two stays overlap when each starts before the other ends (checkout day is free).
            clash = db.execute(
                "SELECT 1 FROM bookings WHERE room_id = ? AND start_day < ? AND end_day > ? LIMIT 1",
                (booking.room_id, end, start),
            )
            if clash:
                raise HTTPException(409, "the room is already booked for some of those nights")
            (booking_id,) = db.execute(
                "INSERT INTO bookings (room_id, guest, start_day, end_day) VALUES (?, ?, ?, ?) RETURNING id",
                (booking.room_id, booking.guest, start, end),
            )[0]
        return {"id": booking_id, "room_id": booking.room_id, "guest": booking.guest, "start": start, "end": end}

    @app.get("/rooms/{room_id}/bookings")
    def room_bookings(room_id: RowId) -> list[dict]:
        room_or_404(room_id)
        rows = db.execute(
            "SELECT id, guest, start_day, end_day FROM bookings WHERE room_id = ? ORDER BY start_day, id", (room_id,))
        return [{"id": i, "room_id": room_id, "guest": g, "start": s, "end": e} for i, g, s, e in rows]

    @app.delete("/bookings/{booking_id}", status_code=204)
    def cancel(booking_id: RowId) -> Response:
        with db.transaction():
            if not db.execute("DELETE FROM bookings WHERE id = ? RETURNING id", (booking_id,)):
                raise HTTPException(404, "no such booking")
        return Response(status_code=204)

    return app
