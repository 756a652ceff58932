"""Run a trusted supervisor in the sandbox while this thread reads its result pipe.

Shared by the Python and the JavaScript runners: the sandbox runs in a worker thread, our copies
of the descriptors handed to the child are closed once it has started (so EOF on the pipe means
every writer is gone), and reading stops shortly after the sandbox returned even if an escaped
process still holds the write end. What a line means is the caller's: ``to_record``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import selectors
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from bouts.models.challenge import Limits
from bouts.runner._channel import LineReader, Record
from bouts.runner._verdicts import RunEnd
from bouts.sandbox import Mount, Sandbox, SandboxResult

LINGER_S = 2.0
"""How long to keep reading after the sandbox returned (records still in flight)."""
POLL_S = 0.005
"""Between whole records, how long the reader waits before it reads again (none while a record is
still arriving): the records of quick tests are read several at a time, not one wake-up of this
process each (host CPU of a 200-test run 0.022 -> 0.011 s). The sandbox's supervisor still writes
each record the moment it has it: whatever it wrote waits in the kernel's pipe, which outlives it
(docs/sandbox.md, "Nothing holds a report on its way to the host"). The pipe is enlarged to
:data:`PIPE_BYTES` so that the writer does not stall while the reader waits."""
PIPE_BYTES = 1 << 20


def supervise(
    sandbox: Sandbox,
    argv: Sequence[str],
    *,
    workspace: Path,
    env: Mapping[str, str],
    limits: Limits,
    timeout_s: float,
    mounts: Sequence[Mount],
    read_fd: int,
    pass_fds: Sequence[int],
    to_record: Callable[[bytes], Record],
    name: str = "bouts-sandbox",
    workdir: str | None = None,
) -> tuple[list[Record], RunEnd]:
    """Run ``argv`` in ``sandbox`` with ``pass_fds`` (closed here once it started) and read
    ``read_fd`` until EOF; each line becomes ``to_record(line)``. Re-raises the sandbox's error."""
    lock = threading.Lock()
    open_fds = list(pass_fds)

    def close_ours() -> None:
        with lock:
            while open_fds:
                os.close(open_fds.pop())

    outcome: dict[str, SandboxResult | BaseException] = {}

    def work() -> None:
        try:
            where = {"workdir": workdir} if workdir is not None else {}  # a backend of old keeps working
            outcome["result"] = sandbox.run(
                argv, workspace=workspace, env=env, limits=limits, timeout_s=timeout_s,
                mounts=mounts, pass_fds=pass_fds, on_spawn=close_ours, **where,
            )  # fmt: skip
        except BaseException as exc:  # handed to the caller's thread below
            outcome["error"] = exc
        finally:
            close_ours()

    worker = threading.Thread(target=work, name=name, daemon=True)
    worker.start()
    records, oversized = _read(read_fd, worker, to_record)
    worker.join()
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    res = outcome["result"]
    assert isinstance(res, SandboxResult)
    return records, RunEnd(
        res.timed_out, res.exit_code, res.signal, protocol_violations=oversized, forbidden_calls=res.forbidden_calls
    )


def _read(read_fd: int, worker: threading.Thread, to_record: Callable[[bytes], Record]) -> tuple[list[Record], int]:
    """Records until EOF, or ``LINGER_S`` after the sandbox returned; and the oversized lines."""
    with contextlib.suppress(OSError):  # past the user's pipe quota the default stays: slower, no less safe
        fcntl.fcntl(read_fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    reader = LineReader(read_fd)
    records: list[Record] = []
    sel = selectors.DefaultSelector()
    sel.register(read_fd, selectors.EVENT_READ)
    finished_at: float | None = None
    try:
        while True:
            if not worker.is_alive():
                finished_at = finished_at or time.monotonic()
                if time.monotonic() - finished_at > LINGER_S:
                    break
            if not sel.select(0.2):
                continue
            lines = reader.feed()
            if lines is None:
                break
            records += [to_record(line) for line in lines]
            if reader.between_lines:
                time.sleep(POLL_S)
    finally:
        sel.close()
        os.close(read_fd)
    return records, reader.oversized
