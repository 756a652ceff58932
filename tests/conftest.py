"""Suite-wide markers. ``slow`` is derived, never written by hand: a test is slow when it needs the
sandbox, a browser, PostgreSQL, Redis or Docker (their markers), so ``pytest -m "not slow"`` is the
daily loop (pure code, the judges, the loaders: under two minutes) and plain ``pytest`` the whole suite."""

from __future__ import annotations

import pytest

SLOW_MARKERS = frozenset({"sandbox", "browser", "postgres", "redis", "docker", "slow_io"})
SLOW_FIXTURES = frozenset({"sandbox"})
"""A test that takes a fixture of these names runs payloads through the real sandbox."""


def pytest_configure(config: pytest.Config) -> None:
    """Every run starts from an empty engine cache of its own (``BOUTS_CACHE_DIR``, inherited by the
    CLI's subprocesses): a result must never depend on what an earlier run left in ``~/.cache/bouts``."""
    import os
    import tempfile

    if not os.environ.get("BOUTS_TEST_KEEP_CACHE"):
        os.environ["BOUTS_CACHE_DIR"] = tempfile.mkdtemp(prefix="bouts-test-cache-")  # mode 0700


def pytest_unconfigure(config: pytest.Config) -> None:
    import os
    import shutil

    if not os.environ.get("BOUTS_TEST_KEEP_CACHE") and os.environ.get("BOUTS_CACHE_DIR", "").count("bouts-test-cache-"):
        shutil.rmtree(os.environ["BOUTS_CACHE_DIR"], ignore_errors=True)


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
