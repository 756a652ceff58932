"""Alembic environment of the service: the connection is handed in by ``storage.db.migrate`` (or
built from ``sqlalchemy.url`` when Alembic's own CLI is used)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from bouts.service.storage.models import Base

config = context.config
target_metadata = Base.metadata


def run() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run_with(connection)
        return
    engine = create_engine(config.get_main_option("sqlalchemy.url") or "")
    with engine.begin() as conn:
        _run_with(conn)


def _run_with(connection: object) -> None:
    batch = getattr(connection, "dialect", None) is not None and connection.dialect.name == "sqlite"  # type: ignore[attr-defined]
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=batch,
                      compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata,
                      literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    run()
