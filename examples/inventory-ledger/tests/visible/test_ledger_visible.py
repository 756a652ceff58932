"""Visible tests: the behaviour the agent can see. Each has hidden siblings in tests/hidden/."""

from decimal import Decimal

import pytest

from ledger import InsufficientStock, Ledger


@pytest.fixture
def ledger():
    led = Ledger()
    led.add_item("BOLT-M6", "M6 bolt", "0.25")
    led.add_item("NUT-M6", "M6 nut", "0.10")
    return led


def test_receive_adds_to_on_hand(ledger):
    ledger.receive("BOLT-M6", 100)
    ledger.receive("BOLT-M6", 20)
    assert ledger.on_hand("BOLT-M6") == 120
    assert ledger.available("BOLT-M6") == 120


def test_ship_takes_from_on_hand(ledger):
    ledger.receive("NUT-M6", 50)
    ledger.ship("NUT-M6", 15)
    assert ledger.on_hand("NUT-M6") == 35


def test_ship_more_than_available_raises(ledger):
    ledger.receive("NUT-M6", 5)
    with pytest.raises(InsufficientStock):
        ledger.ship("NUT-M6", 6)
    assert ledger.on_hand("NUT-M6") == 5


def test_reserve_holds_stock_without_shipping(ledger):
    ledger.receive("BOLT-M6", 10)
    ledger.reserve("BOLT-M6", 4)
    assert ledger.on_hand("BOLT-M6") == 10
    assert ledger.reserved("BOLT-M6") == 4
    assert ledger.available("BOLT-M6") == 6


def test_cancel_releases_reservation(ledger):
    ledger.receive("BOLT-M6", 10)
    rid = ledger.reserve("BOLT-M6", 4)
    ledger.cancel(rid)
    assert ledger.reserved("BOLT-M6") == 0
    assert ledger.available("BOLT-M6") == 10


def test_fulfil_ships_reserved_units(ledger):
    ledger.receive("BOLT-M6", 10)
    rid = ledger.reserve("BOLT-M6", 4)
    ledger.fulfil(rid)
    assert ledger.on_hand("BOLT-M6") == 6
    assert ledger.reserved("BOLT-M6") == 0
    assert ledger.available("BOLT-M6") == 6


def test_report_values_stock_exactly():
    ledger = Ledger()
    ledger.add_item("WIDGET", "Widget", "19.99")
    ledger.receive("WIDGET", 3)
    row = ledger.report().rows[0]
    assert row.unit_price == Decimal("19.99")
    assert row.value == Decimal("59.97")
    assert ledger.report().total_value == Decimal("59.97")


def test_report_rows_sorted_by_sku():
    ledger = Ledger()
    for sku in ["C-3", "A-1", "B-2"]:
        ledger.add_item(sku, sku.lower(), "1.00")
    assert [row.sku for row in ledger.report().rows] == ["A-1", "B-2", "C-3"]


def test_movements_first_page(ledger):
    for qty in range(1, 8):
        ledger.receive("BOLT-M6", qty)
    page = ledger.movements(page=1, page_size=5)
    assert [m.qty for m in page] == [1, 2, 3, 4, 5]
    assert [m.seq for m in page] == [1, 2, 3, 4, 5]


def test_movements_pages_cover_whole_log(ledger):
    for qty in range(1, 13):
        ledger.receive("NUT-M6", qty)
    seen = []
    for page in range(1, 10):  # bounded: a broken pager must fail, not loop forever
        batch = ledger.movements(page=page, page_size=5)
        if not batch:
            break
        seen.extend(m.qty for m in batch)
    assert seen == list(range(1, 13))


def test_receive_rejects_non_positive_quantity(ledger):
    with pytest.raises(ValueError):
        ledger.receive("BOLT-M6", -5)
    with pytest.raises(ValueError):
        ledger.receive("BOLT-M6", 0)
    assert ledger.on_hand("BOLT-M6") == 0


def test_add_item_rejects_duplicate_sku(ledger):
    with pytest.raises(ValueError):
        ledger.add_item("BOLT-M6", "Another bolt", "9.99")
