"""The local advisory store: one SQLite file of OSV records, indexed by ecosystem and package name.

Written by ``bouts advisories import`` (``_import``), read by the security judge: opened read-only
for each scan, so a scan never changes it and an import that runs meanwhile is seen whole or not at
all (one SQLite transaction). I/O edge. See docs/security.md, "Dependency advisories".
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bouts.errors import InfrastructureError
from bouts.judges.security.advisories._osv import AdvisoryError, OsvRecord

SCHEMA = "bouts.advisories/1"
_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records (id TEXT PRIMARY KEY, modified TEXT NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS affects (
    ecosystem TEXT NOT NULL, name TEXT NOT NULL, id TEXT NOT NULL REFERENCES records(id),
    PRIMARY KEY (ecosystem, name, id)
);
CREATE TABLE IF NOT EXISTS imports (
    at TEXT NOT NULL, source TEXT NOT NULL, sha256 TEXT NOT NULL, summary TEXT NOT NULL
);
"""


@dataclass(frozen=True)
class StoreInfo:
    """What a store holds, for the scorecard's versions and ``bouts advisories info``."""

    digest: str
    """sha256 over every record's id and body: two stores with one digest give the same findings."""
    records: int
    per_ecosystem: dict[str, int]
    newest: str
    """The latest ``modified`` of any record: how fresh the snapshot is."""
    imported: str

    def label(self) -> str:
        counts = ", ".join(f"{eco} {n}" for eco, n in sorted(self.per_ecosystem.items()))
        return (f"snapshot sha256:{self.digest[:16]} ({self.records} advisories: {counts}; "
                f"newest modified {self.newest})")


@contextlib.contextmanager
def open_store(path: Path) -> Iterator[AdvisoryStore]:
    """The store at ``path``, read-only. A store that is missing or not one is the engine's problem
    (``InfrastructureError``): a misconfigured snapshot must never read as "no known advisories"."""
    if not path.is_file():
        raise InfrastructureError(f"the advisory store {path} does not exist (write it with `bouts advisories import`)")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
    except sqlite3.Error as exc:
        raise InfrastructureError(f"the advisory store {path} cannot be opened: {exc}") from None
    try:
        store = AdvisoryStore(conn, path)
        store.info()  # checks that it is one
        yield store
    finally:
        conn.close()


class AdvisoryStore:
    """Look-ups of OSV records by package."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn, self.path = conn, path

    def records(self, ecosystem: str, key: str) -> list[OsvRecord]:
        """Every stored advisory affecting package ``key`` (normalised name) of ``ecosystem``."""
        rows = self._query(
            "SELECT r.body FROM affects a JOIN records r ON r.id = a.id WHERE a.ecosystem = ? AND a.name = ? "
            "ORDER BY r.id", (ecosystem, key),
        )
        return [OsvRecord.model_validate_json(body) for (body,) in rows]

    def info(self) -> StoreInfo:
        try:
            meta = dict(self._conn.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError:  # no meta table, or not SQLite at all
            meta = {}
        if meta.get("schema") != SCHEMA:
            raise InfrastructureError(
                f"{self.path} is not an advisory store of this engine (schema {meta.get('schema')!r}, want {SCHEMA!r})"
            )
        return StoreInfo(meta["digest"], int(meta["records"]), json.loads(meta["per_ecosystem"]), meta["newest"],
                         meta["imported"])

    def _query(self, sql: str, args: tuple[str, ...]) -> list[tuple[str, ...]]:
        try:
            return self._conn.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise InfrastructureError(f"the advisory store {self.path} cannot be read: {exc}") from None


def write_store(path: Path, records: dict[str, tuple[OsvRecord, str]], ecosystems: set[str],
                index: dict[str, set[tuple[str, str]]], source: tuple[str, str, str], now: str) -> StoreInfo:
    """Replace the store's advisories of ``ecosystems`` with ``records`` (id → (record, body)),
    indexed as ``index`` (id → {(ecosystem, key)}), in one transaction; the other ecosystems stay."""
    try:
        conn = sqlite3.connect(path)
    except sqlite3.Error as exc:
        raise AdvisoryError(f"cannot open or create the store: {exc}", file=str(path)) from None
    try:
        with conn:
            _prepare(conn, path)
            marks = ",".join("?" * len(ecosystems))
            conn.execute(f"DELETE FROM affects WHERE ecosystem IN ({marks})", sorted(ecosystems))  # noqa: S608
            conn.executemany("INSERT OR REPLACE INTO records VALUES (?, ?, ?)",
                             [(rid, rec.modified, body) for rid, (rec, body) in records.items()])
            conn.executemany("INSERT OR IGNORE INTO affects VALUES (?, ?, ?)",
                             [(eco, key, rid) for rid, keys in index.items() for eco, key in keys])
            conn.execute("DELETE FROM records WHERE id NOT IN (SELECT id FROM affects)")
            info = _summarise(conn, now)
            conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [
                ("schema", SCHEMA), ("digest", info.digest), ("records", str(info.records)),
                ("per_ecosystem", json.dumps(info.per_ecosystem, sort_keys=True)), ("newest", info.newest),
                ("imported", now),
            ])
            conn.execute("INSERT INTO imports VALUES (?, ?, ?, ?)", (now, *source))
        return info
    except sqlite3.DatabaseError as exc:
        raise AdvisoryError(f"not an advisory store, or it cannot be written: {exc}", file=str(path)) from None
    finally:
        conn.close()


def _prepare(conn: sqlite3.Connection, path: Path) -> None:
    tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if tables and "meta" not in tables:
        raise AdvisoryError("the file exists and is not an advisory store; refusing to write into it", file=str(path))
    conn.executescript(_DDL)
    schema = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    if schema is not None and schema[0] != SCHEMA:
        raise AdvisoryError(f"a store of another schema ({schema[0]}); import into a new file", file=str(path))


def _summarise(conn: sqlite3.Connection, now: str) -> StoreInfo:
    digest = hashlib.sha256()
    count, newest = 0, ""
    for rid, modified, body in conn.execute("SELECT id, modified, body FROM records ORDER BY id"):
        digest.update(rid.encode() + b"\0" + hashlib.sha256(body.encode()).digest())
        count += 1
        newest = max(newest, modified)
    per = dict(conn.execute("SELECT ecosystem, COUNT(DISTINCT id) FROM affects GROUP BY ecosystem").fetchall())
    return StoreInfo(digest.hexdigest(), count, per, newest, now)
