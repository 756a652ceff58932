"""Storage of the service: ``open_repository(url)`` gives the one object drivers use."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine

from bouts.service.storage.background import CheckRuns, Rescores
from bouts.service.storage.catalog import Catalog
from bouts.service.storage.db import make_engine, migrate, session_factory
from bouts.service.storage.reviews import Flags, SqlReviewStore
from bouts.service.storage.submissions import DuplicateSubmissionError, Submissions


@dataclass(frozen=True)
class Repository:
    """Every store of the service over one engine."""

    engine: Engine
    catalog: Catalog
    submissions: Submissions
    reviews: SqlReviewStore
    flags: Flags
    checks: CheckRuns
    rescores: Rescores

    def close(self) -> None:
        self.engine.dispose()


def open_repository(url: str, *, migrate_schema: bool = True) -> Repository:
    """Open the database at ``url``, migrating it to the latest schema first (by default)."""
    engine = make_engine(url)
    if migrate_schema:
        migrate(engine)
    sessions = session_factory(engine)
    catalog = Catalog(sessions)
    return Repository(engine, catalog, Submissions(sessions, catalog), SqlReviewStore(sessions), Flags(sessions),
                      CheckRuns(sessions), Rescores(sessions))  # fmt: skip


__all__ = ["DuplicateSubmissionError", "Repository", "open_repository"]
