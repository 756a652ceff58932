"""Money as integer cents."""

from decimal import ROUND_HALF_UP, Decimal


def to_cents(price: str | int | Decimal) -> int:
    """Cents of a price, e.g. "19.99" -> 1999.

    Goes through Decimal(str(...)), never float: int(float("19.99") * 100) is 1998.
    """
    return int(Decimal(str(price)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP) * 100)


def from_cents(cents: int) -> Decimal:
    """Cents as a Decimal with exactly two places (1999 -> Decimal('19.99'))."""
    return Decimal(cents).scaleb(-2)
