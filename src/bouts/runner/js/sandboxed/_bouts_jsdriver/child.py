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


def run_child(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: str,
    timeout_s: float,
    cap: int,
    nonce: str,
    done: Callable[[list[dict]], bool],
) -> ChildRun:
    """Start ``argv`` in its own session; read its records until ``done(records)`` or exit or timeout.

    The whole process group is killed when this returns, whatever happened.
    """
    res_r, res_w = os.pipe()
    non_r, non_w = os.pipe()
    os.write(non_w, nonce.encode())  # fits in the pipe buffer: no reader needed yet
    os.close(non_w)
    run = ChildRun()
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            list(argv), cwd=cwd, env={**env, "BOUTS_JS_FDS": f"{res_w},{non_r}"},
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
    lines, err = LineBuffer(cap=max(cap, 1 << 20)), bytearray()
    deadline, grace_until = start + timeout_s, None
    try:
        while True:
            now = time.monotonic()
            if now > deadline:
                run.timed_out = True
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
                if key.data == "stderr" and len(err) < cap:
                    err += chunk[: cap - len(err)]
                elif key.data == "result":
                    for line in lines.feed(chunk):
                        _take(run, line, nonce)
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
    run.exit_code, run.signal = (rc, None) if rc >= 0 else (None, -rc)
    run.stderr, run.duration_s = bytes(err), time.monotonic() - start
    return run


def _take(run: ChildRun, line: bytes, nonce: str) -> None:
    try:
        rec = json.loads(line)
    except ValueError:
        rec = None
    if not isinstance(rec, dict) or not nonce or rec.get("nonce") != nonce:
        run.forged += 1
        return
    run.records.append(rec)
