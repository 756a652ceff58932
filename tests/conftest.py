"""Suite-wide markers. ``slow`` is derived, never written by hand: a test is slow when it needs the
sandbox, a browser, PostgreSQL, Redis or Docker, or runs external analysers or whole pipelines for
seconds (their markers), so ``pytest -m "not slow"`` is the daily loop (pure code, the judges, the
loaders: under two minutes) and plain ``pytest`` the whole suite.

Hypothesis profiles: ``full`` (200 examples a property) for the whole suite, ``dev`` (25) for the daily
loop; a run whose ``-m`` deselects ``slow`` loads ``dev``. ``BOUTS_HYPOTHESIS_PROFILE=full`` or
``--hypothesis-profile=full`` gives the daily loop the full count. A test's own ``@settings`` wins."""

from __future__ import annotations

import pytest

collect_ignore_glob = ["fixtures/*"]
"""Challenges under ``tests/fixtures`` (their own test suites) are graded by the engine, not collected here."""

SLOW_MARKERS = frozenset({"sandbox", "browser", "postgres", "redis", "docker", "slow_io"})
SLOW_FIXTURES = frozenset({"sandbox", "bwrap", "bwrap_js"})
"""A test that takes a fixture of these names runs payloads through the real sandbox."""
HYPOTHESIS_EXAMPLES = {"full": 200, "dev": 25}
"""Examples per property test (without a count of its own) in each profile."""


def _hypothesis_profile(config: pytest.Config) -> str:
    import os
    import re

    chosen = os.environ.get("BOUTS_HYPOTHESIS_PROFILE") or config.getoption("hypothesis_profile", None)
    if chosen:
        return str(chosen)
    deselects_slow = re.search(r"\bnot\s+slow\b", str(config.getoption("markexpr", "") or ""))
    return "dev" if deselects_slow else "full"


@pytest.hookimpl(tryfirst=True)  # before Hypothesis's own plugin, which loads --hypothesis-profile
def pytest_configure(config: pytest.Config) -> None:
    """Every run starts from an empty engine cache of its own (``BOUTS_CACHE_DIR``, inherited by the
    CLI's subprocesses): a result must never depend on what an earlier run left in ``~/.cache/bouts``."""
    import os
    import tempfile

    if not os.environ.get("BOUTS_TEST_KEEP_CACHE"):
        os.environ["BOUTS_CACHE_DIR"] = tempfile.mkdtemp(prefix="bouts-test-cache-")  # mode 0700

    from hypothesis import settings

    base = settings.default  # the "ci" profile Hypothesis loads itself on a CI machine
    for name, examples in HYPOTHESIS_EXAMPLES.items():
        settings.register_profile(name, parent=base, max_examples=examples, deadline=None)
    settings.load_profile(_hypothesis_profile(config))


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


CPU_S = pytest.StashKey[float]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):  # type: ignore[no-untyped-def]
    """Measure the call's CPU time (this process and the children it reaped): a loaded machine
    inflates it far less than the wall time."""
    import os

    before = os.times()
    yield
    after = os.times()
    item.stash[CPU_S] = sum(after[:4]) - sum(before[:4])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """``BOUTS_TEST_TIMES=FILE``: append each test's call time (wall seconds, node id, CPU seconds) to
    FILE as it runs (finding tests that belong behind a marker, even in a run that is cut short)."""
    import os

    outcome = yield
    report = outcome.get_result()
    path = os.environ.get("BOUTS_TEST_TIMES")
    if path and report.when == "call":
        with open(path, "a", encoding="utf-8") as out:
            out.write(f"{report.duration:.3f}\t{report.nodeid}\t{item.stash.get(CPU_S, 0.0):.3f}\n")
