"""Run one ``node`` test process with a private result pipe, a nonce pipe and capped output.

Used by the trusted supervisor. The child is untrusted: it runs the test file, and so the
submission. What it writes on the result pipe is parsed as untrusted input (bounded lines,
nonce checked); its stdout/stderr are kept only up to a cap, for warnings and crash details.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from _bouts_driver.proto import LineBuffer

_EXIT_GRACE_S = 2.0
"""After the awaited record arrives, how long the process may take to exit before it is killed
(an open handle — a server, an interval — would otherwise keep it alive until the timeout)."""


@dataclass
class ChildRun:
    """What one node process did, as the supervisor saw it."""

    records: list[dict] = field(default_factory=list)
    forged: int = 0
    """Lines on the result pipe without this process's nonce (someone other than the reporter wrote)."""
    stderr: bytes = b""
    exit_code: int | None = None
    signal: int | None = None
    timed_out: bool = False
    lingered: bool = False
    """The process kept running after its result and was killed."""
    duration_s: float = 0.0
    running: str | None = None
    """With a :class:`Watchdog`: the test that had started and not ended when the process stopped."""


@dataclass
class Watchdog:
    """Per-test deadlines for a process that runs a whole file (vitest, jest).

    A test must end within ``test_s`` of its start (the framework's own timeout fires first and
    reports; this catches a test that blocks the event loop); between tests, ``quiet_s`` without
    news; the first news within ``startup_s`` (importing the file runs submission code too).
    Starts come from the process itself (jest: the result channel; vitest: a stderr heartbeat of
    the worker) and are untrusted: a forged one can only move a timeout onto another test of
    the same process, never produce a pass.
    """

    test_s: float
    quiet_s: float
    startup_s: float
    running: str | None = None
    since: float = 0.0
    news: bool = False

    def deadline(self, start: float) -> float:
        if self.running is not None:
            return self.since + self.test_s
        return (self.since + self.quiet_s) if self.news else (start + self.startup_s)

    def started(self, name: str, now: float) -> None:
        self.running, self.since, self.news = name, now, True

    def ended(self, name: str, now: float) -> None:
        if self.running == name:
            self.running = None
        if self.running is None:
            self.since = now
        self.news = True


def run_child(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: str,
    timeout_s: float,
    cap: int,
    nonce: str,
    done: Callable[[list[dict]], bool],
    watchdog: Watchdog | None = None,
) -> ChildRun:
    """Start ``argv`` in its own session; read its records until ``done(records)`` or exit or timeout.

    ``timeout_s`` caps the whole process; a ``watchdog`` also kills it when a test overruns. The
    whole process group is killed when this returns, whatever happened.
    """
    res_r, res_w = os.pipe()
    non_r, non_w = os.pipe()
    os.write(non_w, nonce.encode())  # fits in the pipe buffer: no reader needed yet
    os.close(non_w)
    run = ChildRun()
    start = time.monotonic()
    try:
        # argv[0] as a plain `node file` run spells it (process.argv0 is then "node", as in production).
        proc = subprocess.Popen(
            [os.path.basename(argv[0]), *argv[1:]], executable=argv[0], cwd=cwd,
            env={**env, "BOUTS_JS_FDS": f"{res_w},{non_r}"},
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            pass_fds=(res_w, non_r), start_new_session=True, close_fds=True,
        )  # fmt: skip
    finally:
        os.close(res_w)
        os.close(non_r)
    assert proc.stdout is not None and proc.stderr is not None
    sel = selectors.DefaultSelector()
    sel.register(res_r, selectors.EVENT_READ, "result")
    sel.register(proc.stdout.fileno(), selectors.EVENT_READ, "stdout")
    sel.register(proc.stderr.fileno(), selectors.EVENT_READ, "stderr")
    lines, err, beats = LineBuffer(cap=max(cap, 1 << 20)), bytearray(), LineBuffer(cap=max(cap, 1 << 20))
    deadline, grace_until = start + timeout_s, None
    try:
        while True:
            now = time.monotonic()
            if now > deadline or (watchdog is not None and grace_until is None and now > watchdog.deadline(start)):
                run.timed_out = True
                run.running = watchdog.running if watchdog is not None else None
                break
            if grace_until is not None and now > grace_until:
                run.lingered = proc.poll() is None
                break
            if proc.poll() is not None and not sel.get_map():
                break
            for key, _ in sel.select(0.05):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fd)
                    continue
                if key.data == "stderr":
                    if len(err) < cap:
                        err += chunk[: cap - len(err)]
                    if watchdog is not None:
                        for line in beats.feed(chunk):
                            if _relayed(run, line, nonce) is None:
                                _heartbeat(watchdog, line)
                elif key.data == "result":
                    for line in lines.feed(chunk):
                        rec = _take(run, line, nonce)
                        if watchdog is not None and rec is not None:
                            _observe(watchdog, rec)
            if grace_until is None and done(run.records):
                grace_until = time.monotonic() + _EXIT_GRACE_S
            if proc.poll() is not None and grace_until is None:
                # Exited without the awaited record: drain briefly (a grandchild may hold the pipes).
                grace_until = time.monotonic() + 0.2
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        rc = proc.wait()
        sel.close()
        os.close(res_r)
        proc.stdout.close()
        proc.stderr.close()
    if watchdog is not None and run.running is None:
        run.running = watchdog.running  # the test during which the process died, if it did
    run.exit_code, run.signal = (rc, None) if rc >= 0 else (None, -rc)
    run.stderr, run.duration_s = bytes(err), time.monotonic() - start
    return run


def _take(run: ChildRun, line: bytes, nonce: str) -> dict | None:
    try:
        rec = json.loads(line)
    except ValueError:
        rec = None
    if not isinstance(rec, dict) or not nonce or rec.get("nonce") != nonce:
        run.forged += 1
        return None
    run.records.append(rec)
    return rec


_BEAT = b"\x1eBOUTS-START "
_OBS = b"\x1eBOUTS-OBS "


def _relayed(run: ChildRun, line: bytes, nonce: str) -> dict | None:
    """An observation line that vitest's worker wrote on its stderr (relayed by vitest's main
    process): checked like a result line (the nonce), kept among the records in order."""
    start = line.find(_OBS)
    if start < 0:
        return None
    rec = _take(run, line[start + len(_OBS) :], nonce)
    if rec is not None and rec.get("type") != "obs":  # only observations travel this way
        run.records.remove(rec)
        run.forged += 1
    return rec or {}


def _heartbeat(watchdog: Watchdog, line: bytes) -> None:
    start = line.find(_BEAT)
    if start < 0:
        return
    try:
        name = json.loads(line[start + len(_BEAT) :])
    except ValueError:
        return
    if isinstance(name, str):
        watchdog.started(name, time.monotonic())


def _observe(watchdog: Watchdog, rec: dict) -> None:
    name, now = rec.get("id"), time.monotonic()
    if rec.get("type") == "start" and isinstance(name, str):
        watchdog.started(name, now)
    elif rec.get("type") == "result" and isinstance(name, str):
        watchdog.ended(name, now)
    else:
        watchdog.ended("", now)
