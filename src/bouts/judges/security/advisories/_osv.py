"""OSV records (the format osv.dev exports per ecosystem), read into typed models; pure.

Only the fields the check uses are modelled; everything else in a record is kept in the store as
written and ignored here. A record that breaks the schema raises ``AdvisoryError`` naming the file
and the field (``affected[0].ranges[1].events[2]``), never a traceback. See docs/security.md,
"Dependency advisories".
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bouts.errors import InputError

SUPPORTED_ECOSYSTEMS = ("PyPI", "npm")
"""Ecosystems whose manifests the security judge reads; records of others are counted and skipped."""


class AdvisoryError(InputError):
    """An advisory export given to ``bouts advisories import`` is malformed (names the file and field),
    or an advisory store is not one."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Event(_Model):
    """One point of a range's timeline: exactly one of the four keys (OSV schema, "events")."""

    introduced: str | None = None
    fixed: str | None = None
    last_affected: str | None = None
    limit: str | None = None

    @model_validator(mode="after")
    def _one_key(self) -> Event:
        given = [k for k in ("introduced", "fixed", "last_affected", "limit") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"an event has exactly one of introduced/fixed/last_affected/limit, got {given or 'none'}")
        return self

    @property
    def kind(self) -> str:
        return next(k for k in ("introduced", "fixed", "last_affected", "limit") if getattr(self, k) is not None)

    @property
    def version(self) -> str:
        return str(getattr(self, self.kind))


class Range(_Model):
    type: str
    """``SEMVER``, ``ECOSYSTEM`` or ``GIT`` (not evaluated: only the record's ``versions`` list counts)."""
    events: tuple[Event, ...] = Field(min_length=1)


class Package(_Model):
    ecosystem: str = Field(min_length=1)
    name: str = Field(min_length=1)


class Severity(_Model):
    type: str
    score: str


class Affected(_Model):
    package: Package
    ranges: tuple[Range, ...] = ()
    versions: tuple[str, ...] = ()
    severity: tuple[Severity, ...] = ()
    database_specific: dict[str, Any] | None = None


class OsvRecord(_Model):
    """One advisory: its id, the ids it is also known by, its severity and the packages it affects."""

    id: str = Field(min_length=1)
    modified: str = Field(min_length=1)
    withdrawn: str | None = None
    aliases: tuple[str, ...] = ()
    summary: str = ""
    severity: tuple[Severity, ...] = ()
    affected: tuple[Affected, ...] = ()
    database_specific: dict[str, Any] | None = None


def parse_record(text: str | bytes, *, file: str) -> OsvRecord:
    """One OSV record from its JSON text; ``file`` names it in errors (an archive member's name)."""
    if isinstance(text, bytes):
        text = decode(text, file)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise AdvisoryError(f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})", file=file) from None
    except RecursionError:
        raise AdvisoryError("nested too deeply to be an OSV record", file=file) from None
    if not isinstance(doc, dict):
        raise AdvisoryError(f"an OSV record is a JSON object, got {type(doc).__name__}", file=file)
    try:
        return OsvRecord.model_validate(doc)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise AdvisoryError(f"{err['msg']} (one of {exc.error_count()} problems)" if exc.error_count() > 1
                            else err["msg"], file=file, field=_loc(err["loc"])) from None


def decode(data: bytes, file: str) -> str:
    """A record's bytes as text: UTF-8 (RFC 8259), a byte-order mark tolerated."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise AdvisoryError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", file=file) from None


def _loc(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif not part.startswith(("function-", "literal[")):  # pydantic's validator labels, not fields
            out += f".{part}" if out else str(part)
    return out or "(record)"
