"""What the service can store, checked at its edge (pure: values in, errors or cleaned values out).

Every input is bounded before it reaches the database, so a value PostgreSQL (or SQLite) would
refuse is a 4xx naming the field, never a 500 after a half-done write:

- integers fit the columns' 32-bit ``INTEGER`` (``INT32_MAX``), on both databases;
- text is storable: no NUL (PostgreSQL refuses it in text), no other control character in names,
  no lone surrogate (a tar member name that was not UTF-8 decodes to one; it cannot be encoded
  back, so JSON answers carrying it would fail);
- floats are finite (JSON has no ``inf``/``nan``).

``storable`` is the backstop for text the service did not receive directly (a scorecard's messages,
paths and test output): lone surrogates become U+FFFD and NUL is dropped, on write and on read.
"""

from __future__ import annotations

import math
import re
from typing import Any

from bouts.errors import SubmissionError
from bouts.models.submission import SubmissionMeta

INT32_MAX = 2**31 - 1
"""The largest value of an ``INTEGER`` column (PostgreSQL's ``integer``)."""
MAX_ELAPSED_S = 10 * 365 * 24 * 3600.0
"""A submission's ``elapsed_s`` above ten years is an error, not a time."""
NAME_PATTERN = r"^[^\x00-\x1f\x7f]*$"
"""Names (agents, challenges, labels, query filters): no control characters."""
TEXT_PATTERN = r"^[^\x00]*$"
"""Free text (reasons, paths): no NUL."""
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def unstorable(text: str, *, name: bool = False) -> str | None:
    """Why ``text`` cannot be stored as it is (None if it can). ``name``: refuse every control
    character, not only NUL."""
    if "\0" in text:
        return "contains a NUL character"
    if name and _CONTROL.search(text):
        return "contains a control character"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid UTF-8 text"
    return None


def check_meta(meta: SubmissionMeta, *, file: str) -> None:
    """``submission.toml`` values the service can store; ``SubmissionError`` naming the field."""
    if meta.iteration > INT32_MAX:
        raise SubmissionError(f"must be at most {INT32_MAX}", file=file, field="iteration")
    if meta.elapsed_s is not None and not (math.isfinite(meta.elapsed_s) and meta.elapsed_s <= MAX_ELAPSED_S):
        raise SubmissionError(f"must be a finite number of seconds up to {MAX_ELAPSED_S:.0f}", file=file,
                              field="elapsed_s")  # fmt: skip
    for field in ("agent", "challenge"):
        why = unstorable(getattr(meta, field), name=True)
        if why:
            raise SubmissionError(why, file=file, field=field)


def storable(value: Any) -> Any:
    """``value`` (JSON-like) with every string made storable: lone surrogates → U+FFFD, NUL dropped."""
    if isinstance(value, str):
        if "\0" in value:
            value = value.replace("\0", "")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            value = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
        return value
    if isinstance(value, dict):
        return {storable(k): storable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [storable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
