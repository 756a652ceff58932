"""The agent's tool layer inside the sandbox: one long-lived process per agent run. Stdlib only.

It runs inside the sandbox (``bouts.agents._session`` starts it), so everything it does is confined
like the agent's own commands. The host sends one JSON request per line on fd ``REQ`` and reads one
JSON answer per line on fd ``RESP``:

- ``exec``: run a command in the workspace (fresh process group, capped output, killed at its
  timeout) and answer its exit code, output and the files it changed (a before/after snapshot of
  the workspace: the engine, not the agent, says what changed);
- ``read`` / ``write``: a file tool on a path that must resolve inside the workspace;
- ``export``: the whole workspace as a gzip tar (base64), once the agent is done.

It also starts the model forwarder: a loopback TCP listener whose every connection is piped to the
engine's model proxy through the unix socket bound into the sandbox (there is no other way out:
the sandbox has no network). Why the design is this way: docs/agents.md#the-sandbox.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import json
import os
import signal
import socket
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Callable

MAX_OUTPUT = 1 << 20
"""Bytes of standard output (and of error) kept per command."""
MAX_EXPORT = 64 << 20
"""Largest workspace export (compressed)."""
SKIP_DIRS = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", "node_modules", ".git"})
"""Caches and tool state: neither the agent's work nor evidence of it."""


def snapshot(root: str) -> dict[str, tuple[int, int]]:
    """relative path → (size, mtime_ns) of every regular file under ``root`` (caches skipped)."""
    found: dict[str, tuple[int, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
        for name in filenames:
            path = os.path.join(dirpath, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            found[os.path.relpath(path, root)] = (st.st_size, st.st_mtime_ns)
    return found


class Workspace:
    """The workspace and what is known of its files, to tell the host what each action changed."""

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root)
        self.stats = snapshot(self.root)
        self.digests = {p: self._digest(p) for p in self.stats}

    def _digest(self, rel: str) -> str | None:
        try:
            with open(os.path.join(self.root, rel), "rb") as fh:
                return hashlib.sha256(fh.read()).hexdigest()
        except OSError:
            return None

    def changes(self) -> list[dict[str, str]]:
        """Files written, edited or deleted since the last call (content compared, not only times)."""
        now = snapshot(self.root)
        out: list[dict[str, str]] = []
        for rel in sorted(set(now) | set(self.stats)):
            if rel not in now:
                out.append({"path": rel, "kind": "delete"})
                self.digests.pop(rel, None)
            elif rel not in self.stats:
                self.digests[rel] = self._digest(rel)
                out.append({"path": rel, "kind": "write"})
            elif now[rel] != self.stats[rel]:
                digest = self._digest(rel)
                if digest != self.digests.get(rel):
                    out.append({"path": rel, "kind": "edit"})
                self.digests[rel] = digest
        self.stats = now
        return out

    def inside(self, path: str) -> str | None:
        """The absolute path ``path`` names if it resolves inside the workspace, else None."""
        full = os.path.realpath(os.path.join(self.root, path))
        return full if full == self.root or full.startswith(self.root + os.sep) else None


def _drain(fd: int, sink: bytearray, state: dict[str, bool]) -> None:
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        room = MAX_OUTPUT - len(sink)
        if room > 0:
            sink += chunk[:room]
        if len(chunk) > room:
            state["truncated"] = True
    os.close(fd)


def run_command(req: dict, ws: Workspace) -> dict:
    cwd = ws.inside(req.get("cwd") or ".") or ws.root
    env = {str(k): str(v) for k, v in (req.get("env") or {}).items()}
    data = req.get("input")
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:
        proc = subprocess.Popen(  # "merge": one stream, in the order it was written (as a terminal shows it)
            req["argv"], cwd=cwd, env=env, stdin=subprocess.PIPE if data is not None else subprocess.DEVNULL,
            stdout=out_w, stderr=out_w if req.get("merge") else err_w, start_new_session=True, close_fds=True,
        )  # fmt: skip
    except OSError as exc:
        for fd in (out_r, out_w, err_r, err_w):
            os.close(fd)
        return {"exit_code": 127, "stdout": "", "stderr": f"{req['argv'][0]}: {exc.strerror}", "timed_out": False,
                "changes": ws.changes()}  # fmt: skip
    os.close(out_w)
    os.close(err_w)
    out, err, state = bytearray(), bytearray(), {"truncated": False}
    readers = [threading.Thread(target=_drain, args=(fd, buf, state), daemon=True)
               for fd, buf in ((out_r, out), (err_r, err))]  # fmt: skip
    for r in readers:
        r.start()
    if data is not None and proc.stdin is not None:
        try:
            proc.stdin.write(data.encode())
            proc.stdin.close()
        except OSError:
            pass
    timed_out = False
    try:
        proc.wait(timeout=float(req.get("timeout") or 60))
    except subprocess.TimeoutExpired:
        timed_out = True
    with contextlib.suppress(OSError):  # whatever the command left running dies with it
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    for r in readers:
        r.join(timeout=5)
    return {
        "exit_code": proc.returncode, "stdout": out.decode(errors="replace"), "stderr": err.decode(errors="replace"),
        "timed_out": timed_out, "truncated": state["truncated"], "changes": ws.changes(),
    }  # fmt: skip


def _file_op(req: dict, ws: Workspace, act: Callable[[str], dict]) -> dict:
    """``act`` on the file ``req["path"]`` names, if it lies inside the workspace; errors as data."""
    path = ws.inside(req["path"])
    if path is None:
        return {"error": "outside"}
    if os.path.isdir(path):
        return {"error": "is_dir"}
    try:
        return act(path)
    except FileNotFoundError:
        return {"error": "not_found"}
    except OSError as exc:
        return {"error": "denied", "message": exc.strerror or str(exc)}


def read_file(req: dict, ws: Workspace) -> dict:
    def read(path: str) -> dict:
        with open(path, "rb") as fh:
            return {"data": base64.b64encode(fh.read(MAX_OUTPUT * 16)).decode()}

    return _file_op(req, ws, read)


def write_file(req: dict, ws: Workspace) -> dict:
    def write(path: str) -> dict:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(base64.b64decode(req["data"]))
        return {"changes": ws.changes()}

    return _file_op(req, ws, write)


def export(ws: Workspace) -> dict:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for rel in sorted(snapshot(ws.root)):
            path = os.path.join(ws.root, rel)
            if os.path.isfile(path) and not os.path.islink(path):
                tar.add(path, arcname=rel, recursive=False)
            if buf.tell() > MAX_EXPORT:
                return {"error": "too_large"}
    return {"tar": base64.b64encode(buf.getvalue()).decode()}


def _pump(src: socket.socket, dst: socket.socket) -> None:
    try:
        while chunk := src.recv(65536):
            dst.sendall(chunk)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)


def forward(listener: socket.socket, target: str) -> None:
    """Pipe every loopback connection to the engine's model proxy (a unix socket)."""
    while True:
        client, _ = listener.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(target)
        except OSError:
            client.close()
            upstream.close()
            continue
        threading.Thread(target=_pump, args=(client, upstream), daemon=True).start()
        threading.Thread(target=_pump, args=(upstream, client), daemon=True).start()


def main() -> None:
    req_fd, resp_fd, root = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    proxy_socket, port = sys.argv[4], int(sys.argv[5])
    if proxy_socket:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(16)
        threading.Thread(target=forward, args=(listener, proxy_socket), daemon=True).start()
    ws = Workspace(root)
    requests = os.fdopen(req_fd, "r", encoding="utf-8")
    answers = os.fdopen(resp_fd, "w", encoding="utf-8")
    handlers = {"exec": run_command, "read": read_file, "write": write_file}
    answers.write(json.dumps({"ready": True, "root": ws.root, "t": time.time()}) + "\n")
    answers.flush()
    while True:
        line = requests.readline()  # one request at a time: the host waits for each answer
        if not line:
            return
        req = json.loads(line)
        op = req.get("op")
        if op == "quit":
            return
        if op == "export":
            answer = export(ws)
        elif op in handlers:
            answer = handlers[op](req, ws)
        else:
            answer = {"error": f"unknown op {op!r}"}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
