"""The ledger itself: stock on hand, reservations against it, and an append-only movement log."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from ledger.errors import (
    InsufficientStock,
    InvalidInput,
    ReservationClosed,
    UnknownItem,
    UnknownReservation,
)
from ledger.money import from_cents, to_cents

MovementKind = Literal["receive", "ship", "reserve", "release", "fulfil"]


@dataclass(frozen=True)
class Movement:
    """One entry of the movement log; ``seq`` starts at 1 and grows by one per entry."""

    seq: int
    sku: str
    kind: MovementKind
    qty: int
    ref: str | None = None


@dataclass(frozen=True)
class Reservation:
    id: str
    sku: str
    qty: int
    status: Literal["open", "cancelled", "fulfilled"] = "open"


@dataclass(frozen=True)
class ReportRow:
    sku: str
    name: str
    on_hand: int
    reserved: int
    available: int
    unit_price: Decimal
    value: Decimal
    """on_hand x unit_price, exact to the cent."""


@dataclass(frozen=True)
class Report:
    rows: tuple[ReportRow, ...]
    """One row per item, sorted by SKU."""
    total_value: Decimal


@dataclass
class _Item:
    sku: str
    name: str
    unit_cents: int
    on_hand: int = 0
    reserved: int = 0


def _check_qty(qty: object) -> int:
    if isinstance(qty, bool) or not isinstance(qty, int):
        raise InvalidInput(f"quantity must be an int, got {type(qty).__name__}")
    if qty <= 0:
        raise InvalidInput(f"quantity must be positive, got {qty}")
    return qty


def _check_text(what: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{what} must be a non-empty string, got {value!r}")
    return value


class Ledger:
    """An in-memory inventory ledger. Every failed call leaves the ledger unchanged."""

    def __init__(self) -> None:
        self._items: dict[str, _Item] = {}
        self._reservations: dict[str, Reservation] = {}
        self._log: list[Movement] = []
        self._log_by_sku: dict[str, list[Movement]] = {}

    # -- items -------------------------------------------------------------------------------
    def add_item(self, sku: str, name: str, unit_price: str | int | Decimal) -> None:
        _check_text("sku", sku)
        _check_text("name", name)
        cents = to_cents(unit_price)
        if sku in self._items:
            raise InvalidInput(f"item {sku!r} already exists")
        self._items[sku] = _Item(sku, name, cents)
        self._log_by_sku[sku] = []

    def _item(self, sku: str) -> _Item:
        try:
            return self._items[sku]
        except (KeyError, TypeError):
            raise UnknownItem(sku) from None

    def on_hand(self, sku: str) -> int:
        return self._item(sku).on_hand

    def reserved(self, sku: str) -> int:
        return self._item(sku).reserved

    def available(self, sku: str) -> int:
        item = self._item(sku)
        return item.on_hand - item.reserved

    # -- movements ---------------------------------------------------------------------------
    def _record(self, sku: str, kind: MovementKind, qty: int, ref: str | None) -> Movement:
        movement = Movement(len(self._log) + 1, sku, kind, qty, ref)
        self._log.append(movement)
        self._log_by_sku[sku].append(movement)
        return movement

    def receive(self, sku: str, qty: int, ref: str | None = None) -> Movement:
        item = self._item(sku)
        _check_qty(qty)
        item.on_hand += qty
        return self._record(sku, "receive", qty, ref)

    def ship(self, sku: str, qty: int, ref: str | None = None) -> Movement:
        item = self._item(sku)
        _check_qty(qty)
        if qty > item.on_hand - item.reserved:
            raise InsufficientStock(f"{sku}: {qty} requested, {item.on_hand - item.reserved} available")
        item.on_hand -= qty
        return self._record(sku, "ship", qty, ref)

    # -- reservations ------------------------------------------------------------------------
    def reserve(self, sku: str, qty: int, ref: str | None = None) -> str:
        """Hold ``qty`` units for later fulfilment; returns the reservation id."""
        item = self._item(sku)
        _check_qty(qty)
        if qty > item.on_hand - item.reserved:
            raise InsufficientStock(f"{sku}: {qty} requested, {item.on_hand - item.reserved} available")
        item.reserved += qty
        reservation = Reservation(f"R{len(self._reservations) + 1}", sku, qty)
        self._reservations[reservation.id] = reservation
        self._record(sku, "reserve", qty, ref or reservation.id)
        return reservation.id

    def reservation(self, reservation_id: str) -> Reservation:
        try:
            return self._reservations[reservation_id]
        except (KeyError, TypeError):
            raise UnknownReservation(reservation_id) from None

    def _close(self, reservation_id: str, status: Literal["cancelled", "fulfilled"]) -> Reservation:
        reservation = self.reservation(reservation_id)
        if reservation.status != "open":
            raise ReservationClosed(f"reservation {reservation_id} is already {reservation.status}")
        self._items[reservation.sku].reserved -= reservation.qty
        closed = Reservation(reservation.id, reservation.sku, reservation.qty, status)
        self._reservations[reservation_id] = closed
        return closed

    def cancel(self, reservation_id: str) -> Movement:
        """Release a reservation's units back to available stock."""
        reservation = self._close(reservation_id, "cancelled")
        return self._record(reservation.sku, "release", reservation.qty, reservation.id)

    def fulfil(self, reservation_id: str) -> Movement:
        """Ship a reservation's units."""
        reservation = self._close(reservation_id, "fulfilled")
        self._items[reservation.sku].on_hand -= reservation.qty
        return self._record(reservation.sku, "fulfil", reservation.qty, reservation.id)

    # -- reading -----------------------------------------------------------------------------
    def movements(self, sku: str | None = None, page: int = 1, page_size: int = 50) -> list[Movement]:
        """Page ``page`` (1-based) of the movement log, oldest first, optionally for one SKU."""
        for what, value in (("page", page), ("page_size", page_size)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInput(f"{what} must be an int >= 1, got {value!r}")
        log = self._log if sku is None else self._log_by_sku[self._item(sku).sku]
        start = (page - 1) * page_size
        return log[start : start + page_size]

    def report(self) -> Report:
        rows = []
        total = 0
        for sku in sorted(self._items):
            item = self._items[sku]
            value = item.on_hand * item.unit_cents
            total += value
            rows.append(
                ReportRow(
                    sku=sku,
                    name=item.name,
                    on_hand=item.on_hand,
                    reserved=item.reserved,
                    available=item.on_hand - item.reserved,
                    unit_price=from_cents(item.unit_cents),
                    value=from_cents(value),
                )
            )
        return Report(tuple(rows), from_cents(total))
