"""A small room-booking HTTP API (FastAPI) over SQLite or PostgreSQL."""

from bookings.app import create_app
from bookings.db import Database, PostgresDatabase, SqliteDatabase, init_schema

__all__ = ["Database", "PostgresDatabase", "SqliteDatabase", "create_app", "init_schema"]
