"""``bouts cache info|prune``: what the engine's cache holds, and keeping it bounded
(docs/configuration.md, "Caches"). Parse, call ``bouts.cache``, render."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from bouts.cli._errors import plain, print_error, terminal
from bouts.errors import BoutsError, InputError

cache_app = typer.Typer(help="What the engine's cache holds, and keeping it bounded.", no_args_is_help=True)
EXIT_INPUT = 2

CacheDirOpt = Annotated[
    Path | None,
    typer.Option("--cache-dir", help="The cache; default: $BOUTS_CACHE_DIR, else $XDG_CACHE_HOME/bouts, else "
                 "~/.cache/bouts (where bouts score keeps it)."),
]  # fmt: skip
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]

_UNITS = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*", re.IGNORECASE)
_SPANS = {"": 86400.0, "d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0, "w": 7 * 86400.0}
_SPAN = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([dhmsw]?)\s*", re.IGNORECASE)


def parse_size(text: str) -> int:
    """``500M``, ``2G``, ``1.5GiB``, ``4096`` (bytes; K, M, G, T are powers of 1024)."""
    match = _SIZE.fullmatch(text)
    if match is None:
        raise InputError(f"{text!r} is not a size (e.g. 500M, 2G, 1.5GiB)", field="max-size")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def parse_span(text: str) -> float:
    """``30d``, ``12h``, ``90m``, ``2w``, ``7`` (days): seconds."""
    match = _SPAN.fullmatch(text)
    if match is None:
        raise InputError(f"{text!r} is not a time span (e.g. 30d, 12h, 2w)", field="older-than")
    return float(match.group(1)) * _SPANS[match.group(2).lower()]


def _root(given: Path | None) -> Path:
    from bouts.cache import default_cache_dir

    return given.expanduser() if given is not None else default_cache_dir(os.environ)


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


def _fail(exc: BoutsError) -> typer.Exit:
    print_error(exc, terminal(stderr=True))
    return typer.Exit(EXIT_INPUT)


@cache_app.command("info")
def info_cmd(cache_dir: CacheDirOpt = None, as_json: JsonOpt = False) -> None:
    """Entries and bytes per kind (namespace, prepared environments, leftovers)."""
    from bouts.cache import summary

    root = _root(cache_dir)
    kinds = summary(root)
    if as_json:
        typer.echo(json.dumps({"cache_dir": str(root), "kinds": {k: {"entries": t.entries, "bytes": t.bytes}
                                                                 for k, t in sorted(kinds.items())}}))  # fmt: skip
        return
    table = Table(title=f"cache {root}")
    for column in ("kind", "entries", "size"):
        table.add_column(column, justify="left" if column == "kind" else "right")
    for kind, tally in sorted(kinds.items()):
        table.add_row(plain(kind), str(tally.entries), _size(tally.bytes))
    table.add_row("all", str(sum(t.entries for t in kinds.values())), _size(sum(t.bytes for t in kinds.values())),
                  style="bold")  # fmt: skip
    terminal().print(table)


@cache_app.command("prune")
def prune_cmd(
    cache_dir: CacheDirOpt = None,
    max_size: Annotated[
        str | None,
        typer.Option("--max-size", help="Remove the least recently used entries until the cache weighs at most "
                     "this (e.g. 2G)."),
    ] = None,  # fmt: skip
    older_than: Annotated[
        str | None,
        typer.Option("--older-than", help="Remove entries unused for longer than this (e.g. 30d, 12h)."),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Say what would be removed; remove nothing.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Remove what a killed writer left and files nothing reads any more; with --older-than and
    --max-size, entries too, least recently used first. A prepared environment used in the last
    hour stays (a running score may have it mounted); the caches' secrets always stay."""
    from bouts.cache import prune

    try:
        limit = parse_size(max_size) if max_size is not None else None
        span = parse_span(older_than) if older_than is not None else None
    except BoutsError as exc:
        raise _fail(exc) from None
    root = _root(cache_dir)
    report = prune(root, max_bytes=limit, older_than_s=span, dry_run=dry_run)
    removed, kept = report.total("removed"), report.total("kept")
    if as_json:
        typer.echo(json.dumps({
            "cache_dir": str(root), "dry_run": dry_run,
            "removed": {k: {"entries": t.entries, "bytes": t.bytes} for k, t in sorted(report.removed.items())},
            "kept": {"entries": kept.entries, "bytes": kept.bytes},
        }))  # fmt: skip
        return
    verb = "would remove" if dry_run else "removed"
    out = terminal()
    out.print(plain(f"{root}: {verb} {removed.entries} entries ({_size(removed.bytes)}); "
                    f"{kept.entries} kept ({_size(kept.bytes)})"))  # fmt: skip
    for kind, tally in sorted(report.removed.items()):
        out.print(plain(f"  {kind}: {tally.entries} ({_size(tally.bytes)})"))
