"""The ``bouts`` Inspect AI sandbox environment: Inspect's tools act through the engine's tool layer.

Registered with Inspect as ``sandbox="bouts"`` (its config: the challenge directory). Each sample
gets one :class:`~bouts.agents._session.AgentSandbox` holding the challenge's starter and visible
tests, in the engine's sandbox backend (bubblewrap by default). Inspect's ``bash`` and ``python``
tools and the bridge's ``text_editor`` run through :meth:`exec`, :meth:`read_file` and
:meth:`write_file`; Inspect records them in its transcript, which the Bouts scorer reads. The model
is Inspect's own client (in the engine's process): the sandbox reaches no host at all, and its proxy
names every one the agent's commands asked for. Imported only where ``inspect-ai`` is installed.
"""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path
from typing import Literal, overload

import anyio
from inspect_ai.util import ExecResult, SandboxEnvironment, SandboxEnvironmentConfigType, sandboxenv

from bouts.agents._proxy import ModelProxy
from bouts.agents._run import DEFAULT_TIME_S
from bouts.agents._session import AgentSandbox
from bouts.loading import load_challenge
from bouts.sandbox import get_sandbox

SANDBOX_BACKEND = "bubblewrap"


@sandboxenv(name="bouts")
class BoutsSandboxEnvironment(SandboxEnvironment):
    """One agent sandbox per sample (config: the challenge directory, as a string)."""

    def __init__(self, box: AgentSandbox, proxy: ModelProxy, socket_dir: tempfile.TemporaryDirectory[str]) -> None:
        super().__init__()
        self.box = box
        self.proxy = proxy
        self._socket_dir = socket_dir

    @classmethod
    async def sample_init(
        cls, task_name: str, config: SandboxEnvironmentConfigType | None, metadata: dict[str, str]
    ) -> dict[str, SandboxEnvironment]:
        if not isinstance(config, str):
            raise ValueError("the bouts sandbox needs the challenge directory as its config: sandbox=('bouts', path)")

        def start() -> BoutsSandboxEnvironment:
            challenge = load_challenge(Path(config))
            socket_dir = tempfile.TemporaryDirectory(prefix="bouts-proxy-")
            proxy = ModelProxy(None, Path(socket_dir.name)).__enter__()
            box = AgentSandbox(challenge, sandbox=get_sandbox(SANDBOX_BACKEND), proxy_socket=proxy.socket_path,
                               timeout_s=challenge.spec.budgets.time_s or DEFAULT_TIME_S).__enter__()  # fmt: skip
            return cls(box, proxy, socket_dir)

        return {"default": await anyio.to_thread.run_sync(start)}

    @classmethod
    async def sample_cleanup(
        cls, task_name: str, config: SandboxEnvironmentConfigType | None,
        environments: dict[str, SandboxEnvironment], interrupted: bool,
    ) -> None:  # fmt: skip
        for env in environments.values():
            if isinstance(env, BoutsSandboxEnvironment):
                await anyio.to_thread.run_sync(env.close)

    def close(self) -> None:
        self.box.__exit__(None, None, None)
        self.proxy.__exit__(None, None, None)
        self._socket_dir.cleanup()

    async def exec(
        self, cmd: list[str], input: str | bytes | None = None, cwd: str | None = None,
        env: dict[str, str] | None = None, user: str | None = None, timeout: int | None = None,
        timeout_retry: bool = True, concurrency: bool = True,
    ) -> ExecResult[str]:  # fmt: skip
        data = input.decode(errors="replace") if isinstance(input, bytes) else input
        run = functools.partial(self.box.exec, list(cmd), input=data, cwd=cwd, env=env, timeout_s=timeout)
        result = await anyio.to_thread.run_sync(run)
        if result.timed_out:
            raise TimeoutError(f"command timed out after {timeout or self.box.command_timeout_s}s")
        return ExecResult(success=result.exit_code == 0, returncode=result.exit_code,
                          stdout=result.stdout, stderr=result.stderr)  # fmt: skip

    async def write_file(self, file: str, contents: str | bytes) -> None:
        data = contents.encode() if isinstance(contents, str) else contents
        await anyio.to_thread.run_sync(self.box.write, file, data)

    @overload
    async def read_file(self, file: str, text: Literal[True] = True) -> str: ...

    @overload
    async def read_file(self, file: str, text: Literal[False]) -> bytes: ...

    async def read_file(self, file: str, text: bool = True) -> str | bytes:
        data = await anyio.to_thread.run_sync(self.box.read, file)
        return data.decode("utf-8") if text else data
