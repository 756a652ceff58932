"""``bouts advisories import|info``: the offline OSV advisory store the security judge checks pinned
dependencies against (docs/security.md, "Dependency advisories"). No logic here: reading and checking
exports lives in ``bouts.judges.security.advisories``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from bouts.cli._errors import plain, print_error, terminal
from bouts.errors import BoutsError, InfrastructureError, InputError

advisories_app = typer.Typer(
    help="The offline OSV advisory store the security judge checks pinned dependencies against.",
    no_args_is_help=True,
)
ENV = "BOUTS_ADVISORIES"
EXIT_INPUT, EXIT_INFRA = 2, 3

StoreOpt = Annotated[
    Path | None, typer.Option("--store", help=f"The store file (SQLite); default: ${ENV}.")
]


def store_path(given: Path | None) -> Path | None:
    """The store a command means: ``--store``/``--advisories``, else ``$BOUTS_ADVISORIES``, else None."""
    if given is not None:
        return given
    env = os.environ.get(ENV, "").strip()
    return Path(env).expanduser() if env else None


def _fail(exc: BoutsError) -> typer.Exit:
    print_error(exc, terminal(stderr=True))
    return typer.Exit(EXIT_INFRA if isinstance(exc, InfrastructureError) else EXIT_INPUT)


@advisories_app.command("import")
def import_cmd(
    sources: Annotated[
        list[Path],
        typer.Argument(help="osv.dev exports: <ECOSYSTEM>/all.zip files, or folders of OSV JSON records."),
    ],
    store: StoreOpt = None,
) -> None:
    """Check every record of the exports, then replace the store's advisories of each ecosystem they
    cover (PyPI, npm); the other ecosystems' stay. Nothing is written when any record is malformed."""
    from bouts.judges.security.advisories import import_export

    try:
        target = store_path(store)
        if target is None:
            raise InputError(f"give --store PATH or set {ENV}", field="store")
        target.parent.mkdir(parents=True, exist_ok=True)
        report = import_export(sources, target)
    except BoutsError as exc:
        raise _fail(exc) from None
    out = terminal()
    out.print(plain(
        f"{report.read} records read: {report.stored} stored ({', '.join(report.ecosystems) or 'no ecosystem'}), "
        f"{report.withdrawn} withdrawn, {report.other_ecosystems} of other ecosystems, "
        f"{report.skipped_files} other files skipped"
    ))
    out.print(plain(f"{target}: {report.info.label()}"))


@advisories_app.command("info")
def info_cmd(store: StoreOpt = None) -> None:
    """What the store holds: its digest, advisories per ecosystem, and how fresh it is."""
    from bouts.judges.security.advisories import open_store

    try:
        target = store_path(store)
        if target is None:
            raise InputError(f"give --store PATH or set {ENV}", field="store")
        with open_store(target) as opened:
            info = opened.info()
    except BoutsError as exc:
        raise _fail(exc) from None
    out = terminal()
    out.print(plain(f"{target}: {info.label()}"))
    out.print(plain(f"digest sha256:{info.digest}; last import {info.imported}"))
