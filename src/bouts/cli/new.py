"""``bouts new challenge`` and ``bouts new submission``: parse, call ``bouts.authoring``, print."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bouts.cli._errors import print_error
from bouts.errors import BoutsError

EXIT_INPUT = 2

new_app = typer.Typer(help="Start a challenge or a submission from a runnable skeleton.", no_args_is_help=True)


@new_app.command("challenge")
def challenge(
    directory: Annotated[Path, typer.Argument(help="Where to write it (absent or empty).")],
    language: Annotated[str, typer.Option(help="python, javascript or typescript.")] = "python",
    family: Annotated[str, typer.Option(help='The challenge family (docs/scoring.md, "Families").')] = "default",
    challenge_id: Annotated[str | None, typer.Option("--id", help="Challenge id (default: from DIRECTORY).")] = None,
    title: Annotated[str | None, typer.Option(help="One-line title.")] = None,
) -> None:
    """A complete small bug hunt to edit into your own: starter, reference, one test file per suite,
    three anchors. `bouts check DIRECTORY` passes once each anchor's expected.toml holds your scores."""
    from bouts.authoring import new_challenge

    try:
        files = new_challenge(directory, language=language, family=family, challenge_id=challenge_id, title=title)
    except BoutsError as exc:
        print_error(exc)
        raise typer.Exit(EXIT_INPUT) from None
    typer.echo(f"wrote {len(files)} files to {directory}")
    typer.echo("next: write your expected scores in anchors/{low,mid,high}/expected.toml, then "
               f"`bouts check {directory}` (docs/writing-a-challenge.md, \"Walkthrough\")")  # fmt: skip


@new_app.command("submission")
def submission(
    directory: Annotated[Path, typer.Argument(help="Where to write it (absent or empty).")],
    challenge: Annotated[Path | None, typer.Option(help="The challenge directory (its id and starter/).")] = None,
    challenge_id: Annotated[str | None, typer.Option("--id", help="The challenge id, without a directory.")] = None,
    agent: Annotated[str, typer.Option(help="Who made the submission.")] = "my-agent",
    iteration: Annotated[int, typer.Option(min=1, help="1 for a first attempt.")] = 1,
) -> None:
    """An empty submission: submission.toml, code/ (the starter when --challenge is given),
    deliverables/ and an empty trajectory.jsonl (docs/trajectories.md)."""
    from bouts.authoring import new_submission

    try:
        files = new_submission(directory, challenge=challenge, challenge_id=challenge_id, agent=agent,
                               iteration=iteration)  # fmt: skip
    except BoutsError as exc:
        print_error(exc)
        raise typer.Exit(EXIT_INPUT) from None
    typer.echo(f"wrote {len(files)} files to {directory}")
