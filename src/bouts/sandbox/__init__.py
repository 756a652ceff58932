"""Sandbox backends: one contract (:class:`Sandbox`), registered on the project's one registry.

Built-ins are registered exactly like a third-party backend would be (``bouts.plugins`` entry
point, or directly)::

    from bouts.sandbox import sandboxes

    @sandboxes.register("mine")
    def make_mine() -> Sandbox: ...

    sandbox = get_sandbox("mine")
"""

from __future__ import annotations

from bouts.errors import InputError
from bouts.registry import Registry
from bouts.sandbox._base import (
    SANDBOX_HOME,
    SANDBOX_UID,
    SANDBOX_USER,
    WORKSPACE,
    Mount,
    Sandbox,
    SandboxResult,
    tree_bytes,
    user_env,
)

__all__ = [
    "DEFAULT_SANDBOX", "SANDBOXES", "SANDBOX_HOME", "SANDBOX_UID", "SANDBOX_USER", "WORKSPACE",
    "Mount", "Sandbox", "SandboxResult", "get_sandbox", "parse_sandbox_spec", "sandboxes", "tree_bytes",
    "user_env",
    "DEFAULT_IMAGE", "DEFAULT_MIRROR", "DEFAULT_SUITE", "ImageRequest", "build_image",
]  # fmt: skip

_IMAGE_NAMES = {"DEFAULT_IMAGE": "_docker", "DEFAULT_MIRROR": "_image", "DEFAULT_SUITE": "_image",
                "ImageRequest": "_image", "build_image": "_image"}  # fmt: skip


def __getattr__(name: str) -> object:
    """The docker backend's image names, imported when asked for (not on every command's start-up path)."""
    if name in _IMAGE_NAMES:
        import importlib

        return getattr(importlib.import_module(f"bouts.sandbox.{_IMAGE_NAMES[name]}"), name)
    raise AttributeError(f"module 'bouts.sandbox' has no attribute {name!r}")


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
def _docker(*, image: str = "", runtime: str = "", tmp_mb: str = "") -> Sandbox:
    """A throwaway Docker container (a running Docker engine and the image `bouts sandbox image` builds)."""
    from bouts.sandbox._docker import DockerSandbox, DockerSettings

    return DockerSandbox(DockerSettings.parse(image=image, runtime=runtime, tmp_mb=tmp_mb))


@sandboxes.register("none")
def _none() -> Sandbox:
    """UNSAFE: no isolation, for trusted local debugging only."""
    from bouts.sandbox._none import NoSandbox

    return NoSandbox()


def get_sandbox(name: str = DEFAULT_SANDBOX) -> Sandbox:
    """Build the sandbox backend ``name`` names: a registered name, optionally with the backend's
    options after a colon, e.g. ``docker:image=bouts-sandbox:bookworm,runtime=runsc,tmp_mb=512``
    (the same text in ``--sandbox``, ``BOUTS_SANDBOX`` and the service's settings).

    Raises ``InputError`` (field ``sandbox``) for an unknown name or option, or a malformed one (the
    user's error), and ``SandboxError`` for a backend that cannot run here (e.g. bubblewrap not
    installed, no Docker engine, its image not built).
    """
    backend, options = parse_sandbox_spec(name)
    try:
        return sandboxes.create(backend, **options)
    except InputError as exc:
        raise InputError(exc.message, field="sandbox") from None


def parse_sandbox_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"docker:image=x:1,runtime=runsc"`` → ``("docker", {"image": "x:1", "runtime": "runsc"})``.
    Pure. An option's value runs to the next comma (an image reference holds colons, never commas)."""
    backend, sep, rest = spec.strip().partition(":")
    options: dict[str, str] = {}
    for item in rest.split(",") if sep and rest.strip() else []:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise InputError(f"sandbox option {item.strip()!r} is not KEY=VALUE (in {spec!r})", field="sandbox")
        if key.strip() in options:
            raise InputError(f"sandbox option {key.strip()!r} given twice (in {spec!r})", field="sandbox")
        options[key.strip()] = value.strip()
    return backend, options
