"""The fixtures every challenge's tests may use: seed, fresh databases, checked expectations."""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from _bouts_driver import seedwatch

_PLAIN_SCALARS = (str, int, float, bool, type(None))


def canonical(value: object, _depth: int = 0) -> str:
    """A canonical JSON text of plain data, built by exact type checks.

    Why exact types: an object whose ``__eq__`` always answers True (or a ``str`` subclass with a
    lying ``__eq__``) must not compare equal to the expected value. Anything that is not plain
    data (None, bool, int, float, str, list, tuple, dict with str keys) raises ``TypeError``.
    """
    if _depth > 100:
        raise TypeError("value nested too deeply to compare")
    kind = type(value)
    if kind in _PLAIN_SCALARS:
        if kind is float and not math.isfinite(value):  # type: ignore[arg-type]
            return json.dumps(repr(value))
        return json.dumps(value)
    if kind in (list, tuple):
        return "[" + ",".join(canonical(v, _depth + 1) for v in value) + "]"  # type: ignore[attr-defined]
    if kind is dict:
        items = value.items()  # type: ignore[attr-defined]
        if not all(type(k) is str for k, _ in items):
            raise TypeError("dict keys must be str to compare")
        return "{" + ",".join(json.dumps(k) + ":" + canonical(v, _depth + 1) for k, v in sorted(items)) + "}"
    raise TypeError(f"cannot compare a {kind.__module__}.{kind.__qualname__}: return plain data")


class Expectations:
    """``bouts_expect(actual[, expected])``: compare by canonical serialization, record a digest.

    With ``expected``: fails unless the serializations are identical. Without it: only the digest
    is recorded, and the host compares it with the reference solution's digest for the same test
    and position, so the expected value is nowhere in the sandbox (a submission that reads its
    caller's frame finds nothing to copy).
    """

    def __init__(self) -> None:
        self.digests: list[str] = []

    def __call__(self, actual: object, *expected: object) -> None:
        text = canonical(actual)
        self.digests.append(hashlib.sha256(text.encode()).hexdigest())
        if expected and text != canonical(expected[0]):
            raise AssertionError(f"bouts_expect: got {text[:200]}, expected {canonical(expected[0])[:200]}")


class BoutsFixtures:
    """A pytest plugin object: registered by the worker for every challenge."""

    def __init__(self, config: dict) -> None:
        self._config = config
        self.expectations = Expectations()

    def pytest_configure(self, config: pytest.Config) -> None:
        # The challenge's own markers are part of the contract, not warnings against the submission.
        config.addinivalue_line("markers", "severity(level): adversarial test severity (critical/high/medium/low)")
        config.addinivalue_line("markers", "behaviour(name): the behaviour a test checks")

    @pytest.fixture
    def bouts_seed(self) -> int:
        """The seed of this phase (also in ``BOUTS_SEED``): hidden tests derive their data from it."""
        seedwatch.note()
        return int(self._config["seed"])

    @pytest.fixture
    def bouts_expect(self) -> Expectations:
        """Compare values by canonical serialization (see :class:`Expectations`)."""
        return self.expectations

    @pytest.fixture
    def bouts_db(self) -> Iterator[Path]:
        """A fresh, empty SQLite database file for this test only (deleted afterwards)."""
        path = Path(os.environ.get("TMPDIR", "/tmp")) / f"bouts-db-{os.getpid()}-{os.urandom(4).hex()}.sqlite3"
        yield path
        for suffix in ("", "-journal", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.unlink(f"{path}{suffix}")

    @pytest.fixture
    def bouts_pg(self) -> Iterator[object]:
        """A psycopg connection to the challenge's PostgreSQL database inside one transaction that is
        rolled back after the test, so every test starts from the same database state."""
        dsn = self._config.get("postgres")
        if not dsn:
            pytest.fail("this run has no PostgreSQL access (the challenge did not ask for it)")
        import psycopg  # imported here: only PostgreSQL challenges need it

        conn = psycopg.connect(dsn, autocommit=False)
        try:
            yield conn
        finally:
            with contextlib.suppress(Exception):
                conn.rollback()
            conn.close()
