"""Sandbox backends: one contract (:class:`Sandbox`), a registry of named factories.

Built-ins are registered exactly like a third-party backend would be::

    SANDBOXES["mine"] = MySandbox      # any zero-argument callable returning a Sandbox
    sandbox = get_sandbox("mine")
"""

from __future__ import annotations

from collections.abc import Callable

from bouts.errors import SandboxError
from bouts.sandbox._base import WORKSPACE, Mount, Sandbox, SandboxResult

__all__ = ["SANDBOXES", "WORKSPACE", "Mount", "Sandbox", "SandboxResult", "get_sandbox"]


def _bubblewrap() -> Sandbox:
    from bouts.sandbox._bubblewrap import BubblewrapSandbox

    return BubblewrapSandbox()


def _none() -> Sandbox:
    from bouts.sandbox._none import NoSandbox

    return NoSandbox()


SANDBOXES: dict[str, Callable[[], Sandbox]] = {"bubblewrap": _bubblewrap, "none": _none}
"""Backend name → factory. The first entry is the default."""


def get_sandbox(name: str = "bubblewrap") -> Sandbox:
    """Build the sandbox backend registered under ``name``.

    Raises ``SandboxError`` for an unknown name or a backend that cannot run here
    (e.g. bubblewrap not installed).
    """
    try:
        factory = SANDBOXES[name]
    except KeyError:
        known = ", ".join(sorted(SANDBOXES))
        raise SandboxError(f"unknown sandbox '{name}' (known: {known})") from None
    return factory()
