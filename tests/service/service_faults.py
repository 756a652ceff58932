"""Helpers of the fault-injection suite: a TCP proxy that can drop a server (the database or the
broker) for the processes behind it only, and a Celery worker process with the instant scorer."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from bouts.service.config import ServiceSettings
from bouts.service.storage import Repository

WORKER_SCRIPT = Path(__file__).with_name("fault_worker.py")


class TcpProxy:
    """Forwards 127.0.0.1:<port> to ``target``. ``drop()`` closes every connection and refuses new
    ones, as a server that went away; ``restore()`` listens again on the same port."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self.port = self._listen(0)

    def _listen(self, port: int) -> int:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(256)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()
        return int(listener.getsockname()[1])

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets |= {client, upstream}
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def drop(self) -> None:
        with self._lock:
            if self._listener is not None:
                with contextlib.suppress(OSError):  # wakes the accept() blocked on it (close alone does not)
                    self._listener.shutdown(socket.SHUT_RDWR)
                self._listener.close()
                self._listener = None
            for s in self._sockets:
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()
            self._sockets.clear()

    def restore(self) -> None:
        with self._lock:
            if self._listener is None:
                self._listen(self.port)

    def close(self) -> None:
        self.drop()


def worker_env(settings: ServiceSettings) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"BOUTS_DATA_DIR": str(settings.data_dir), "BOUTS_DB_URL": settings.db_url,
                "BOUTS_BROKER_URL": settings.broker_url, "BOUTS_QUEUE": settings.queue,
                "BOUTS_LEASE_S": str(settings.lease_s), "BOUTS_RETRY_BACKOFF_S": str(settings.retry_backoff_s),
                "BOUTS_MAX_RETRIES": str(settings.max_retries),
                "BOUTS_SHUTDOWN_GRACE_S": str(settings.shutdown_grace_s)})  # fmt: skip
    return env


def start_worker(settings: ServiceSettings, log: Path) -> subprocess.Popen[bytes]:
    """A Celery worker (one pool process) scoring with the instant fake, in its own process group."""
    return subprocess.Popen([sys.executable, str(WORKER_SCRIPT)], env=worker_env(settings), stdout=log.open("ab"),
                            stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip


def kill(worker: subprocess.Popen[bytes], sig: int = signal.SIGKILL) -> None:
    if worker.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(worker.pid, sig)
        try:
            worker.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()


def stalling(repo: Repository, submission_id: str) -> bool:
    """Whether the instant fake is blocked in a ``STALL_ONCE`` submission's first scoring (it marks
    the archive before it blocks): ``running`` alone may still be before that point, and a worker
    stopped there would leave the stall to the next one."""
    info = repo.submissions.get(submission_id)
    return info is not None and Path(f"{info.archive_path}.stalled").exists()


def wait_for(predicate: Callable[[], bool], what: str, timeout: float = 180) -> None:
    """Wait on a condition with a generous bound; never a statement about how long it took."""
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while True:
        try:
            if predicate():
                return
        except Exception as exc:  # the database is down for a moment: ask again
            last = exc
        assert time.monotonic() < deadline, f"timed out waiting for {what} (last error: {last!r})"
        time.sleep(0.1)
