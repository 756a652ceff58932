"""The explicit unsafe backend: no isolation at all, for trusted local debugging only."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from bouts.errors import SandboxError
from bouts.models.challenge import Limits
from bouts.sandbox._base import Mount, SandboxResult, rlimit_args, run_process

log = logging.getLogger(__name__)

WARNING = (
    "UNSAFE: sandbox 'none' runs submitted code directly on this machine with the engine's "
    "privileges: no network, filesystem or process isolation. Use it only on code you trust."
)


class NoSandbox:
    """Runs the command on the host, in ``workspace``, with rlimits and a wall timeout only.

    There is no ``/workspace`` mount: the command runs in the workspace directory itself, and
    extra ``mounts`` are refused (there is nowhere to mount them). The process group is killed at
    the timeout, but a process that starts its own session survives it.
    """

    name = "none"
    isolated = False
    duplex_fds = True
    """The command reads a pipe the host writes as well as it writes one (``Sandbox``'s contract)."""

    def __init__(self) -> None:
        log.warning(WARNING)

    def run(
        self,
        argv: Sequence[str],
        *,
        workspace: Path,
        env: Mapping[str, str],
        limits: Limits,
        timeout_s: float,
        mounts: Sequence[Mount] = (),
        pass_fds: Sequence[int] = (),
        on_spawn: Callable[[], None] | None = None,
        workdir: str = "",
    ) -> SandboxResult:
        """Run ``argv`` unsandboxed (contract: :class:`bouts.sandbox.Sandbox`, minus the isolation)."""
        if mounts:
            if on_spawn is not None:
                on_spawn()
            raise SandboxError("the 'none' sandbox cannot mount paths; run the command on the host paths")
        log.warning(WARNING)
        return run_process(
            argv,
            cwd=workspace,
            env=env,
            limits=limits,
            timeout_s=timeout_s,
            pass_fds=pass_fds,
            on_spawn=on_spawn,
            notes=(WARNING,),
            wrap=lambda marked: rlimit_args(limits, timeout_s) + marked,
        )
