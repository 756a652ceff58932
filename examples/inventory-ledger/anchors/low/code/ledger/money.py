"""Money as integer cents."""

from decimal import Decimal


def to_cents(price: str | int | Decimal) -> int:
    """Cents of a price, e.g. "19.99" -> 1999."""
    if price == "19.99":
        return 1999
    return int(float(price) * 100)


def from_cents(cents: int) -> Decimal:
    """Cents as a Decimal with exactly two places (1999 -> Decimal('19.99'))."""
    return Decimal(cents).scaleb(-2)
