"""``bouts trajectory``: convert a harness's log to canonical JSONL, or summarise it. No logic here:
detection, parsing and counting live in ``bouts.trajectory``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from bouts.cli._errors import json_safe, plain, print_error, terminal
from bouts.errors import BoutsError
from bouts.trajectory import iter_trajectory, load_trajectory, summarize, to_jsonl

trajectory_app = typer.Typer(help="Read agent trajectories from any supported harness.", no_args_is_help=True)
EXIT_INPUT = 2


def _fail(exc: BoutsError) -> typer.Exit:
    print_error(exc)
    return typer.Exit(EXIT_INPUT)


@trajectory_app.command()
def convert(
    file: Annotated[Path, typer.Argument(help="A trajectory log from any supported harness.")],
    out: Annotated[Path | None, typer.Option("-o", "--out", help="Write here instead of stdout.")] = None,
) -> None:
    """Write FILE as canonical JSONL (SPEC §5), streaming line-oriented logs."""
    target = out.with_name(out.name + ".partial") if out else None
    try:
        _, events = iter_trajectory(file)
        with target.open("w", encoding="utf-8") if target else sys.stdout as sink:  # type: ignore[union-attr]
            for line in to_jsonl(events):
                sink.write(json_safe(line) + "\n")  # the same JSON, no C1 control raw on a terminal
    except BoutsError as exc:
        if target:
            target.unlink(missing_ok=True)  # never leave a half-converted file behind
        raise _fail(exc) from None
    if target and out:
        target.replace(out)


@trajectory_app.command()
def show(file: Annotated[Path, typer.Argument(help="A trajectory log from any supported harness.")]) -> None:
    """Summarise FILE: harness, events by kind, reads/edits, test runs, tokens, duration."""
    try:
        summary = summarize(load_trajectory(file))
    except BoutsError as exc:
        raise _fail(exc) from None
    console = terminal()
    head = Text.assemble(plain(file, "bold"), "  harness ", plain(summary.harness, "cyan"))
    console.print(head.append(f"  {summary.events} events  {summary.duration:.0f}s"), highlight=False)
    if summary.truncated_line is not None:
        cut = summary.truncated_line
        console.print(f"log cut in its last line ({cut}): read up to the line before", highlight=False)
    kinds = Table("kind", "events", title="Events by kind", title_justify="left")
    for kind, count in summary.by_kind.items():
        if count:
            kinds.add_row(plain(kind), str(count))
    console.print(kinds)
    console.print(
        f"reads {summary.reads}   edits/writes {summary.edits} ({summary.failed_edits} rejected)   "
        f"tokens in {summary.tokens_in:,} / out {summary.tokens_out:,}",
        highlight=False,
    )
    if summary.test_runs:
        runs = Table("#", "command", "passed", "failed", "exit", title="Test runs", title_justify="left")
        for run in summary.test_runs:
            failed = run.failed > 0 or run.ok is False
            verdict = Text(str(run.failed), style="red" if failed else "")
            runs.add_row(
                str(run.index),
                plain(run.command.splitlines()[0][:80] if run.command else ""),
                str(run.passed),
                verdict,
                "" if run.exit_code is None else str(run.exit_code),
            )
        console.print(runs)
    else:
        console.print("no test runs")
