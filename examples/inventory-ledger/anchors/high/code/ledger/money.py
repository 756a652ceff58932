"""Money as integer cents. Prices come in as text, int or Decimal and never pass through float:
``int(float("19.99") * 100)`` is 1998, not 1999."""

from decimal import Decimal, InvalidOperation

from ledger.errors import InvalidInput

_CENT = Decimal("0.01")


def to_cents(price: str | int | Decimal) -> int:
    """Exact cents of a non-negative price with at most two decimal places."""
    if isinstance(price, bool) or not isinstance(price, (str, int, Decimal)):
        raise InvalidInput(f"price must be a str, int or Decimal, got {type(price).__name__}")
    try:
        value = Decimal(price)
        if not value.is_finite():
            raise InvalidInput(f"price must be a finite number, got {price!r}")
        if value != value.quantize(_CENT):
            raise InvalidInput(f"price has more than two decimal places: {price!r}")
    except InvalidOperation:
        raise InvalidInput(f"price is not a number: {price!r}") from None
    if value < 0:
        raise InvalidInput(f"price must not be negative, got {price!r}")
    return int(value * 100)


def from_cents(cents: int) -> Decimal:
    """Cents as a Decimal with exactly two places (1999 -> Decimal('19.99'))."""
    return Decimal(cents).scaleb(-2)
