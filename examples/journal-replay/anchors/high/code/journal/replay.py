"""Rebuild the store's state from its journal after a crash.

Entries: ``SET key value`` (an integer value), ``DEL key``, ``BEGIN`` and ``COMMIT``. Outside a
transaction an entry applies at once; inside, nothing applies until its ``COMMIT``, and a
transaction the crash left open is discarded. A torn last line (the write the crash interrupted)
is ignored; a corrupt entry anywhere else raises ``ValueError`` naming its line number.
"""

from __future__ import annotations

from collections.abc import Iterable

Entry = tuple[str, str | None, int | None]


def _parse(line: str) -> Entry:
    parts = line.split()
    if parts == ["BEGIN"] or parts == ["COMMIT"]:
        return parts[0], None, None
    if len(parts) == 2 and parts[0] == "DEL":
        return "DEL", parts[1], None
    if len(parts) == 3 and parts[0] == "SET" and parts[2].lstrip("-").isdigit():
        return "SET", parts[1], int(parts[2])
    raise ValueError(f"not a journal entry: {line!r}")


def _apply(state: dict[str, int], entry: Entry) -> None:
    op, key, value = entry
    if op == "SET" and key is not None and value is not None:
        state[key] = value
    elif op == "DEL" and key is not None:
        state.pop(key, None)


def replay(lines: Iterable[str]) -> dict[str, int]:
    """The state (key -> int) the journal's committed entries leave behind."""
    lines = list(lines)
    state: dict[str, int] = {}
    pending: list[Entry] | None = None
    for number, line in enumerate(lines, 1):
        try:
            entry = _parse(line)
        except ValueError:
            if number == len(lines):
                break  # the write the crash interrupted
            raise ValueError(f"line {number}: corrupt entry {line!r}") from None
        op = entry[0]
        if op == "BEGIN":
            if pending is not None:
                raise ValueError(f"line {number}: BEGIN inside an open transaction")
            pending = []
        elif op == "COMMIT":
            for e in pending or []:
                _apply(state, e)
            pending = None
        elif pending is not None:
            pending.append(entry)
        else:
            _apply(state, entry)
    return state
