"""Whether the service can work: its database answers, and its broker when it has one. Used by
the readiness route and by the error handler that turns a dependency failure on any route into a
503 naming it (the same message both ways)."""

from __future__ import annotations

from typing import Any, Literal

from sqlalchemy import text

from bouts.service.storage import Repository

Dependency = Literal["database", "broker"]
RETRY_AFTER_S = 5


def unavailable(dependency: Dependency) -> str:
    """What the service answers while ``dependency`` is down."""
    return f"the {dependency} is unavailable; try again shortly"


def check(repo: Repository, dispatcher: Any) -> dict[str, str]:
    """Each dependency: ``ok``, ``n/a`` (none configured), or the error's type and first line."""
    status = {"database": _probe(lambda: _select_one(repo))}
    ready = getattr(dispatcher, "ready", None)
    status["broker"] = _probe(ready) if ready is not None else "n/a"
    return status


def _select_one(repo: Repository) -> None:
    with repo.engine.connect() as conn:
        conn.execute(text("SELECT 1"))


def _probe(call: Any) -> str:
    try:
        call()
    except Exception as exc:
        first = (str(exc).strip().splitlines() or [""])[0][:200]
        return f"{type(exc).__name__}: {first}" if first else type(exc).__name__
    return "ok"
