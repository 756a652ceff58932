"""Structured logs: one JSON object per line (``BOUTS_LOG_FORMAT=json``, the default of ``bouts
serve`` and ``bouts worker``), carrying the id of the request being answered (``request_id``, the
``X-Request-ID`` the client saw and every error body names) so a client's report finds its lines.

``request_id`` is a context variable the API's middleware sets for each request
(``bouts.service.api.middleware``); asyncio copies it into the request's tasks and threads.
"""

from __future__ import annotations

import contextvars
import json
import logging
import sys
from datetime import UTC, datetime

request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("bouts_request_id", default=None)
_RESERVED = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "color_message", "taskName"}


class JsonFormatter(logging.Formatter):
    """``{"ts", "level", "logger", "message", "request_id"?, "exc"?, ...extra}`` on one line."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = getattr(record, "request_id", None) or request_id.get()
        if rid:
            entry["request_id"] = rid
        for key, value in vars(record).items():
            if key not in _RESERVED and key not in entry and not key.startswith("_"):
                entry[key] = value if isinstance(value, str | int | float | bool | type(None)) else repr(value)
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def configure(log_format: str, level: int = logging.INFO) -> None:
    """Send every logger's records (uvicorn's and Celery's included) to stderr in ``log_format``
    (``json`` or ``text``; anything else is an ``InputError`` naming ``BOUTS_LOG_FORMAT``)."""
    if log_format not in ("json", "text"):
        from bouts.errors import InputError

        raise InputError(f"'{log_format}' is not a log format; use json or text", field="BOUTS_LOG_FORMAT")
    handler = logging.StreamHandler(sys.stderr)
    if log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "celery"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
