"""The engine's tool layer for an agent: one sandbox for a whole run, every action recorded.

``AgentSandbox`` starts the challenge's workspace (``starter/`` plus ``tests/visible/`` and an empty
``deliverables/``) in one long-lived sandbox (``bouts.sandbox``, bubblewrap by default) running
``sandboxed/executor.py``, and talks to it over two pipes. Every harness acts only through
:meth:`exec`, :meth:`read` and :meth:`write`; each call is recorded here, on the host, as canonical
trajectory events (the command with its exit code and output, and the files the engine saw change),
and checked for attempts the sandbox stopped (``bouts.agents._guard``). Nothing the agent writes in
the workspace can change that record. See docs/agents.md#the-sandbox.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import select
import shlex
import shutil
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from bouts.agents._guard import command_attempts, outside, write_attempt
from bouts.agents._models import ExecResult, FileChange
from bouts.errors import SandboxError
from bouts.models.challenge import Challenge, Limits
from bouts.models.placeholders import ENGINE_PLACEHOLDERS
from bouts.models.results import ObservedExploit
from bouts.models.trajectory import Event
from bouts.runner import merged_exploits as merged
from bouts.sandbox import Mount, Sandbox, SandboxResult, user_env
from bouts.trajectory import ToolResult, command_events

EXECUTOR_DIR = Path(__file__).with_name("sandboxed")
_EXECUTOR_TARGET = "/bouts/agent"
_MODEL_TARGET = "/bouts/model"
FORWARD_PORT = 48_080
"""Loopback port of the in-sandbox forwarder to the model proxy (the sandbox has its own network
namespace: nothing else listens there)."""
_GRACE_S = 30.0
EXPORT_MARGIN_S = 120.0
"""The sandbox outlives the agent's time budget by this much: the workspace is exported after the
budget is spent (it lives in the sandbox's memory), then the sandbox ends."""


def session_limits(limits: Limits) -> Limits:
    """The challenge's limits, with room for a shell, a test run and the executor's threads at once."""
    return limits.model_copy(update={"memory_mb": max(limits.memory_mb, 2048),
                                     "max_processes": max(limits.max_processes, 128)})  # fmt: skip


def command_text(argv: list[str], data: str | None) -> str:
    """What a command *is*, for the trajectory: the script of ``bash -c``, with its standard input as a
    heredoc (Inspect's python tool sends its code that way)."""
    if len(argv) >= 3 and Path(argv[0]).name in {"bash", "sh"} and argv[-2] == "-c":
        text = argv[-1]
    else:
        text = shlex.join(argv)
    return f"{text} <<'BOUTS_STDIN'\n{data}\nBOUTS_STDIN" if data else text


class AgentSandbox:
    """``with AgentSandbox(challenge, sandbox=…, timeout_s=…) as box:`` then act through it."""

    def __init__(
        self, challenge: Challenge, *, sandbox: Sandbox, timeout_s: float, proxy_socket: Path | None = None,
        command_timeout_s: float = 120.0,
    ) -> None:  # fmt: skip
        if not sandbox.isolated:
            raise SandboxError(f"agents run only in an isolated sandbox; '{sandbox.name}' is not one")
        self.challenge = challenge
        self.workdir = challenge.spec.tests.workdir
        self._sandbox = sandbox
        self._timeout_s = timeout_s
        self._proxy_socket = proxy_socket
        self.command_timeout_s = command_timeout_s
        self.events: list[Event] = []
        self.exploits: list[ObservedExploit] = []
        self._lock = threading.Lock()
        self._started = 0.0
        self._result: SandboxResult | None = None
        self._error: BaseException | None = None

    # -- lifecycle ------------------------------------------------------------------------------

    def __enter__(self) -> AgentSandbox:
        self._tmp = Path(tempfile.mkdtemp(prefix="bouts-agent-"))
        workspace = self._tmp / "workspace"
        shutil.copytree(self.challenge.root / "starter", workspace, symlinks=True)
        visible = self.challenge.root / "tests" / "visible"
        if visible.is_dir():
            shutil.copytree(visible, workspace / "tests" / "visible", symlinks=True)
        (workspace / "deliverables").mkdir(exist_ok=True)
        req_r, self._req_w = os.pipe()
        self._resp_r, resp_w = os.pipe()
        mounts = [Mount(EXECUTOR_DIR, _EXECUTOR_TARGET)]
        socket_arg = ""
        if self._proxy_socket is not None:
            mounts.append(Mount(self._proxy_socket.parent, _MODEL_TARGET))
            socket_arg = f"{_MODEL_TARGET}/{self._proxy_socket.name}"
        argv = [sys.executable, "-I", f"{_EXECUTOR_TARGET}/executor.py", str(req_r), str(resp_w), self.workdir,
                socket_arg, str(FORWARD_PORT)]  # fmt: skip

        def close_child_ends() -> None:
            os.close(req_r)
            os.close(resp_w)

        def run() -> None:
            try:
                self._result = self._sandbox.run(
                    argv, workspace=workspace, env={"PATH": "/usr/bin:/bin", **user_env(True)},
                    limits=session_limits(self.challenge.spec.limits), timeout_s=self._timeout_s + EXPORT_MARGIN_S,
                    mounts=mounts,
                    workdir=self.workdir, pass_fds=(req_r, resp_w), on_spawn=close_child_ends,
                )  # fmt: skip
            except BaseException as exc:  # noqa: BLE001 (handed to the caller's thread)
                self._error = exc

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        self._answers = os.fdopen(self._resp_r, "r", encoding="utf-8")
        try:
            ready = self._receive(60.0)
        except BaseException:
            self.__exit__(None, None, None)  # the sandbox never came up: release what was opened
            raise
        self.workdir = ready.get("root", self.workdir)
        self._started = time.monotonic()
        return self

    @property
    def started_at(self) -> float:
        """When the workspace was ready (``time.monotonic()``): the trajectory's zero."""
        return self._started

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(OSError):
            os.write(self._req_w, b'{"op": "quit"}\n')
        os.close(self._req_w)
        self._thread.join(timeout=_GRACE_S)
        self._answers.close()
        shutil.rmtree(self._tmp, ignore_errors=True)

    @property
    def elapsed(self) -> float:
        return round(time.monotonic() - self._started, 3) if self._started else 0.0

    @property
    def time_left(self) -> float:
        """Seconds of the run's budget left; commands are refused (``TimeoutError``) once it is spent."""
        return self._timeout_s - self.elapsed

    @property
    def sandbox_name(self) -> str:
        return self._sandbox.name

    def env(self) -> dict[str, str]:
        """The environment of the agent's commands: the engine's Python first (it has pytest), and every
        proxy variable at the forwarder, so an ordinary client asking for another host is refused and
        named by the model proxy. pytest runs without plugin autoload, as the grader runs it (``bouts.runner``)."""
        env = {"PATH": f"{os.path.dirname(sys.executable)}:/usr/local/bin:/usr/bin:/bin", **user_env(True),
               "TMPDIR": "/tmp", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
               "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # fmt: skip
        if self._proxy_socket is not None:
            proxy = f"http://127.0.0.1:{FORWARD_PORT}"
            for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
                env[name] = proxy
            env["NO_PROXY"] = env["no_proxy"] = "localhost,127.0.0.1,::1"  # the forwarder itself, a local test server
            env["OPENAI_BASE_URL"] = f"{proxy}/v1"
            env.update(ENGINE_PLACEHOLDERS)  # OPENAI_API_KEY=bouts-proxy: the real key stays with the proxy
        return env

    # -- the protocol ---------------------------------------------------------------------------

    def _receive(self, timeout_s: float) -> dict:
        ready, _, _ = select.select([self._answers], [], [], timeout_s)
        line = self._answers.readline() if ready else ""
        if line:
            return json.loads(line)
        self._thread.join(timeout=_GRACE_S if ready else 0.1)
        if self._error is not None:
            raise SandboxError(f"the agent's sandbox failed: {self._error}") from self._error
        if self._result is not None and self._result.timed_out:
            raise SandboxError(f"the agent's sandbox reached its time limit ({self._timeout_s + EXPORT_MARGIN_S:g}s)")
        detail = self._result.stderr.decode(errors="replace")[-500:] if self._result is not None else "no answer"
        raise SandboxError(f"the agent's sandbox stopped answering: {detail}")

    def _call(self, request: dict, timeout_s: float) -> dict:
        with self._lock:
            os.write(self._req_w, (json.dumps(request) + "\n").encode())
            return self._receive(timeout_s + _GRACE_S)

    # -- the tools ------------------------------------------------------------------------------

    def exec(self, argv: list[str], *, input: str | None = None, cwd: str | None = None,
             env: dict[str, str] | None = None, timeout_s: float | None = None,
             merge_stderr: bool = False) -> ExecResult:  # fmt: skip
        """Run ``argv`` in the workspace (``cwd`` relative to it) and record it; ``merge_stderr``: one
        output stream, in the order it was written (``stderr`` is then empty). Its timeout is never past
        the end of the run's budget; past it, ``TimeoutError`` and nothing runs."""
        left = self.time_left
        if left <= 0:
            raise TimeoutError(f"the run's time budget ({self._timeout_s:g}s) is spent")
        timeout = min(timeout_s or self.command_timeout_s, self.command_timeout_s, left)
        t = self.elapsed
        answer = self._call({"op": "exec", "argv": argv, "input": input, "cwd": cwd, "merge": merge_stderr,
                             "env": {**self.env(), **(env or {})}, "timeout": timeout}, timeout)  # fmt: skip
        changes = tuple(FileChange(c["path"], c["kind"]) for c in answer.get("changes", []))
        result = ExecResult(exit_code=int(answer["exit_code"]) if answer.get("exit_code") is not None else -9,
                            stdout=answer.get("stdout", ""), stderr=answer.get("stderr", ""),
                            timed_out=bool(answer.get("timed_out")), changes=changes)  # fmt: skip
        self._record_command(t, command_text(argv, input), result)
        return result

    def read(self, path: str) -> bytes:
        """A file of the workspace. Raises ``FileNotFoundError``, ``IsADirectoryError`` or
        ``PermissionError`` (a path outside the workspace: refused and recorded)."""
        t = self.elapsed
        answer = self._call({"op": "read", "path": path}, 30.0)
        self._raise_for(answer, path, "read", t)
        with self._lock:
            self.events.append(Event(t=t, kind="read", path=self._relative(path), ok=True,
                                     source_line=len(self.events) + 1))  # fmt: skip
        return base64.b64decode(answer["data"])

    def write(self, path: str, data: bytes) -> tuple[FileChange, ...]:
        """Write a file of the workspace (parents created); same refusals as :meth:`read`."""
        t = self.elapsed
        answer = self._call({"op": "write", "path": path, "data": base64.b64encode(data).decode()}, 30.0)
        self._raise_for(answer, path, "write", t)
        changes = tuple(FileChange(c["path"], c["kind"]) for c in answer.get("changes", []))
        with self._lock:
            for change in changes:
                self.events.append(Event(t=t, kind=change.kind, path=change.path, ok=True,
                                         source_line=len(self.events) + 1))  # fmt: skip
        return changes

    def export(self, dest: Path) -> Path:
        """Copy the workspace as the agent left it into ``dest`` (regular files only)."""
        answer = self._call({"op": "export"}, 120.0)
        if "tar" not in answer:
            raise SandboxError(f"could not export the agent's workspace: {answer.get('error', 'no archive')}")
        dest.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(base64.b64decode(answer["tar"])), mode="r:gz") as tar:
            tar.extractall(dest, filter="data")  # refuses links, absolute paths and ../ members
        return dest

    # -- recording ------------------------------------------------------------------------------

    def _relative(self, path: str) -> str:
        full = os.path.normpath(os.path.join(self.workdir, path))
        return os.path.relpath(full, self.workdir) if full.startswith(self.workdir + os.sep) else path

    def _raise_for(self, answer: dict, path: str, verb: str, t: float) -> None:
        error = answer.get("error")
        if error is None:
            return
        if error == "outside" or outside(path, self.workdir):
            with self._lock:
                self.exploits.append(write_attempt(path, verb, f"agent step at {t:g}s"))
            raise PermissionError(f"{path}: outside the workspace ({self.workdir}); refused")
        if error == "not_found":
            raise FileNotFoundError(path)
        if error == "is_dir":
            raise IsADirectoryError(path)
        raise PermissionError(f"{path}: {answer.get('message', error)}")

    def _record_command(self, t: float, command: str, result: ExecResult) -> None:
        output = "\n".join(part for part in (result.stdout, result.stderr) if part)
        tool = ToolResult(output=output, exit_code=result.exit_code if not result.timed_out else None,
                          ok=False if result.timed_out else None)  # fmt: skip
        with self._lock:
            line = len(self.events) + 1
            found = command_events(t, command, tool, line)
            touched = {self._relative(e.path) for e in found if e.path and e.kind in ("write", "edit", "delete")}
            # The files the engine saw change that the command's text did not name (a script, a tool).
            seen = [Event(t=t, kind=c.kind, path=c.path, ok=True, source_line=line)
                    for c in result.changes if c.path not in touched]  # fmt: skip
            self.events.extend([*found, *seen])
            first = command.splitlines()[0] if command else ""
            where = f"agent command at {t:g}s: {first if len(first) <= 80 else first[:79] + '…'}"
            self.exploits.extend(command_attempts(command, output, self.workdir, where))

    def observed(self, extra: Sequence[ObservedExploit] = ()) -> tuple[ObservedExploit, ...]:
        """Distinct attempts the sandbox stopped during the run (and ``extra``, e.g. the proxy's)."""
        with self._lock:
            return tuple(merged([*self.exploits, *extra]))
