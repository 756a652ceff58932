"""An inventory ledger: items, stock movements, reservations and a valuation report."""

from ledger.core import Ledger, Movement, Report, ReportRow, Reservation
from ledger.errors import (
    InsufficientStock,
    InvalidInput,
    LedgerError,
    ReservationClosed,
    UnknownItem,
    UnknownReservation,
)

__all__ = [
    "InsufficientStock",
    "InvalidInput",
    "Ledger",
    "LedgerError",
    "Movement",
    "Report",
    "ReportRow",
    "Reservation",
    "ReservationClosed",
    "UnknownItem",
    "UnknownReservation",
]
