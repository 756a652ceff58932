"""Suite-wide markers. ``slow`` is derived, never written by hand: a test is slow when it needs the
sandbox, a browser, PostgreSQL, Redis or Docker (their markers), so ``pytest -m "not slow"`` is the
daily loop (pure code, the judges, the loaders: under two minutes) and plain ``pytest`` the whole suite."""

from __future__ import annotations

import pytest

SLOW_MARKERS = frozenset({"sandbox", "browser", "postgres", "redis", "docker", "slow_io"})
SLOW_FIXTURES = frozenset({"sandbox"})
"""A test that takes a fixture of these names runs payloads through the real sandbox."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        uses = set(getattr(item, "fixturenames", ()))
        if any(item.get_closest_marker(name) for name in SLOW_MARKERS) or uses & SLOW_FIXTURES:
            item.add_marker(pytest.mark.slow)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """``BOUTS_TEST_TIMES=FILE``: append each test's call time to FILE as it runs (finding tests that
    belong behind a marker, even in a run that is cut short)."""
    import os

    path = os.environ.get("BOUTS_TEST_TIMES")
    if path and report.when == "call":
        with open(path, "a", encoding="utf-8") as out:
            out.write(f"{report.duration:.3f}\t{report.nodeid}\n")
