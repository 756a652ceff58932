"""Sandbox backends: one contract (:class:`Sandbox`), registered on the project's one registry.

Built-ins are registered exactly like a third-party backend would be (``bouts.plugins`` entry
point, or directly)::

    from bouts.sandbox import sandboxes

    @sandboxes.register("mine")
    def make_mine() -> Sandbox: ...

    sandbox = get_sandbox("mine")
"""

from __future__ import annotations

from bouts.registry import Registry
from bouts.sandbox._base import (
    SANDBOX_HOME,
    SANDBOX_UID,
    SANDBOX_USER,
    WORKSPACE,
    Mount,
    Sandbox,
    SandboxResult,
    user_env,
)

__all__ = [
    "DEFAULT_SANDBOX", "SANDBOXES", "SANDBOX_HOME", "SANDBOX_UID", "SANDBOX_USER", "WORKSPACE",
    "Mount", "Sandbox", "SandboxResult", "get_sandbox", "sandboxes", "user_env",
]  # fmt: skip

sandboxes = Registry[Sandbox]("sandbox")
"""Backend name → factory. An unknown name is ``InputError``; a backend that cannot run here
raises ``SandboxError`` when built."""
SANDBOXES = sandboxes
"""Former name of :data:`sandboxes`, kept for callers written against it."""
DEFAULT_SANDBOX = "bubblewrap"


@sandboxes.register("bubblewrap")
def _bubblewrap() -> Sandbox:
    """Linux namespaces via bubblewrap: no network, private PID namespace, capped tmpfs (default)."""
    from bouts.sandbox._bubblewrap import BubblewrapSandbox

    return BubblewrapSandbox()


@sandboxes.register("docker")
def _docker() -> Sandbox:
    """A throwaway Docker container (needs a running Docker engine)."""
    from bouts.sandbox._docker import DockerSandbox

    return DockerSandbox()


@sandboxes.register("none")
def _none() -> Sandbox:
    """UNSAFE: no isolation, for trusted local debugging only."""
    from bouts.sandbox._none import NoSandbox

    return NoSandbox()


def get_sandbox(name: str = DEFAULT_SANDBOX) -> Sandbox:
    """Build the sandbox backend registered under ``name``.

    Raises ``InputError`` for an unknown name (the user's error) and ``SandboxError`` for a
    backend that cannot run here (e.g. bubblewrap not installed, no Docker engine).
    """
    return sandboxes.create(name)
