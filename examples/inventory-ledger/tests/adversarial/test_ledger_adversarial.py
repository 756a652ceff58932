"""Pre-built adversarial tests: inputs and call sequences a careless ledger gets wrong.

Each test names the attack it stops and carries a severity (critical 5, high 3, medium 2, low 1).
"""

from decimal import Decimal

import pytest

from ledger import InsufficientStock, Ledger, LedgerError


def _stocked(qty: int = 10) -> Ledger:
    led = Ledger()
    led.add_item("A", "item A", "1.00")
    led.receive("A", qty)
    return led


@pytest.mark.severity("critical")
def test_negative_ship_cannot_create_stock():
    led = _stocked(10)
    with pytest.raises(ValueError):
        led.ship("A", -1_000)
    assert led.on_hand("A") == 10


@pytest.mark.severity("critical")
def test_reservations_cannot_oversell():
    led = _stocked(10)
    led.reserve("A", 8)
    with pytest.raises(InsufficientStock):
        led.reserve("A", 3)
    with pytest.raises(InsufficientStock):
        led.ship("A", 3)
    assert (led.on_hand("A"), led.reserved("A")) == (10, 8)


@pytest.mark.severity("high")
def test_double_cancel_does_not_release_twice():
    led = _stocked(10)
    rid = led.reserve("A", 4)
    led.reserve("A", 5)
    led.cancel(rid)
    with pytest.raises(LedgerError):
        led.cancel(rid)
    assert led.reserved("A") == 5
    assert led.available("A") == 5


@pytest.mark.severity("high")
def test_cancelled_reservation_cannot_be_fulfilled():
    led = _stocked(10)
    rid = led.reserve("A", 4)
    led.cancel(rid)
    with pytest.raises(LedgerError):
        led.fulfil(rid)
    assert led.on_hand("A") == 10
    assert led.reserved("A") == 0


@pytest.mark.severity("high")
def test_prices_that_are_not_whole_cents_are_rejected():
    led = Ledger()
    for bad in ("-0.01", "1.005", "NaN", "Infinity", "abc"):
        with pytest.raises(ValueError):
            led.add_item("P", "price", bad)
    assert led.report().rows == ()


@pytest.mark.severity("high")
def test_unknown_sku_and_reservation_raise_key_errors():
    led = _stocked(10)
    with pytest.raises(KeyError):
        led.ship("NOPE", 1)
    with pytest.raises(KeyError):
        led.cancel("R999")
    with pytest.raises(KeyError):
        led.fulfil("R999")


@pytest.mark.severity("medium")
def test_non_integer_quantities_are_rejected():
    led = _stocked(10)
    for bad in (True, 2.5, 1e3):
        with pytest.raises((TypeError, ValueError)):
            led.receive("A", bad)
    assert led.on_hand("A") == 10


@pytest.mark.severity("medium")
def test_page_zero_and_empty_pages_are_rejected():
    led = _stocked(10)
    for page, page_size in ((0, 10), (-1, 10), (1, 0), (1, -5)):
        with pytest.raises(ValueError):
            led.movements(page=page, page_size=page_size)


@pytest.mark.severity("medium")
def test_blank_or_padded_sku_is_rejected():
    led = Ledger()
    for bad in ("", "   ", " A", None):
        with pytest.raises((TypeError, ValueError)):
            led.add_item(bad, "blank", "1.00")


@pytest.mark.severity("medium")
def test_returned_movements_do_not_alias_the_log():
    led = _stocked(10)
    page = led.movements()
    page.clear()
    assert len(led.movements()) == 1


@pytest.mark.severity("low")
def test_empty_ledger_reports_zero():
    report = Ledger().report()
    assert report.rows == ()
    assert report.total_value == Decimal("0.00")


@pytest.mark.severity("low")
def test_large_values_stay_exact():
    led = Ledger()
    led.add_item("BIG", "big", "999999.99")
    led.receive("BIG", 10**12)
    assert led.report().total_value == Decimal("999999990000000000.00")
