"""Batch sessions, the host side: one bubblewrap session grades many submissions one after another,
so a batch (``bouts eval``) pays for the sandbox, the interpreter and pytest's import once per
session rather than once per submission (docs/sandbox.md, "Batch sessions").

What each submission gets is what a session of its own gives it, with one difference: its
processes run where earlier submissions' processes ran. Before each one the driver
(``_bouts_driver.batch``) kills every process left, puts every writable mount back as the session
started (workspace, ``/tmp``, ``HOME``, ``/dev``), removes System V IPC objects, and checks it did;
the host then binds the next submission's code and tests read-only where the session reads them.
Only graded runs (``external`` or ``inline`` assertions) use a batch session: a reference's golden
run, a run with prepared dependencies or PostgreSQL, or a workspace over :data:`TREE_MAX` gets a
session of its own, as does any run when no batch is active (:func:`batches`).

The session is the host's to end: a submission over its time (the same budget its own session
would have) ends it, as does the driver reporting that it could not restore the session's state;
the next submission then starts a new one. A session that ends under a submission before the
submission's time is up (its driver died, a descriptor limit, a submission that killed the
supervisor) is never that submission's verdict: :meth:`Session.run` answers ``None`` and the caller
grades it in a session of its own (issue 43). Verdicts are decided on the host as always.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from bouts.errors import SandboxError
from bouts.models.challenge import Limits
from bouts.runner._channel import LineReader, Record, parse_record
from bouts.runner._session import DRIVER_LIB, LIB_TARGET, compile_driver, driver_env, supervisor_argv
from bouts.runner._verdicts import RunEnd
from bouts.sandbox import Mount, Sandbox, SandboxResult

TREE_MAX = 8 * 1024 * 1024
"""Largest workspace (bytes, tests excluded) a batch session takes: the session's workspace is sized
once, for the sandbox's scratch room; a larger tree gets a session of its own."""
SESSION_S = 1800.0
"""A session's wall-clock life: a submission whose budget does not fit what is left starts a new one."""
MAX_SAMPLES = 400
"""Submissions one session grades before a new one starts."""
_START_S = 60.0
"""How long a new session may take to say it is ready (interpreter, pytest, the tamper baseline)."""
_CLOSE_S = 10.0


@dataclass(frozen=True)
class Layout:
    """What must be the same for two runs to share a session: the sandbox's mounts and limits."""

    workdir: str
    limits: tuple[int, int, int, int]
    """memory_mb, max_processes, max_file_mb, max_output_kb: the session's rlimits and caps."""

    @staticmethod
    def of(workdir: str, limits: Limits) -> Layout:
        return Layout(workdir, (limits.memory_mb, limits.max_processes, limits.max_file_mb, limits.max_output_kb))


class Session:
    """One running batch session. Not thread-safe: :func:`session_for` hands it to one run at a time."""

    def __init__(self, sandbox: Sandbox, layout: Layout, limits: Limits) -> None:
        self.layout, self.served, self.dead = layout, 0, False
        self.ended_under: int | None = None
        """The submission (by its number in the session) the session ended under, if it did."""
        self.started = time.monotonic()
        self.lock = threading.Lock()
        self.dir = Path(tempfile.mkdtemp(prefix="bouts-batch-"))
        self.source, self.tests = self.dir / "source", self.dir / "tests"
        for d in (self.source, self.tests):
            d.mkdir(mode=0o755)
            d.chmod(0o755)
        read_fd, write_fd = os.pipe()
        ctl_r, self.ctl_w = os.pipe()
        compile_driver()
        config = {
            "batch": True, "result_fd": write_fd, "seed_fd": ctl_r, "seed": 0, "workspace": layout.workdir,
            "lib": LIB_TARGET, "deps": None, "source": sandbox.workspace_source,  # type: ignore[attr-defined]
        }  # fmt: skip
        argv = supervisor_argv(LIB_TARGET, config)
        self.reader = LineReader(read_fd)
        self.sel = selectors.DefaultSelector()
        self.sel.register(read_fd, selectors.EVENT_READ)
        self.pgid: int | None = None
        self.result: SandboxResult | BaseException | None = None
        passed = [write_fd, ctl_r]

        def close_ours() -> None:
            while passed:
                os.close(passed.pop())

        def work() -> None:
            try:
                self.result = sandbox.run(  # type: ignore[call-arg]
                    argv, workspace=self.source, env=driver_env(0), limits=limits, timeout_s=SESSION_S,
                    mounts=[Mount(DRIVER_LIB, LIB_TARGET), Mount(self.tests, f"{layout.workdir}/tests")],
                    pass_fds=list(passed), on_spawn=close_ours, workdir=layout.workdir,
                    on_start=lambda pgid: setattr(self, "pgid", pgid),
                )  # fmt: skip
            except BaseException as exc:  # read by the host thread
                self.result = exc
            finally:
                close_ours()

        self.thread = threading.Thread(target=work, name="bouts-batch-session", daemon=True)
        self.thread.start()
        self.pending: list[bytes] = []
        self.preamble: list[Record] = []
        stop = time.monotonic() + _START_S
        while True:
            line = self._line(stop)
            if line is None:
                self.close()
                raise SandboxError(f"a batch session did not start ({self._why()})")
            rec = parse_record(line)
            if rec.kind in ("hello", "baseline"):
                self.preamble.append(rec)
            elif _kind(line) == "batch_ready" and len(self.preamble) == 2:
                return

    def _why(self) -> str:
        res = self.result
        if isinstance(res, BaseException):
            return str(res)
        if isinstance(res, SandboxResult):
            return f"exit {res.exit_code}, signal {res.signal}: {res.stderr[-500:].decode(errors='replace')}"
        return "no answer in time"

    def _line(self, stop: float) -> bytes | None:
        """The session's next line before ``stop``; ``None`` at its end or at ``stop``."""
        while not self.pending:
            left = stop - time.monotonic()
            if left <= 0:
                return None
            if not self.sel.select(min(left, 0.5)):
                continue
            lines = self.reader.feed()
            if lines is None:
                return None
            self.pending += lines
        return self.pending.pop(0)

    def fits(self, timeout_s: float) -> bool:
        return not self.dead and self.served < MAX_SAMPLES and time.monotonic() + timeout_s < self.started + SESSION_S

    def run(
        self,
        workspace: Path,
        tests: Path,
        config: Mapping[str, object],
        *,
        timeout_s: float,
        on_result: Callable[[Record], None],
        fresh_seed: int | None,
        phase_at: list[float],
    ) -> tuple[list[Record], RunEnd] | None:
        """Grade one submission: its workspace and tests (left as they are), its run ``config``.
        ``None`` when the session could not take it, or ended under it before its time was up (the
        caller runs it in a session of its own)."""
        if self.dead:
            return None
        for host_dir, src in ((self.source, workspace), (self.tests, tests)):
            _empty(host_dir)
            if src.is_dir():
                shutil.copytree(src, host_dir, symlinks=True, dirs_exist_ok=True)
        self.served += 1
        sample = {k: v for k, v in config.items() if k not in ("workspace", "lib", "deps", "result_fd", "seed_fd")}
        sample["n"] = self.served
        try:
            os.write(self.ctl_w, json.dumps(sample).encode() + b"\n")
        except OSError:
            self._end()
            return None
        stop = time.monotonic() + timeout_s
        records: list[Record] = list(self.preamble)
        oversized, first_phase, begun = self.reader.oversized, True, False
        while True:
            line = self._line(stop)
            if line is None:
                break
            kind = _kind(line)
            if kind == "batch_broken" and not begun:  # the previous submission left what could not be undone
                self._end()
                return None
            if kind == "sample":
                begun = True
                continue
            if kind == "sample_done":
                records.append(Record("done", exit_code=0))
                return records, RunEnd(False, 0, None, protocol_violations=self.reader.oversized - oversized)
            if not begun:
                continue
            rec = parse_record(line)
            if rec.kind == "result" and first_phase:
                on_result(rec)
            elif rec.kind == "phase_end" and first_phase and fresh_seed is not None:
                first_phase = False
                phase_at.append(time.monotonic())
                with contextlib.suppress(OSError):
                    os.write(self.ctl_w, f"{fresh_seed}\n".encode())
            records.append(rec)
        timed_out = time.monotonic() >= stop
        self._end()
        if not begun or not timed_out:
            # The session ended under the submission before its time was up: an infrastructure
            # failure of the shared session (a descriptor limit, a driver that died) or something the
            # submission did to it; either way not its verdict. The caller grades it in a session of
            # its own, whose verdict is what ``bouts score`` gives (issue 43).
            self.ended_under = self.served
            phase_at.clear()
            return None
        # Over its time: as its own session would have ended.
        violations = self.reader.oversized - oversized
        end = RunEnd(True, None, signal.SIGKILL, protocol_violations=violations)
        return records, end

    def _end(self) -> SandboxResult | BaseException | None:
        """Stop the session for good (killing it if it does not stop); how it ended."""
        self.dead = True
        with contextlib.suppress(OSError):
            os.close(self.ctl_w)
        if self.pgid is not None and self.thread.is_alive():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pgid, signal.SIGKILL)
        self.thread.join(_CLOSE_S)
        return self.result

    def close(self) -> None:
        """End the session: the driver sees its control pipe close and exits."""
        if not self.dead:
            self.dead = True
            with contextlib.suppress(OSError):
                os.close(self.ctl_w)
            self.thread.join(_CLOSE_S)
        if self.thread.is_alive() and self.pgid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pgid, signal.SIGKILL)
            self.thread.join(_CLOSE_S)
        self.sel.close()
        with contextlib.suppress(OSError):
            os.close(self.reader.fd)
        shutil.rmtree(self.dir, ignore_errors=True)


def _kind(line: bytes) -> str | None:
    """The ``type`` of a line of the driver's session protocol (``batch_ready``, ``sample``...)."""
    if not line.startswith(b'{"type":"') or len(line) > 200:
        return None
    with contextlib.suppress(ValueError):
        obj = json.loads(line)
        if isinstance(obj, dict) and isinstance(obj.get("type"), str):
            return str(obj["type"])
    return None


def _empty(directory: Path) -> None:
    for entry in directory.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


_ACTIVE: dict[Layout, Session] | None = None
_GUARD = threading.Lock()


@contextlib.contextmanager
def batches() -> Iterator[None]:
    """Within it, graded runs in this process share batch sessions where they can; all end with it."""
    global _ACTIVE
    outer, _ACTIVE = _ACTIVE, {} if _ACTIVE is None else _ACTIVE
    try:
        yield
    finally:
        if outer is None:
            close_all()


def enable() -> None:
    """Batch sessions for the rest of this process (a pool worker's initializer); they end with it:
    at interpreter exit, and at a multiprocessing worker's exit (which skips ``atexit``)."""
    global _ACTIVE
    if _ACTIVE is None:
        _ACTIVE = {}
        import atexit
        from multiprocessing import util

        atexit.register(close_all)
        util.Finalize(None, close_all, exitpriority=10)


def close_all() -> None:
    """End every session of this process (their temporary directories go with them)."""
    global _ACTIVE
    with _GUARD:
        sessions, _ACTIVE = list((_ACTIVE or {}).values()), None
    for session in sessions:
        session.close()


@contextlib.contextmanager
def session_for(sandbox: Sandbox, workdir: str, limits: Limits, timeout_s: float) -> Iterator[Session | None]:
    """A batch session for a run of ``timeout_s`` in this layout, held for the run; ``None`` when no
    batch is active, the backend keeps none, or the layout's session is busy (the run then gets one
    of its own). A session that ended during the run is forgotten after it."""
    if _ACTIVE is None or not getattr(sandbox, "workspace_source", None) or not getattr(sandbox, "duplex_fds", False):
        yield None
        return
    session = _claim(sandbox, Layout.of(workdir, limits), limits, timeout_s)
    try:
        yield session
    finally:
        if session is not None:
            session.lock.release()
            if session.dead:
                retire(session)


def _claim(sandbox: Sandbox, layout: Layout, limits: Limits, timeout_s: float) -> Session | None:
    """The layout's session, locked for the caller; a new one when it has none or its one is spent."""
    with _GUARD:
        if _ACTIVE is None:
            return None
        stale = _ACTIVE.get(layout)
        if stale is not None:
            if not stale.lock.acquire(blocking=False):
                return None  # busy: another thread's run holds it
            if stale.fits(timeout_s):
                return stale
            _ACTIVE.pop(layout)
    if stale is not None:
        stale.lock.release()
        stale.close()
    try:
        session = Session(sandbox, layout, limits)
    except SandboxError:
        return None
    session.lock.acquire()
    with _GUARD:
        if _ACTIVE is not None and layout not in _ACTIVE:
            _ACTIVE[layout] = session
            return session
    session.lock.release()
    session.close()
    return None


def retire(session: Session) -> None:
    """Forget a session that ended (the next run of its layout starts a new one)."""
    with _GUARD:
        if _ACTIVE is not None and _ACTIVE.get(session.layout) is session:
            _ACTIVE.pop(session.layout)
    session.close()
