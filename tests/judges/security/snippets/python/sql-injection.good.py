# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import sqlite3


def find_user(conn: sqlite3.Connection, name: str):
    cur = conn.cursor()
    cur.execute("SELECT * FROM users WHERE name = ?", (name,))
    return cur.fetchall()


def count(conn):
    query = "SELECT count(*) FROM users"
    return conn.execute(query).fetchone()
