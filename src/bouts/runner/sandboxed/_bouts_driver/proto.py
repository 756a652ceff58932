"""Line-delimited JSON records on a pipe: the one wire format between sandbox processes and host."""

from __future__ import annotations

import json
import os

DETAIL_MAX = 1000


BODY = object()
"""The key of a record's *body* (bytes): a test's observations, already JSON (``observe``), which
the hops between the test process and the host carry without parsing them. A record with a body
is one line, ``header<RS>body``: the header is the record's JSON without it, ``RS`` the byte 0x1E,
which JSON as :func:`send` writes it never holds (a control character is escaped), so the first
one ends the header whoever wrote the line. Only the host parses a body (``_channel``). The key is
no string: no header a test process writes can name it."""

_RS = b"\x1e"


def send(fd: int, record: dict) -> None:
    """Write one record as one line; loops because a pipe write may be partial."""
    body = record.get(BODY)
    if body is None:
        data = (json.dumps(record, separators=(",", ":")) + "\n").encode()
    else:
        head = {k: v for k, v in record.items() if k is not BODY}
        data = json.dumps(head, separators=(",", ":")).encode() + _RS + body + b"\n"
    while data:
        n = os.write(fd, data)
        data = data[n:]


def loads(line: bytes) -> object:
    """A line as :func:`send` wrote it: the header parsed (``ValueError`` if it is no JSON), the
    body, if any, left as bytes under :data:`BODY` of a header that is an object."""
    head, sep, body = line.partition(_RS)
    try:
        rec = json.loads(head)
    except RecursionError as exc:  # a header nested past the parser's depth: as unreadable
        raise ValueError("nested too deeply") from exc
    if sep and type(rec) is dict:
        rec[BODY] = body
    return rec


def short(text: str) -> str:
    text = text.strip()
    return text if len(text) <= DETAIL_MAX else text[: DETAIL_MAX - 3] + "..."


def result(nodeid: str, outcome: str, duration: float, detail: str) -> dict:
    return {"type": "result", "id": nodeid, "outcome": outcome, "duration_s": duration, "detail": detail}


def limit(config: dict, nodeid: str, key: str) -> float:
    """The time limit ``key`` (``test_timeout_s`` or ``suite_timeout_s``) of the suite ``nodeid``'s
    file belongs to: the suite's own (``suite_limits``, set by the host: the engine's generated tests
    get theirs, docs/adversarial.md) or the session's."""
    own = (config.get("suite_limits") or {}).get(config["suite_of"].get(nodeid.split("::")[0], ""))
    return float((own or config)[key])


LINE_CAP = 10 * 1024 * 1024
"""Longest line a :class:`LineBuffer` keeps: a worker's record of a test report of up to
``worker._MAX_REPORT`` (8 MiB) with the fields it adds; the host's own cap is 16 MiB."""


class LineBuffer:
    """Splits bytes read from a pipe into lines, bounded so a flood cannot exhaust memory. Linear
    in what it is fed: only the new chunk is searched for line ends (a 2 MB record arriving in
    64 KiB reads was split again from its start at every read, 12 ms a record)."""

    def __init__(self, cap: int = LINE_CAP) -> None:
        self._buf = bytearray()
        self._cap = cap
        self.overflow = False

    def feed(self, chunk: bytes) -> list[bytes]:
        if b"\n" not in chunk:
            self._buf += chunk
            lines: list[bytes] = []
        else:
            first, *rest = chunk.split(b"\n")
            self._buf += first
            lines = [bytes(self._buf), *rest[:-1]]
            self._buf = bytearray(rest[-1])
        if len(self._buf) > self._cap:
            self._buf, self.overflow = bytearray(), True
        return [ln for ln in lines if ln.strip()]
