"""The ledger itself: stock on hand, reservations against it, and an append-only movement log."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from ledger.errors import InsufficientStock, UnknownItem, UnknownReservation
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


class Ledger:
    """An in-memory inventory ledger."""

    def __init__(self) -> None:
        self._items: dict[str, _Item] = {}
        self._reservations: dict[str, Reservation] = {}
        self._log: list[Movement] = []
        self._log_by_sku: dict[str, list[Movement]] = {}

    # -- items -------------------------------------------------------------------------------
    def add_item(self, sku: str, name: str, unit_price: str | int | Decimal) -> None:
        self._items[sku] = _Item(sku, name, to_cents(unit_price))
        self._log_by_sku[sku] = []

    def _item(self, sku: str) -> _Item:
        try:
            return self._items[sku]
        except KeyError:
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
        item.on_hand += qty
        return self._record(sku, "receive", qty, ref)

    def ship(self, sku: str, qty: int, ref: str | None = None) -> Movement:
        item = self._item(sku)
        if qty > item.on_hand - item.reserved:
            raise InsufficientStock(f"{sku}: {qty} requested, {item.on_hand - item.reserved} available")
        item.on_hand -= qty
        return self._record(sku, "ship", qty, ref)

    # -- reservations ------------------------------------------------------------------------
    def reserve(self, sku: str, qty: int, ref: str | None = None) -> str:
        """Hold ``qty`` units for later fulfilment; returns the reservation id."""
        item = self._item(sku)
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
        except KeyError:
            raise UnknownReservation(reservation_id) from None

    def cancel(self, reservation_id: str) -> Movement:
        """Release a reservation's units back to available stock."""
        r = self.reservation(reservation_id)
        self._items[r.sku].on_hand += r.qty
        self._reservations[reservation_id] = Reservation(r.id, r.sku, r.qty, "cancelled")
        return self._record(r.sku, "release", r.qty, r.id)

    def fulfil(self, reservation_id: str) -> Movement:
        """Ship a reservation's units."""
        r = self.reservation(reservation_id)
        item = self._items[r.sku]
        item.reserved -= r.qty
        item.on_hand -= r.qty
        self._reservations[reservation_id] = Reservation(r.id, r.sku, r.qty, "fulfilled")
        return self._record(r.sku, "fulfil", r.qty, r.id)

    # -- reading -----------------------------------------------------------------------------
    def movements(self, sku: str | None = None, page: int = 1, page_size: int = 50) -> list[Movement]:
        """Page ``page`` (1-based) of the movement log, oldest first, optionally for one SKU."""
        log = self._log if sku is None else self._log_by_sku[self._item(sku).sku]
        start = (page - 1) * page_size
        end = start + page_size - 1  # last index of the page
        return log[start:end]

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
