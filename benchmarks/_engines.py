"""``--engine LABEL=SRC`` for the benchmarks that compare engines in the same rounds, alternating.

Each engine is the ``src`` directory of a copy of the engine (``git archive REV src | tar -x -C
/tmp/x``, or a copy of a working tree), put first on ``PYTHONPATH`` of the commands run for it; its
caches are its own (their keys hold its fingerprint). Each is compiled to bytecode first, as
``scripts/setup`` compiles the installed one (where PYTHONDONTWRITEBYTECODE is set, a copy left as
source would compile its modules again in every command it runs). Without ``--engine``: the
installed engine.
"""

from __future__ import annotations

import argparse
import compileall
import os
from pathlib import Path

Engine = tuple[str, Path | None]
"""A label (empty for the installed engine) and its ``src`` directory (None: the installed one)."""


def add_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--engine", action="append", default=[], metavar="LABEL=SRC",
        help="an engine's src directory to compare (repeatable; default: the installed engine)",
    )  # fmt: skip


def engines(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[Engine]:
    """The engines ``--engine`` named, in order; the installed engine alone without it."""
    if not args.engine:
        return [("", None)]
    found: list[Engine] = []
    for item in args.engine:
        label, sep, src = item.partition("=")
        if not sep or not label or not (Path(src) / "bouts").is_dir():
            parser.error(f"--engine {item}: give LABEL=SRC, SRC a directory holding the bouts package")
        found.append((label, Path(src).resolve()))
        compileall.compile_dir(Path(src).resolve(), quiet=1)
    return found


def env(src: Path | None, **extra: str) -> dict[str, str]:
    """The environment of a command run for the engine at ``src``."""
    out = {**os.environ, **extra}
    if src is not None:
        out["PYTHONPATH"] = str(src)
    return out
