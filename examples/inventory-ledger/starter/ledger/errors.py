"""The ledger's errors. Every one is a ``LedgerError``; lookups are also ``KeyError``s and bad
arguments also ``ValueError``s, so callers can catch them the way they would expect."""


class LedgerError(Exception):
    """Base of every error the ledger raises on purpose."""


class InvalidInput(LedgerError, ValueError):
    """An argument is of the wrong type or out of range; nothing was changed."""


class UnknownItem(LedgerError, KeyError):
    """No item with this SKU was added."""


class UnknownReservation(LedgerError, KeyError):
    """No reservation with this id exists."""


class InsufficientStock(LedgerError):
    """The movement would take more than the available (on hand minus reserved) stock."""


class ReservationClosed(LedgerError):
    """The reservation was already cancelled or fulfilled."""
