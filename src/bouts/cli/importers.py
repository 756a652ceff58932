"""``bouts import humaneval|mbpp FILE``: turn a dataset into challenge directories. No logic here:
parsing lives in ``bouts.importers`` (pure), writing in ``bouts.importers.write_challenges``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from bouts.cli._errors import print_error, terminal
from bouts.errors import BoutsError, InputError
from bouts.importers import ImportedChallenge, parse_humaneval, parse_mbpp, write_challenges

import_app = typer.Typer(help="Import public coding-task datasets as challenges.", no_args_is_help=True)
EXIT_INPUT = 2

FileArg = Annotated[Path, typer.Argument(help="The dataset file (JSON lines, or MBPP's sanitized JSON array).")]
OutOpt = Annotated[Path, typer.Option("-o", "--out", help="Directory to write the challenges into.")]
LimitOpt = Annotated[int | None, typer.Option("--limit", min=1, help="Import only the first N tasks.")]
ProfileOpt = Annotated[str, typer.Option("--profile", help="Headline profile: engine (default) or composite.")]
OverwriteOpt = Annotated[bool, typer.Option("--overwrite", help="Replace challenge directories that exist.")]


def _run(
    parser: Callable[..., list[ImportedChallenge]],
    file: Path,
    out: Path,
    limit: int | None,
    profile: str,
    overwrite: bool,
) -> None:
    err = terminal(stderr=True)
    try:
        if profile not in ("engine", "composite", "four-judge"):
            raise InputError("must be engine, composite or four-judge", field="profile")
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise InputError(f"cannot be read: {e}", file=str(file)) from None
        # Every record is parsed before anything is written: a bad record writes nothing.
        challenges = parser(text, source=str(file), profile=profile, limit=limit)
        written = write_challenges(challenges, out, overwrite=overwrite)
    except BoutsError as exc:
        print_error(exc, err)
        raise typer.Exit(EXIT_INPUT) from None
    hidden = sum(c.hidden_tests for c in challenges)
    visible = sum(c.visible_tests for c in challenges)
    typer.echo(f"imported {len(written)} challenge(s) into {out} ({visible} visible, {hidden} hidden tests)")


@import_app.command()
def humaneval(
    file: FileArg,
    out: OutOpt = Path("challenges"),
    limit: LimitOpt = None,
    profile: ProfileOpt = "engine",
    overwrite: OverwriteOpt = False,
) -> None:
    """Import HumanEval tasks: doctest examples visible, check(candidate) hidden."""
    _run(parse_humaneval, file, out, limit, profile, overwrite)


@import_app.command()
def mbpp(
    file: FileArg,
    out: OutOpt = Path("challenges"),
    limit: LimitOpt = None,
    profile: ProfileOpt = "engine",
    overwrite: OverwriteOpt = False,
) -> None:
    """Import MBPP tasks: the first test visible, the rest and challenge_test_list hidden."""
    _run(parse_mbpp, file, out, limit, profile, overwrite)
