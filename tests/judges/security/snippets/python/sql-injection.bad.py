# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import sqlite3


def find_user(conn: sqlite3.Connection, name: str):
    cur = conn.cursor()
    cur.execute(f"SELECT * FROM users WHERE name = '{name}'")
    return cur.fetchall()


def find_by_id(conn, user_id):
    query = "SELECT * FROM users WHERE id = %s" % user_id
    return conn.execute(query).fetchone()
