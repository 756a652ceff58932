"""``bouts sandbox image``: build the docker backend's image offline (docs/sandbox.md). Parse, call
``bouts.sandbox``, render."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bouts.cli._errors import print_error, terminal
from bouts.errors import BoutsError, InputError

sandbox_app = typer.Typer(help="The sandbox backends' own material (the docker backend's image).",
                          no_args_is_help=True)  # fmt: skip
EXIT_INPUT, EXIT_ENGINE = 2, 3


@sandbox_app.command()
def image(
    tag: Annotated[str, typer.Option(help="The image's name, as --sandbox docker:image=TAG names it.")] = "",
    suite: Annotated[str, typer.Option(help="The Debian suite debootstrap installs.")] = "",
    mirror: Annotated[str, typer.Option(help="The Debian mirror debootstrap reads.")] = "",
    rootfs: Annotated[Path | None, typer.Option(help="Import this root filesystem instead of debootstrapping one.")]
    = None,
) -> None:
    """Build the docker backend's image from Debian's packages: debootstrap (minbase) + docker import.
    Needs root (debootstrap) and a running Docker engine; no image registry."""
    from bouts.sandbox import DEFAULT_IMAGE, DEFAULT_MIRROR, DEFAULT_SUITE, ImageRequest, build_image

    console = terminal()
    request = ImageRequest(tag=tag or DEFAULT_IMAGE, suite=suite or DEFAULT_SUITE, mirror=mirror or DEFAULT_MIRROR,
                           rootfs=rootfs)  # fmt: skip
    try:
        image_id = build_image(request, log=lambda line: console.print(f"[dim]{line}[/]"))
    except BoutsError as exc:
        print_error(exc)
        raise typer.Exit(EXIT_INPUT if isinstance(exc, InputError) else EXIT_ENGINE) from None
    console.print(f"built {request.tag} ({image_id}); use it with --sandbox docker:image={request.tag}")
