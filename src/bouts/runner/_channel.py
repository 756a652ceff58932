"""The host side of the result channel: bounded line reading and strict record parsing.

Everything read here was written inside the sandbox, so it is parsed as untrusted input: a
malformed or oversized line is a protocol violation, never an exception that aborts grading.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import Literal

from bouts.models.results import Outcome

ExploitKind = Literal["network", "sandbox_escape", "grader_detection"]
_EXPLOIT_KINDS: tuple[ExploitKind, ...] = ("network", "sandbox_escape", "grader_detection")

MAX_LINE = 16 * 1024 * 1024
"""Longest record accepted (the ``collected`` list of a very large suite fits comfortably)."""

_DRIVER_OUTCOMES = {o.value for o in (Outcome.PASSED, Outcome.FAILED, Outcome.ERROR, Outcome.TIMEOUT, Outcome.CRASHED)}


@dataclass(frozen=True)
class Record:
    """One parsed line of the driver's protocol."""

    kind: Literal[
        "hello", "baseline", "integrity", "violation", "crash", "warning", "collect_error", "collected",
        "result", "done", "invalid", "exploit", "phase_end", "phase",
    ]  # fmt: skip
    id: str = ""
    outcome: Outcome | None = None
    duration_s: float = 0.0
    detail: str = ""
    ids: tuple[str, ...] = ()
    warnings: tuple[str, ...] = field(default_factory=tuple)
    exit_code: int | None = None
    digest: str = ""
    """Tamper fingerprint digest (baseline, a worker after import, or a test process after its test)."""
    changed: tuple[str, ...] = ()
    """Names of watched objects the sender saw changed (untrusted: for the message only)."""
    foreign: tuple[str, ...] = ()
    """pytest plugins registered from outside the engine and the challenge's tests."""
    observations: tuple[str, ...] = ()
    """Digests of the values a test passed to ``bouts_expect``, in order (JavaScript runner)."""
    codes: tuple[tuple[str, str], ...] = ()
    """(test id, hash of its function's code) as a worker collected them (``integrity`` records)."""
    code: str = ""
    """The hash of the test function's code after the test ran (``result`` records)."""
    occurrences: tuple[object, ...] = ()
    """Externalised assertions the test executed: ``[site, {slot: text of the encoding}]`` each,
    untrusted (checked by ``_decide``; the texts stay strings until a check needs the value)."""
    obs_overflow: bool = False
    has_obs: bool = False
    """Whether the record carries the driver's observation list at all (the driver always writes one)."""
    died_after_report: bool = False
    """The worker saw the test process killed by a signal after it reported a pass."""
    exploits: tuple[tuple[ExploitKind, str], ...] = ()
    """Exploit attempts seen (``(kind, evidence)``): by the test's audit hook, or a SIGSYS death."""
    seed: int | None = None
    """The seed of the phase a ``phase`` record starts (the hidden suite's fresh-seed phase)."""
    seeded: bool = True
    """Whether the test (``result``) or a worker's collection (``integrity``) may have read the
    phase's seed (``_bouts_driver.seedwatch``; only a trusted reference run asks). True unless the
    record says otherwise: a record that does not say is taken to depend on the seed."""


def _seconds(value: object) -> float:
    """A record's duration: a finite number of seconds, else 0 (an int past a float's range, NaN)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    try:
        seconds = float(value)
    except OverflowError:
        return 0.0
    return seconds if math.isfinite(seconds) and seconds >= 0 else 0.0


def _str(value: object, limit: int = 2000) -> str:
    return value[:limit] if isinstance(value, str) else ""


def _strs(value: object, limit: int = 200) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(_str(v, 500) for v in value[:limit] if isinstance(v, str))


def _exploits(value: object) -> tuple[tuple[ExploitKind, str], ...]:
    """At most 16 ``{"kind", "evidence"}`` items of a known kind, evidence printable and short."""
    out: list[tuple[ExploitKind, str]] = []
    for item in value[:16] if isinstance(value, list) else []:
        kind = item.get("kind") if isinstance(item, dict) else None
        evidence = _str(item.get("evidence"), 300) if isinstance(item, dict) else ""
        for known in _EXPLOIT_KINDS:
            if kind == known and evidence:
                out.append((known, "".join(c if c.isprintable() else "?" for c in evidence)))
    return tuple(out)


def _codes(value: object) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict):
        return ()
    items = list(value.items())[:100_000]
    return tuple((k[:2000], v[:64]) for k, v in items if isinstance(k, str) and isinstance(v, str))


RS = b"\x1e"
"""Ends a record's header where a body follows (``_bouts_driver.proto.BODY``): ``header<RS>body``,
the body a test's observations as JSON, carried unparsed from the test process to here."""


def parse_record(line: bytes) -> Record:
    """Parse one line into a :class:`Record`; anything unexpected becomes ``kind='invalid'``. A
    result's observations are its body (after the first :data:`RS`), and only there."""
    head, _, body = line.partition(RS)
    try:
        obj = json.loads(head)
    except (ValueError, RecursionError):
        return Record("invalid", detail="not JSON")
    if not isinstance(obj, dict):
        return Record("invalid", detail="not an object")
    kind = obj.get("type")
    if kind == "hello":
        return Record("hello")
    if kind == "baseline":
        return Record("baseline", digest=_str(obj.get("digest"), 128))
    if kind == "integrity":
        return Record(
            "integrity",
            digest=_str(obj.get("digest"), 128),
            changed=_strs(obj.get("changed")),
            foreign=_strs(obj.get("foreign")),
            codes=_codes(obj.get("codes")),
            seeded=obj.get("seeded") is not False,
        )
    if kind == "exploit":
        found = _exploits([obj])
        if not found:
            return Record("invalid", detail="bad exploit record")
        return Record("exploit", id=_str(obj.get("where"), 500), exploits=found)
    if kind in ("violation", "crash"):
        return Record(kind, detail=_str(obj.get("detail")))
    if kind == "phase_end":
        return Record("phase_end")
    if kind == "phase":
        seed = obj.get("seed")
        return Record("phase", seed=seed) if isinstance(seed, int) else Record("invalid", detail="bad phase record")
    if kind == "done":
        code = obj.get("exit")
        return Record("done", exit_code=code if isinstance(code, int) else None)
    if kind == "warning":
        return Record("warning", id=_str(obj.get("id")), detail=_str(obj.get("text")))
    if kind == "collect_error":
        return Record("collect_error", id=_str(obj.get("id")), detail=_str(obj.get("detail")))
    if kind == "collected":
        ids = obj.get("ids")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            return Record("invalid", detail="bad collected ids")
        return Record("collected", ids=tuple(ids))
    if kind == "result":
        outcome, node = obj.get("outcome"), obj.get("id")
        if outcome not in _DRIVER_OUTCOMES or not isinstance(node, str):
            return Record("invalid", detail="bad result")
        duration = obj.get("duration_s")
        warns = obj.get("warnings") or []
        obs = _body(body)
        return Record(
            "result",
            id=node,
            outcome=Outcome(outcome),
            duration_s=_seconds(duration),
            detail=_str(obj.get("detail")),
            warnings=tuple(_str(w, 500) for w in warns[:50] if isinstance(w, str)) if isinstance(warns, list) else (),
            digest=_str(obj.get("digest"), 128),
            changed=_strs(obj.get("changed")),
            observations=_strs(obj.get("observations"), 10_000),
            code=_str(obj.get("code"), 64),
            occurrences=tuple(obs) if obs is not None else (),
            obs_overflow=obj.get("obs_overflow") is True,
            has_obs=obs is not None,
            died_after_report=obj.get("died_after_report") is True,
            exploits=_exploits(obj.get("exploits")),
            seeded=obj.get("seeded") is not False,
        )
    return Record("invalid", detail=f"unknown record type {str(kind)[:40]!r}")


def _body(body: bytes) -> list | None:
    """A result's observations: its body parsed, if that is a JSON list (else none: the host then
    has nothing to decide the test's assertions from, and it does not pass)."""
    if not body:
        return None
    try:
        obs = json.loads(body)
    except (ValueError, RecursionError):
        return None
    return obs if isinstance(obs, list) else None


class LineReader:
    """Splits a pipe into lines without ever holding more than ``MAX_LINE`` bytes."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buf = bytearray()
        self._skipping = False
        self.oversized = 0
        self.full = False
        """Whether the last read filled its buffer: more may be waiting in the pipe already."""

    @property
    def between_lines(self) -> bool:
        """Whether the last read ended where a line ended, with no more already waiting: the
        writer is not in the middle of a record (``supervise`` may then pause before reading on)."""
        return not self.full and not self._buf and not self._skipping

    def feed(self) -> list[bytes] | None:
        """Read what is available; return complete lines, or ``None`` at end of file."""
        chunk = os.read(self.fd, 1 << 16)
        self.full = len(chunk) == 1 << 16
        if not chunk:
            return None
        lines: list[bytes] = []
        start = 0
        while (nl := chunk.find(b"\n", start)) != -1:
            if not self._skipping:
                self._buf += chunk[start:nl]
                lines.append(bytes(self._buf))
            self._buf.clear()
            self._skipping = False
            start = nl + 1
        if not self._skipping:
            self._buf += chunk[start:]
            if len(self._buf) > MAX_LINE:
                self._buf.clear()
                self._skipping = True
                self.oversized += 1
        return lines
