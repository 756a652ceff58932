"""The fixtures the runner gives every challenge: fresh database state per test, a capped disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from bouts.models.results import Outcome
from bouts.runner import RunOptions, run_suites
from bouts.sandbox import Sandbox

pytestmark = pytest.mark.sandbox

PG_SOCKET_DIR = Path("/var/run/postgresql")


def outcomes(report) -> dict[str, Outcome]:  # noqa: ANN001
    return {r.id.split("::")[-1]: r.outcome for r in report.results}


def test_bouts_db_is_a_fresh_sqlite_database_for_every_test(make_challenge, bwrap: Sandbox) -> None:
    test = """
import sqlite3, pytest
@pytest.mark.parametrize("n", range(6))
def test_fresh(bouts_db, n):
    db = sqlite3.connect(bouts_db)
    assert db.execute("select count(*) from sqlite_master").fetchone() == (0,)
    db.execute("create table t (x)")
    db.execute("insert into t values (?)", (n,))
    db.commit()
"""
    challenge, code = make_challenge({"visible": {"test_db.py": test}})
    report = run_suites(challenge, code, sandbox=bwrap)
    assert set(outcomes(report).values()) == {Outcome.PASSED} and len(report.results) == 6


def test_disk_fill_in_the_workspace_is_capped_and_leaves_the_host_alone(make_challenge, bwrap: Sandbox) -> None:
    test = """
import os, errno
def test_fill():
    chunk = b"x" * (4 * 1024 * 1024)
    for i in range(10_000):
        try:
            with open(f"/workspace/fill-{i}", "wb") as fh:
                fh.write(chunk)
        except OSError as exc:
            assert exc.errno in (errno.ENOSPC, errno.EFBIG)
            return
    raise AssertionError("the disk never filled")
"""
    challenge, code = make_challenge({"visible": {"test_fill.py": test}})
    report = run_suites(challenge, code, sandbox=bwrap)
    assert outcomes(report) == {"test_fill": Outcome.PASSED}


@pytest.mark.postgres
def test_bouts_pg_rolls_back_every_test_over_the_unix_socket(make_challenge, bwrap: Sandbox) -> None:
    pytest.importorskip("psycopg")
    if not (PG_SOCKET_DIR / ".s.PGSQL.5432").exists():
        pytest.skip("no local PostgreSQL socket")
    test = """
import pytest
@pytest.mark.parametrize("n", range(4))
def test_isolated(bouts_pg, n):
    cur = bouts_pg.cursor()
    cur.execute("create table if not exists bouts_fixture_probe (x int)")
    cur.execute("select count(*) from bouts_fixture_probe")
    assert cur.fetchone() == (0,)
    cur.execute("insert into bouts_fixture_probe values (%s)", (n,))
def test_no_network_even_so():
    import socket
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", 5432), timeout=1)
"""
    challenge, code = make_challenge({"visible": {"test_pg.py": test}})
    options = RunOptions(
        postgres="host=/var/run/postgresql dbname=test user=postgres", postgres_socket_dir=PG_SOCKET_DIR
    )
    report = run_suites(challenge, code, sandbox=bwrap, options=options)
    assert set(outcomes(report).values()) == {Outcome.PASSED}, report.results
    assert len(report.results) == 5
